"""One stage over a batch of samples (DESIGN.md, "One flow", execute): the requests of every
sample go to the role's model at once; each sample is finished as soon as its last reply
arrives (pipelining), an output that does not validate is re-asked with a repair turn
(:class:`~taiwa.harness.method.Retry`, up to the stage's ``attempts``), and repairs and invalid
outputs are counted per role. Samples that failed upstream are skipped with the upstream
reason; a stage without requests computes locally.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from taiwa.core.errors import TaiwaError
from taiwa.harness.method import RE_ASKED, REPAIRS, Retry, Row, Stage, StageFailure
from taiwa.harness.pool import RoleModel, RoleStats
from taiwa.harness.spent import Spent
from taiwa.models.base import ConcurrentModel
from taiwa.models.json_replies import repair_turn
from taiwa.models.types import ChatRequest, ChatResponse

Pending = tuple[Any, Any, list[ChatRequest]]
"""A sample waiting for replies: the sample, its upstream, its requests."""


def upstream_error(upstream: Mapping[str, Row]) -> str | None:
    """Why the sample failed in an earlier stage (``None``: it did not)."""
    for name, row in upstream.items():
        if "error" in row:
            return f"{name}: {row['error']}" if "skipped" not in row else str(row["error"])
    return None


def _finish(
    stage: Stage[Any], sample: Any, up: Any, replies: Sequence[ChatResponse]
) -> Row | Retry:
    try:
        return stage.finish(sample, up, replies)
    except StageFailure as exc:
        return {"error": str(exc)}


FIRST_WAVE_ROUNDS = 4
"""The first requests of a stage go out once this many rounds of the model's ``concurrency``
are built and keyed, while the rest of the chunk is built (issue 29, point 1: at 10,000
samples building and keying a whole chunk of 4,096 first held the first request back by about
0.1 s). Unlike a smaller first chunk, this adds no barrier: both waves share the model's
request limit, so its slots stay full from one wave to the next."""

BUILD_SLICE = 64
"""Samples built between two turns of the event loop while the first wave is in flight."""


async def run_stage(
    stage: Stage[Any],
    samples: Sequence[Any],
    upstream: Callable[[Any], Any],
    model: RoleModel | None,
    advance: Callable[[float], None],
    on_done: Callable[[Any, Row], None] | None = None,
    on_drained: Callable[[], None] | None = None,
) -> list[Row]:
    """One stage for one system (or across systems): rows in sample order.

    Samples that failed upstream are skipped (their row carries the upstream error); replies
    that failed become the row's error; :class:`Retry` re-asks up to ``stage.attempts``.
    A sample is finished as soon as its last reply arrives (scheduled behind the requests
    ready to go out, so sending comes first), and ``on_done(sample, row)`` is called with each
    final row as it is made: later local stages run while the other requests are in flight.
    The first :data:`FIRST_WAVE_ROUNDS` rounds of requests are sent while the others are
    built (a model whose batches share one request limit: :class:`ConcurrentModel`).
    ``on_drained`` is called once the model has slots the stage cannot fill
    (:class:`Unanswered`)."""
    done: dict[str, Row] = {}
    unanswered = Unanswered(on_drained, _slots(model))

    def settle(s: Any, row: Row) -> None:
        done[s.id] = row
        if on_done is not None:
            on_done(s, row)

    local: list[tuple[Any, Any]] = []

    def build(batch: Iterable[Any]) -> list[Pending]:
        out: list[Pending] = []
        for s in batch:
            up = upstream(s)
            failed = None if stage.across_systems else upstream_error(up)
            if failed is not None:
                settle(s, {"error": failed, "skipped": True})
                advance(1)
                continue
            reqs = list(stage.requests(s, up))
            if reqs:
                out.append((s, up, reqs))
                continue
            local.append((s, up))
        return out

    feed = iter(samples)
    head = build(itertools.islice(feed, _first_wave(model, len(samples))))
    retry: list[Pending] = []
    spent: dict[str, Spent] = {}
    early = _EarlyFinish(_concluder(stage, model, settle, 1, retry, spent), advance)
    first = _send(stage, model, head, early, unanswered)
    second: asyncio.Future[list[ChatResponse]] | None = None
    try:
        rest: list[Pending] = []
        while batch := list(itertools.islice(feed, BUILD_SLICE)):
            rest += build(batch)
            if first is not None:
                await asyncio.sleep(0)  # the first wave goes out meanwhile
                if first.done():
                    first.result()  # e.g. the endpoint refused: nothing more is sent
        for (s, _), row in zip(local, local_results(stage, local), strict=True):
            settle(s, row)
            advance(1)
        second = _send(stage, model, rest, early, unanswered)
        unanswered.all_sent()
        waves = [f for f in (first, second) if f is not None]
        if waves:  # the first error of either stops both
            finished, _ = await asyncio.wait(waves, return_when=asyncio.FIRST_EXCEPTION)
            for f in finished:
                f.result()  # raises what failed; when none did, both are done
        replies = [r for f in waves for r in f.result()]
    except BaseException:
        for fut in (first, second):
            if fut is not None and not fut.done():
                fut.cancel()
        await asyncio.gather(*(f for f in (first, second) if f is not None), return_exceptions=True)
        raise
    unanswered.done()
    early.finish_the_rest(replies)
    attempt = 2
    while retry:
        pending, retry = retry, []
        early = _EarlyFinish(_concluder(stage, model, settle, attempt, retry, spent), None)
        fut = _send(stage, model, pending, early)
        early.finish_the_rest(await fut if fut is not None else [])
        attempt += 1
    return [done[s.id] for s in samples]


class Unanswered:
    """One stage's first-attempt requests to one model: calls ``drained`` once every request
    is handed to the model and fewer than ``slots`` are unanswered, so the model has slots
    this stage cannot fill (the next chunk may take them: :mod:`taiwa.harness.chunk_overlap`),
    or once the stage ends."""

    def __init__(self, drained: Callable[[], None] | None, slots: int) -> None:
        self.drained = drained
        self.slots = slots
        self.sent = 0
        self.answered = 0
        self.complete = False

    def add(self, n: int) -> None:
        self.sent += n

    def all_sent(self) -> None:
        self.complete = True
        self._check()

    def answer(self) -> None:
        self.answered += 1
        self._check()

    def _check(self) -> None:
        if self.complete and self.sent - self.answered < self.slots:
            self.done()

    def done(self) -> None:
        """The stage has ended (or drained): ``drained`` is called, once."""
        drained, self.drained = self.drained, None
        if drained is not None:
            drained()


def _first_wave(model: RoleModel | None, n: int) -> int:
    """Samples whose requests go out before the rest are built (all of them, for a model
    whose concurrent batches would not share one request limit)."""
    slots = _slots(model)
    return FIRST_WAVE_ROUNDS * slots if slots else n


def _slots(model: RoleModel | None) -> int:
    """Requests ``model`` has in flight at once (0: not a model with a shared limit)."""
    if model is None or not isinstance(model.inner, ConcurrentModel):
        return 0
    return max(1, model.inner.concurrency)


def _send(
    stage: Stage[Any],
    model: RoleModel | None,
    pending: Sequence[Pending],
    early: _EarlyFinish,
    unanswered: Unanswered | None = None,
) -> asyncio.Future[list[ChatResponse]] | None:
    """``pending``'s requests sent to ``model`` (their replies, in order, as a future; None
    when there is nothing to send), each sample finished by ``early`` as its replies come
    (and each reply counted by ``unanswered``)."""
    if not pending:
        return None
    if model is None:
        raise TaiwaError(f"stage {stage.name} asked for a model but its role has none")
    early.add(pending)
    flat = [r for _, _, reqs in pending for r in reqs]
    on_response = early.on_response
    if unanswered is not None:
        unanswered.add(len(flat))

        def on_response(res: ChatResponse) -> None:
            early.on_response(res)
            unanswered.answer()

    return asyncio.ensure_future(model.generate(flat, on_response=on_response))


def _concluder(
    stage: Stage[Any],
    model: RoleModel | None,
    settle: Callable[[Any, Row], None],
    attempt: int,
    retry: list[Pending],
    spent: dict[str, Spent],
) -> Callable[[Pending, Sequence[ChatResponse]], None]:
    """What to do with a sample once all its replies of ``attempt`` are in: its row, or a
    repaired re-ask into ``retry``; repairs and invalid outputs counted on ``model``; what the
    sample's requests cost over its attempts kept in ``spent`` and written into its row."""

    stats = model.stats if model is not None else RoleStats(stage.role or "", "")

    def conclude(item: Pending, rs: Sequence[ChatResponse]) -> None:
        s, up, reqs = item
        cost = spent.get(s.id)
        if cost is None:
            cost = spent[s.id] = Spent()
        cost.add(rs)
        bad = next((r for r in rs if not r.ok), None)
        if bad is not None:
            row: Row = {"error": bad.error or "no output", "attempts": attempt}
            cost.into(row)
            settle(s, row)
            return
        res = _finish(stage, s, up, rs)
        if isinstance(res, Retry):
            if attempt < stage.attempts:
                retry.append((s, up, _repaired(reqs, rs, res)))
                return
            stats.invalid += 1
            res = {"error": f"invalid output after {attempt} attempt(s): {res.reason}"}
        else:
            stats.add_repairs(res.get(REPAIRS, {}))
            if attempt > 1:
                stats.repaired += 1
        if attempt > 1:
            stats.add_repairs({RE_ASKED: attempt - 1})
        res.setdefault("attempts", attempt)
        res.setdefault("cached", all(r.cached for r in rs))
        cost.into(res)
        settle(s, res)

    return conclude


class _EarlyFinish:
    """Finishes each pending sample once all its replies are in, while the batch goes on.

    Samples come in waves (:meth:`add`); replies are matched to samples by request id (unique
    within a stage, as the cache's keys require); with a repeated id nothing more is finished
    early and :meth:`finish_the_rest` does it all. The finishing is scheduled with
    ``call_soon``: the requests whose replies arrived in the same turn of the event loop are
    sent first. ``advance`` moves the progress bar by 1/k per reply of a sample that sent k
    requests."""

    def __init__(
        self,
        conclude: Callable[[Pending, Sequence[ChatResponse]], None],
        advance: Callable[[float], None] | None,
    ) -> None:
        self.conclude = conclude
        self.advance = advance
        self.pending: list[Pending] = []
        self.slot: dict[str, tuple[int, int]] = {}
        self.enabled = True
        self.got: list[list[ChatResponse | None]] = []
        self.missing: list[int] = []
        self.claimed: list[bool] = []
        #: what finishing a sample raised inside the event loop (a method's bug): re-raised
        #: by :meth:`finish_the_rest` when the batch returns, instead of lost in the loop's log
        self.error: BaseException | None = None

    def add(self, pending: Sequence[Pending]) -> None:
        """Samples whose requests are about to be sent."""
        for n, (_, _, reqs) in enumerate(pending, start=len(self.pending)):
            for j, req in enumerate(reqs):
                if req.id in self.slot:
                    self.enabled = False
                self.slot[req.id] = (n, j)
            self.got.append([None] * len(reqs))
            self.missing.append(len(reqs))
            self.claimed.append(False)
        self.pending += pending

    def finish_the_rest(self, replies: Sequence[ChatResponse]) -> None:
        """Every sample not finished early, from ``replies`` (all of them, in request order),
        once the batch returned; first, what finishing one early raised."""
        if self.error is not None:
            raise self.error
        k = 0
        for n, item in enumerate(self.pending):
            rs, k = replies[k : k + len(item[2])], k + len(item[2])
            if self.claim(n):  # not finished as its replies came in
                self.conclude(item, rs)

    def claim(self, n: int) -> bool:
        """True once for sample ``n``: the caller finishes it."""
        if self.claimed[n]:
            return False
        self.claimed[n] = True
        return True

    def on_response(self, res: ChatResponse) -> None:
        at = self.slot.get(res.id)
        if at is None:
            return
        n, j = at
        if self.advance is not None:
            self.advance(1 / len(self.got[n]))
        if not self.enabled or self.got[n][j] is not None:
            return
        self.got[n][j] = res
        self.missing[n] -= 1
        if self.missing[n] == 0:
            asyncio.get_running_loop().call_soon(self._finish, n)

    def _finish(self, n: int) -> None:
        if self.error is None and self.enabled and self.claim(n):
            rs = self.got[n]
            try:
                self.conclude(self.pending[n], [r for r in rs if r is not None])
            except BaseException as exc:
                self.error = exc


def _repaired(
    requests: Sequence[ChatRequest], replies: Sequence[ChatResponse], retry: Retry
) -> list[ChatRequest]:
    """Each request with its reply and the validation error appended (the conversation grows,
    so a repeated bad answer never makes an identical, cached request)."""
    return [
        req.model_copy(
            update={
                "messages": [
                    *req.messages,
                    *repair_turn(rep.text or "", retry.reason, retry.repair),
                ]
            }
        )
        for req, rep in zip(requests, replies, strict=True)
    ]


def local_row(stage: Stage[Any], sample: Any, up: Any) -> Row:
    """The row of a stage that calls no model, for one sample (skipped after an upstream
    failure)."""
    failed = upstream_error(up)
    if failed is not None:
        return {"error": failed, "skipped": True}
    if stage.requests(sample, up):
        raise TaiwaError(f"stage {stage.name} asked for a model but its role has none")
    return local_result(stage, sample, up)


def local_results(stage: Stage[Any], items: Sequence[tuple[Any, Any]]) -> Iterator[Row]:
    """The rows of a local stage for ``(sample, upstream)`` items, in order: through the
    stage's ``compute_many`` when it has one (:class:`~taiwa.harness.stages.LocalStage`),
    else sample by sample."""
    many = getattr(stage, "compute_many", None)
    if many is None or not items:
        return (local_result(stage, s, up) for s, up in items)
    return iter(many([s for s, _ in items], [up for _, up in items]))


def local_result(stage: Stage[Any], sample: Any, up: Any) -> Row:
    """What a local stage makes of one sample (a :class:`Retry` here is a method's bug)."""
    res = _finish(stage, sample, up, [])
    if isinstance(res, Retry):
        raise TaiwaError(f"stage {stage.name}: Retry without a model")  # a method bug
    return res
