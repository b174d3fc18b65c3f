"""The local stages that follow a model stage, run on each sample as its reply lands
(pipelining, DESIGN.md "One flow"; issue 29 points 2 and 3).

A per-system stage that calls no model and directly follows one that does (a score stage) is
a *follower*: it runs on a sample as soon as that sample's row of the model stage is made, so
the scores are done when the last reply lands. Followers run on one worker thread, off the
event loop, so that their CPU work (Japanese tokenising, classifiers) never runs on the loop
that sends the requests.

A thread still shares the interpreter with the loop. Replies land in bunches (a round of
requests answered together), and each reply the loop takes sends the next request. A
follower working through the bunch's first rows while the loop is still taking the rest made
the loop wait for the interpreter at each of its system calls (a socket send took about
100 µs on average instead of about 15 µs; measured on 1,000 intent items, 200 ms latency,
concurrency 64): the first round of the next requests went out 50-120 ms late instead of
about 15 ms. So the worker waits until replies have stopped landing for
:data:`QUIET_SECONDS` before it takes the rows queued so far, never longer than
:data:`MAX_WAIT_SECONDS`, and not at all once the stage has sent its last request
(:meth:`Followers.drain`).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from taiwa.harness.method import Row, Stage
from taiwa.harness.progress import ProgressBars
from taiwa.harness.stage_run import local_row

QUIET_SECONDS = 0.003
"""A pause in the replies this long ends a bunch: the loop takes a reply in well under a
millisecond when nothing competes with it."""

MAX_WAIT_SECONDS = 0.05
"""The most the worker waits for a pause before it takes the queued rows anyway (replies that
never pause: many systems, slow servers answering one by one)."""


class Followers:
    """Runs the local ``followers`` of stage ``name`` on each sample as soon as its row of
    ``name`` is made; their rows go into ``upstream`` (see the module docstring).

    The work goes to one worker thread (started with the first row): a thread, not a process,
    because stages are closures over a method's loaded resources; one, because the followers
    are pure Python (the GIL lets one run at a time anyway). Rows that land while the thread
    waits or works queue up and are taken in one go. :meth:`drain` waits for them and raises
    the first error a follower raised (a method's bug is raised, never lost; the other samples
    still go through)."""

    def __init__(
        self,
        name: str,
        followers: Sequence[Stage[Any]],
        upstream: dict[str, dict[str, dict[str, Row]]],
        progress: ProgressBars,
        tasks: Mapping[str, Any],
    ) -> None:
        self.name = name
        self.followers = followers
        self.upstream = upstream
        self.progress = progress
        self.tasks = tasks
        self.seconds = {f.name: 0.0 for f in followers}
        self._pool: ThreadPoolExecutor | None = None
        self._futures: list[Future[None]] = []
        self._queue: list[tuple[Any, dict[str, Row]]] = []
        self._busy = False
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._landed = 0.0  # time.monotonic() of the last row queued
        self._hurry = threading.Event()  # set once no more rows will come

    def lane(self, system: str) -> Callable[[Any, Row], None]:
        """The callback of ``system``'s model stage: files each finished row and queues the
        sample for the followers."""

        def on_done(sample: Any, row: Row) -> None:
            up = self.upstream[system][sample.id]
            up[self.name] = row
            if not self.followers:
                return
            with self._lock:
                self._queue.append((sample, up))
                self._landed = time.monotonic()
                if self._busy:
                    return  # the worker takes it with the rows queued before it
                self._busy = True
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="taiwa-followers")
            self._futures.append(self._pool.submit(self._follow_queued))

        return on_done

    def _await_quiet(self) -> None:
        """Return once no row has been queued for :data:`QUIET_SECONDS`, after at most
        :data:`MAX_WAIT_SECONDS`, or at once when :meth:`drain` has begun (the wait holds no
        lock and not the interpreter)."""
        deadline = time.monotonic() + MAX_WAIT_SECONDS
        while not self._hurry.is_set():
            now = time.monotonic()
            quiet = now - self._landed
            if quiet >= QUIET_SECONDS or now >= deadline:
                return
            self._hurry.wait(min(QUIET_SECONDS - quiet, deadline - now))

    def _follow_queued(self) -> None:
        """Run the followers on every queued sample, in arrival order, until none is left."""
        while True:
            self._await_quiet()
            with self._lock:
                batch, self._queue = self._queue, []
                if not batch:
                    self._busy = False
                    return
            for sample, up in batch:
                try:
                    self._follow(sample, up)
                except Exception as exc:  # raised by drain(); the other samples go on
                    if self._error is None:
                        self._error = exc

    def _follow(self, sample: Any, up: dict[str, Row]) -> None:
        for f in self.followers:
            start = time.perf_counter()
            up[f.name] = local_row(f, sample, up)
            with self._lock:
                self.seconds[f.name] += time.perf_counter() - start
            self.progress.advance(self.tasks[f.name], 1)

    async def drain(self) -> None:
        """Wait until every queued sample went through the followers, then raise the first
        error a follower raised (the first sample's that failed, in arrival order). No more
        rows come: the worker stops waiting for pauses."""
        self._hurry.set()
        for fut in self._futures:
            await asyncio.wrap_future(fut)
        if self._error is not None:
            raise self._error

    def close(self) -> None:
        self._hurry.set()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
