"""The stages of a prepared run over the dataset, chunk by chunk (DESIGN.md, "One flow",
execute): for each chunk every stage in order, each per-system stage for all systems at once
(a cross-system stage once per sample), one progress bar per stage; the chunk's rows go to the
spill files and the chunk is dropped.

Pipelining: per-system stages that call no model and directly follow one that does (a score
stage) run on each sample as soon as its row is made, on a worker thread, so they are done when
the last reply lands and their CPU work never holds back the requests waiting to go out
(:mod:`taiwa.harness.followers`, ``tests/test_pipelining.py``); the rows are the same, sample by
sample.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias

from taiwa.harness.chunk_overlap import Draining, StageSeconds, after, at_once, run_overlapping
from taiwa.harness.followers import Followers
from taiwa.harness.method import SYSTEM, Row, Stage
from taiwa.harness.plan import Plan, plan_calling_stages, plan_models
from taiwa.harness.pool import ModelPool, RoleModel
from taiwa.harness.progress import ProgressBars
from taiwa.harness.rows import RowStore
from taiwa.harness.stage_run import run_stage

Before: TypeAlias = "asyncio.Future[None] | None"
"""The chunk before (its task), which a chunk waits for before it stores rows."""


async def check_models(plan: Plan, pool: ModelPool) -> None:
    """Load every model the stages will use and check its endpoint before the first sample."""
    for role, spec in plan_models(plan):
        await pool.get(role, spec).inner.check()


def _with_ids(sample_ids: Sequence[str], system: str, rows: Sequence[Row]) -> list[Row]:
    head = {"system": system} if system else {}
    return [{"id": sid, **head, **row} for sid, row in zip(sample_ids, rows, strict=True)]


async def run_stages(
    plan: Plan, pool: ModelPool, progress: ProgressBars, seconds: dict[str, float], store: RowStore
) -> None:
    """Every stage on each chunk of samples in turn; the chunk's rows go to ``store``."""
    tasks = {
        st.name: progress.add_task(
            _stage_label(st, plan),
            total=len(plan.samples) * (1 if st.across_systems else len(plan.systems)),
        )
        for st in plan.stages
    }
    clock = StageSeconds(seconds)

    async def run(chunk: list[Any], draining: asyncio.Event, before: Before) -> None:
        try:
            await _run_chunk(plan, chunk, pool, progress, tasks, clock, store, draining, before)
        finally:
            draining.set()

    await run_overlapping(plan.samples.chunks(), run, at_once(plan_calling_stages(plan)))


async def _run_chunk(
    plan: Plan,
    samples: Sequence[Any],
    pool: ModelPool,
    progress: ProgressBars,
    tasks: Mapping[str, Any],
    clock: StageSeconds,
    store: RowStore,
    draining: asyncio.Event,
    before: Before,
) -> None:
    """The stages on one chunk, in order. Per-system stages that call no model and directly
    follow one that does run sample by sample as the model's rows are made (pipelined: a
    score stage is done by the time the last reply arrives). ``draining`` is set once the
    chunk's first model stage leaves its model slots it cannot fill (the next chunk may
    start: :mod:`taiwa.harness.chunk_overlap`); the rows are stored once the chunk
    ``before`` this one has stored all of its own."""
    ids = [s.id for s in samples]
    upstream: dict[str, dict[str, dict[str, Row]]] = {
        sys_: {sid: {} for sid in ids} for sys_ in plan.systems
    }
    stages = list(plan.stages)
    i = 0
    while i < len(stages):
        stage = stages[i]
        start = time.perf_counter()

        def advance(x: float, task: Any = tasks[stage.name]) -> None:
            progress.advance(task, x)

        if stage.across_systems:
            model = _stage_model(plan, pool, stage, "")
            rows = await run_stage(
                stage,
                samples,
                lambda s: {sys_: upstream[sys_][s.id] for sys_ in plan.systems},
                model,
                advance,
                on_drained=_lane(_first_model_stage(model is not None, draining, 1)),
            )
            clock.add(stage.name, start, time.perf_counter())
            await after(before)
            store.append(stage.name, "", _with_ids(ids, "", rows))
            i += 1
            continue
        models = {sys_: _stage_model(plan, pool, stage, sys_) for sys_ in plan.systems}
        followers: list[Stage[Any]] = []
        if any(m is not None for m in models.values()):
            for later in stages[i + 1 :]:
                if later.across_systems or any(
                    _stage_model(plan, pool, later, sys_) is not None for sys_ in plan.systems
                ):
                    break
                followers.append(later)
        pipe = Followers(stage.name, followers, upstream, progress, tasks)
        calls = any(m is not None for m in models.values())
        lanes = _first_model_stage(calls, draining, len(plan.systems))
        try:
            per_system = await asyncio.gather(
                *(
                    run_stage(
                        stage,
                        samples,
                        lambda s, sys_=sys_: upstream[sys_][s.id],  # type: ignore[misc]
                        models[sys_],
                        advance,
                        pipe.lane(sys_),
                        _lane(lanes),
                    )
                    for sys_ in plan.systems
                )
            )
            await pipe.drain()
        finally:
            pipe.close()
        # the followers ran on their own thread, beside the requests: not subtracted
        clock.add(stage.name, start, time.perf_counter())
        await after(before)
        for sys_, rows in zip(plan.systems, per_system, strict=True):
            store.append(stage.name, sys_, _with_ids(ids, sys_, rows))
        for f in followers:
            for sys_ in plan.systems:
                rows = [upstream[sys_][sid][f.name] for sid in ids]
                store.append(f.name, sys_, _with_ids(ids, sys_, rows))
            clock.extend(f.name, pipe.seconds[f.name])
        i += 1 + len(followers)


def _first_model_stage(calls: bool, draining: asyncio.Event, lanes: int) -> Draining | None:
    """What sets the chunk's ``draining`` once each of a stage's ``lanes`` has drained, for
    the first stage of the chunk that calls a model (None for the others)."""
    if not calls or draining.is_set():
        return None
    return Draining(draining, lanes)


def _lane(draining: Draining | None) -> Callable[[], None] | None:
    return draining.lane() if draining is not None else None


def _stage_model(plan: Plan, pool: ModelPool, stage: Stage[Any], system: str) -> RoleModel | None:
    """The model ``stage`` calls for ``system`` (None: its role has a local value, or none)."""
    if stage.role == SYSTEM:
        return pool.get(SYSTEM, system)
    spec = plan.setup.roles.get(stage.role or "")
    role = next((r for r in plan.method.roles if r.name == stage.role), None)
    return pool.get(role.name, spec) if role and spec and role.is_model(spec) else None


def _stage_label(stage: Stage[Any], plan: Plan) -> str:
    if stage.role == SYSTEM:
        return f"{stage.name} ({len(plan.systems)} system(s))"
    spec = plan.setup.roles.get(stage.role or "")
    return f"{stage.name} ({stage.role}: {spec})" if spec else stage.name
