"""One stage over a batch of samples (DESIGN.md, "One flow", execute): the requests of every
sample go to the role's model at once; each sample is finished as soon as its last reply
arrives (pipelining), an output that does not validate is re-asked with a repair turn
(:class:`~taiwa.harness.method.Retry`, up to the stage's ``attempts``), and repairs and invalid
outputs are counted per role. Samples that failed upstream are skipped with the upstream
reason; a stage without requests computes locally.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from taiwa.errors import TaiwaError
from taiwa.harness.method import RE_ASKED, REPAIRS, Retry, Row, Stage, StageFailure
from taiwa.harness.pool import RoleModel
from taiwa.llm_json import repair_turn
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


async def run_stage(
    stage: Stage[Any],
    samples: Sequence[Any],
    upstream: Callable[[Any], Any],
    model: RoleModel | None,
    advance: Callable[[float], None],
    on_done: Callable[[Any, Row], None] | None = None,
) -> list[Row]:
    """One stage for one system (or across systems): rows in sample order.

    Samples that failed upstream are skipped (their row carries the upstream error); replies
    that failed become the row's error; :class:`Retry` re-asks up to ``stage.attempts``.
    A sample is finished as soon as its last reply arrives (scheduled behind the requests
    ready to go out, so sending comes first), and ``on_done(sample, row)`` is called with each
    final row as it is made: later local stages run while the other requests are in flight."""
    done: dict[str, Row] = {}

    def settle(s: Any, row: Row) -> None:
        done[s.id] = row
        if on_done is not None:
            on_done(s, row)

    pending: list[Pending] = []
    local: list[tuple[Any, Any]] = []
    for s in samples:
        up = upstream(s)
        failed = None if stage.across_systems else upstream_error(up)
        if failed is not None:
            settle(s, {"error": failed, "skipped": True})
            advance(1)
            continue
        reqs = list(stage.requests(s, up))
        if reqs:
            pending.append((s, up, reqs))
            continue
        local.append((s, up))
    for (s, _), row in zip(local, local_results(stage, local), strict=True):
        settle(s, row)
        advance(1)
    attempt = 1
    while pending:
        if model is None:
            raise TaiwaError(f"stage {stage.name} asked for a model but its role has none")
        retry: list[Pending] = []

        def conclude(
            item: Pending,
            rs: Sequence[ChatResponse],
            attempt: int = attempt,
            retry: list[Pending] = retry,
        ) -> None:
            s, up, reqs = item
            bad = next((r for r in rs if not r.ok), None)
            if bad is not None:
                settle(s, {"error": bad.error or "no output", "attempts": attempt})
                return
            res = _finish(stage, s, up, rs)
            if isinstance(res, Retry):
                if attempt < stage.attempts:
                    retry.append((s, up, _repaired(reqs, rs, res)))
                    return
                model.stats.invalid += 1
                res = {"error": f"invalid output after {attempt} attempt(s): {res.reason}"}
            else:
                model.stats.add_repairs(res.get(REPAIRS, {}))
                if attempt > 1:
                    model.stats.repaired += 1
            if attempt > 1:
                model.stats.add_repairs({RE_ASKED: attempt - 1})
            res.setdefault("attempts", attempt)
            res.setdefault("cached", all(r.cached for r in rs))
            settle(s, res)

        flat = [r for _, _, reqs in pending for r in reqs]
        early = _EarlyFinish(pending, conclude, advance if attempt == 1 else None)
        replies = await model.generate(flat, on_response=early.on_response)
        early.check()
        k = 0
        for n, item in enumerate(pending):
            rs, k = replies[k : k + len(item[2])], k + len(item[2])
            if early.claim(n):  # not finished as its replies came in
                conclude(item, rs)
        pending, attempt = retry, attempt + 1
    return [done[s.id] for s in samples]


class _EarlyFinish:
    """Finishes each pending sample once all its replies are in, while the batch goes on.

    Replies are matched to samples by request id (unique within a batch, as the cache's keys
    require); with repeated ids nothing is finished early and the batch's end does it all.
    The finishing is scheduled with ``call_soon``: the requests whose replies arrived in the
    same turn of the event loop are sent first. ``advance`` moves the progress bar by 1/k per
    reply of a sample that sent k requests."""

    def __init__(
        self,
        pending: Sequence[Pending],
        conclude: Callable[[Pending, Sequence[ChatResponse]], None],
        advance: Callable[[float], None] | None,
    ) -> None:
        self.pending = pending
        self.conclude = conclude
        self.advance = advance
        self.slot: dict[str, tuple[int, int]] = {}
        for n, (_, _, reqs) in enumerate(pending):
            for j, req in enumerate(reqs):
                self.slot[req.id] = (n, j)
        flat = sum(len(reqs) for _, _, reqs in pending)
        self.enabled = len(self.slot) == flat
        self.got: list[list[ChatResponse | None]] = [[None] * len(r) for _, _, r in pending]
        self.missing = [len(reqs) for _, _, reqs in pending]
        self.claimed = [False] * len(pending)
        #: what finishing a sample raised inside the event loop (a method's bug): re-raised
        #: by :meth:`check` when the batch returns, instead of lost in the loop's log
        self.error: BaseException | None = None

    def check(self) -> None:
        if self.error is not None:
            raise self.error

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
        if self.error is None and self.claim(n):
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
