"""Chunks that overlap at their seams (issue 29: the whole command at scale).

A run of more samples than one chunk (:mod:`taiwa.harness.samples`) used to end each chunk
before it began the next: the model's slots idled while the chunk's last round of requests
was answered (one latency, 0.2 s in the benchmark), then while its rows were written and the
next chunk's first requests were built (0.1 s more). On 10,000 intent items at concurrency 64
that was 0.3 s at each of the two seams.

Now the next chunk starts as soon as the current one's model has slots it cannot fill: its
first model stage has sent every request and fewer are unanswered than the model's
concurrency (:class:`~taiwa.harness.stage_run.Unanswered`, :class:`Draining`). The next
chunk's first requests then take the slots the last round frees. At most two chunks run at
once, one more for each further stage that calls a model (:func:`at_once`: with a judge after
the system, the next chunk's system stage runs beside this chunk's judge stage, chunks being
short then, :data:`~taiwa.harness.samples.PIPELINE_ROUNDS`); memory stays bounded by a few
chunks. A chunk writes its rows only after the one before it has written all of its own, so
the output files keep the samples' order and are the same as without the overlap
(``tests/test_streaming.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

Run = Callable[[T, asyncio.Event, "asyncio.Future[None] | None"], Awaitable[None]]
"""How to run one chunk: ``run(chunk, draining, before)``; it sets ``draining`` when the next
chunk may start and awaits ``before`` (:func:`after`) before it writes rows."""

AT_ONCE = 2
"""Chunks that run at once (at least): the current one and the one finishing before it."""


def at_once(calling_stages: int) -> int:
    """Chunks at once for a run whose ``calling_stages`` stages call models: one per such
    stage and one more, so that each model stage can be busy with a chunk of its own."""
    return max(AT_ONCE, calling_stages + 1)


async def run_overlapping(chunks: Iterable[T], run: Run[T], most: int = AT_ONCE) -> None:
    """``run`` on each chunk in order, the next one started once the current one sets its
    ``draining`` event (or ends), at most ``most`` at a time. The first error stops every
    chunk still running and is raised."""
    running: list[asyncio.Future[None]] = []
    try:
        for chunk in chunks:
            if len(running) >= most:
                await _wait_for(running[0], running)
                running.pop(0)
            draining = asyncio.Event()
            task = asyncio.ensure_future(run(chunk, draining, running[-1] if running else None))
            running.append(task)
            waiter = asyncio.ensure_future(draining.wait())
            try:
                await _wait_for(waiter, running)
            finally:
                waiter.cancel()
        while running:
            await _wait_for(running[0], running)
            running.pop(0)
    except BaseException:
        for t in running:
            t.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise


async def _wait_for(target: asyncio.Future[Any], tasks: list[asyncio.Future[None]]) -> None:
    """Until ``target`` is done, raising the error of any of ``tasks`` that fails first."""
    pending: set[asyncio.Future[Any]] = {target, *tasks}
    while target in pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for t in done:
            t.result()


async def after(before: asyncio.Future[None] | None) -> None:
    """Once the previous chunk ``before`` has ended (its error raised); waiting here never
    cancels it."""
    if before is not None:
        await asyncio.wait({before})
        before.result()


class Draining:
    """Sets ``event`` once each of ``lanes`` (a stage's systems) has said that its model has
    slots its requests cannot fill (:meth:`lane`)."""

    def __init__(self, event: asyncio.Event, lanes: int) -> None:
        self.event = event
        self.left = lanes
        if lanes <= 0:
            event.set()

    def lane(self) -> Callable[[], None]:
        """The callback one lane calls (once) when it drains."""
        called = False

        def drained() -> None:
            nonlocal called
            if called:
                return
            called = True
            self.left -= 1
            if self.left <= 0:
                self.event.set()

        return drained


class StageSeconds:
    """Each stage's wall time in ``seconds`` as the union of its chunks' intervals (two
    overlapping chunks' stage counts once where they overlap)."""

    def __init__(self, seconds: dict[str, float]) -> None:
        self.seconds = seconds
        self.last_end: dict[str, float] = {}

    def add(self, name: str, start: float, end: float) -> None:
        counted = max(start, self.last_end.get(name, start))
        self.seconds[name] = round(self.seconds.get(name, 0.0) + max(0.0, end - counted), 3)
        self.last_end[name] = max(end, self.last_end.get(name, end))

    def extend(self, name: str, seconds: float) -> None:
        """``seconds`` more for ``name`` (work timed on its own, e.g. a follower's thread)."""
        self.seconds[name] = round(self.seconds.get(name, 0.0) + seconds, 3)
