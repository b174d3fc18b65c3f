"""Run any method's stages for several systems and helper roles (DESIGN.md, "One flow").

1. Preparation (:func:`~taiwa.harness.plan.prepare`) validates everything before the first
   model call: options, roles, systems, the dataset, the run directory.
2. Stage execution (:mod:`.chunk_run`, :mod:`.stage_run`) loads every model once, checks each
   endpoint, then runs the stages in order, chunk by chunk; each stage runs for every system at
   once (cross-system stages once per sample), with one progress bar per stage, repair rounds
   for outputs that do not validate, local stages pipelined behind the model stage they follow,
   and every call of every role through the response cache (a killed run resumes from it).
3. Writing (:mod:`.run_output`, :mod:`.rundir`): the method aggregates while the stage files
   are joined; the run directory gets ``config.json``, one JSONL file per stage and
   ``summary.json`` (per system, across systems, calls per role, failures, seconds) and,
   with two or more systems, the paired ``comparisons`` of the metrics the method declares
   (``Method.compared``; ``--baseline`` picks the reference).

The runner is handed the method object (the CLI resolves the name through the registry); it
never imports a method package.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taiwa.core.errors import TaiwaError
from taiwa.core.io import write_json
from taiwa.harness.chunk_run import check_models, run_stages
from taiwa.harness.collector import collector_paused
from taiwa.harness.config import RunConfig
from taiwa.harness.method import HUMAN, Method, Results, compared_metrics
from taiwa.harness.plan import Plan, plan_models, prepare
from taiwa.harness.pool import ModelPool
from taiwa.harness.progress import ProgressBars
from taiwa.harness.provenance import input_files, plan_key, provenance
from taiwa.harness.rows import RowStore, StoredResults
from taiwa.harness.run_output import close_cache, in_background, open_cache, run_summary
from taiwa.harness.rundir import RunDir, write_outputs, write_stage_files
from taiwa.harness.warm_up import WARM_AFTER, warm_up_soon
from taiwa.metrics.comparisons import compare_rows
from taiwa.metrics.flags import add_small_n
from taiwa.models.base import ChatModel
from taiwa.models.replay import ReferenceModel

__all__ = ["Plan", "RunResult", "execute", "prepare", "run"]


@dataclass
class RunResult:
    """Where a run wrote and its summary (``summary["status"]`` says whether anything failed)."""

    run_dir: Path
    summary: dict[str, Any]
    method: Method[Any]
    results: Results = field(repr=False)

    @property
    def failures(self) -> int:
        return int(sum(self.summary["failures"].values()))


def _reference_factory(plan: Plan) -> Callable[[], ChatModel]:
    def build() -> ChatModel:
        refs = {s.id: plan.method.reference(s) for s in plan.samples}
        missing = [k for k, v in refs.items() if v is None]
        if len(missing) == len(refs):
            raise TaiwaError(f"{plan.data_path}: no reference replies, so no 'human' system")
        return ReferenceModel(
            {k: v for k, v in refs.items() if v is not None}, "reference", str(plan.data_path)
        )

    return build


def execute(
    plan: Plan,
    *,
    show_progress: bool = True,
    preloaded: dict[str, ChatModel] | None = None,
    overwrite: bool = False,
) -> RunResult:
    """Run a prepared plan and write its run directory (see :class:`RunDir`: locked while the
    run lasts, marked ``INCOMPLETE`` until ``summary.json`` is written). What the stages hold
    for the run (:attr:`Plan.held`) is closed when it ends, however it ends."""
    try:
        return _execute(plan, show_progress, preloaded, overwrite)
    finally:
        plan.close()


def _execute(
    plan: Plan, show_progress: bool, preloaded: dict[str, ChatModel] | None, overwrite: bool
) -> RunResult:
    from taiwa.models.cache import default_cache_dir

    cfg = plan.config
    t0 = time.perf_counter()
    cache_dir = cfg.cache_dir or default_cache_dir()
    uses_cache = bool(plan_models(plan))
    inputs = input_files(plan)
    outputs = [st.output for st in plan.stages if st.output]
    factories = {HUMAN: _reference_factory(plan)} if HUMAN in plan.systems else {}
    with RunDir(plan.out, plan_key(plan, inputs), outputs=outputs, overwrite=overwrite) as rundir:
        cache = open_cache(cache_dir) if uses_cache and not cfg.no_cache else None
        pool = ModelPool(cfg.model_options, cache, factories, preloaded)
        write_json(plan.out / "config.json", provenance(plan, pool, None, inputs))
        seconds: dict[str, float] = {}
        store = RowStore(plan.out)
        results = StoredResults([s for s in plan.systems if s], store)
        waits: list[Callable[[], Any]] = []
        warm: list[Callable[[], None]] = []
        try:
            with collector_paused():

                async def main() -> None:
                    await check_models(plan, pool)
                    rundir.started()  # a failure from here on leaves a run to resume
                    loop = asyncio.get_running_loop()
                    warm.append(warm_up_soon(loop, len(plan.samples), plan.setup.seed))
                    waits.extend(warm)
                    with ProgressBars(show_progress) as progress:
                        progress.start_soon(loop, WARM_AFTER)  # not on the way to a request
                        await run_stages(plan, pool, progress, seconds, store)

                try:
                    asyncio.run(main())
                    plan.close()  # the stages are done: what they held goes now
                finally:
                    # The cache's last commit and checkpoint run beside what follows.
                    closing = in_background(lambda: close_cache(cache), "taiwa-cache")
                    waits.append(closing)
                # The stage files are joined and synced (I/O, the GIL let go) while the method
                # aggregates (its views read the spill files, or a joined file once complete).
                writing = in_background(
                    lambda: write_stage_files(plan.out, plan.stages, store, results.systems),
                    "taiwa-write",
                )
                waits.append(writing)
                start = time.perf_counter()
                for wait in warm:  # what the aggregate needs, made ready during the requests
                    wait()
                summary = plan.method.aggregate(plan.samples, results, plan.setup)
                add_small_n(summary.systems, summary.across)
                summary.notes.extend(closing() or [])
                seconds["aggregate"] = round(time.perf_counter() - start, 3)
                start = time.perf_counter()
                comparisons = compare_rows(
                    compared_metrics(plan.method, plan.setup.options),
                    results.systems,
                    results.ok,
                    baseline=cfg.baseline,
                    seed=plan.setup.seed,
                    summary={"systems": summary.systems, "across": summary.across},
                )
                if comparisons is not None:
                    seconds["comparisons"] = round(time.perf_counter() - start, 3)
                seconds["total"] = round(time.perf_counter() - t0, 3)
                out = run_summary(plan, store, summary, pool, seconds, comparisons)
                config = provenance(plan, pool, cache_dir if cache is not None else None, inputs)
                write_outputs(plan.out, config, out, summary.files, before_summary=writing)
        finally:
            for wait in waits:
                wait()
            store.close()
        rundir.finish()
    return RunResult(plan.out, out, plan.method, results)


def run(
    config: RunConfig,
    method: Method[Any],
    *,
    show_progress: bool = True,
    preloaded: dict[str, ChatModel] | None = None,
    overwrite: bool = False,
) -> RunResult:
    """Validate, run and write ``method`` as ``config`` says: the Python entry point of
    ``taiwa run`` (which resolves the method's name with :func:`taiwa.benchmarks.get_method`)."""
    plan = prepare(config, method)
    return execute(plan, show_progress=show_progress, preloaded=preloaded, overwrite=overwrite)
