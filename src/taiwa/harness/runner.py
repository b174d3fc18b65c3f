"""Run any method's stages for several systems and helper roles (DESIGN.md, "One flow").

1. :func:`prepare` validates everything before the first model call: method, options, roles,
   systems, the dataset, the run directory.
2. :func:`execute` loads every model once, checks each endpoint, then runs the stages in order;
   each stage runs for every system at once (cross-system stages once per sample), with one
   progress bar per stage, repair rounds for outputs that do not validate, and every call of
   every role through the response cache (a killed run resumes from it).
3. The method aggregates; the run directory gets ``config.json``, one JSONL file per stage and
   ``summary.json`` (per system, across systems, calls per role, failures, seconds).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from taiwa.benchmarks import get_method
from taiwa.errors import TaiwaError
from taiwa.harness.collector import collector_paused
from taiwa.harness.config import RunConfig
from taiwa.harness.method import (
    HUMAN,
    RE_ASKED,
    REPAIRS,
    SYSTEM,
    Method,
    Results,
    Retry,
    Row,
    Setup,
    Stage,
    StageFailure,
)
from taiwa.harness.options import parse_options
from taiwa.harness.pool import ModelPool, RoleModel
from taiwa.harness.rows import RowStore
from taiwa.harness.rundir import (
    RunDir,
    default_run_dir,
    input_files,
    provenance,
    write_outputs,
    write_stage_files,
)
from taiwa.harness.samples import SampleSource, chunk_size
from taiwa.io import shown, write_json
from taiwa.llm_json import repair_turn
from taiwa.models.base import ChatModel
from taiwa.models.replay import ReferenceModel
from taiwa.models.spec import ModelSpec
from taiwa.models.types import ChatRequest, ChatResponse

if TYPE_CHECKING:
    from taiwa.models.cache import ResponseCache

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class Plan:
    """A validated run: nothing below has called a model yet."""

    config: RunConfig
    method: Method[Any]
    setup: Setup
    systems: list[str]
    data_path: Path
    samples: SampleSource
    stages: list[Stage[Any]]
    out: Path


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


def _resolve_roles(method: Method[Any], given: Mapping[str, str]) -> dict[str, str]:
    declared = {r.name: r for r in method.roles}
    for name in given:
        if name not in declared:
            roles = ", ".join(declared) or "none"
            raise TaiwaError(f"{method.name} has no role {name!r} (its roles: {roles})")
    blank = next((name for name, spec in given.items() if not spec.strip()), None)
    if blank is not None:
        raise TaiwaError(f"--role {blank}= is empty: give a SPEC, or leave the role out")
    out: dict[str, str] = {}
    for name, role in declared.items():
        spec = given.get(name) or role.default
        if spec is None:
            if role.required:
                raise TaiwaError(f"{method.name} needs a {name}: --role {name}=SPEC")
            continue
        if role.is_model(spec):
            if not role.models:
                raise TaiwaError(f"--role {name}={shown(spec)} is not a {name} here: {role.help}")
            ModelSpec.parse(spec)
        out[name] = spec
    return out


def _resolve_systems(method: Method[Any], models: Sequence[str]) -> list[str]:
    if not method.takes_systems:
        if models:
            raise TaiwaError(
                f"{method.name} takes no --model: the systems it scores come from the data"
            )
        return [""]
    if not models:
        raise TaiwaError(f"{method.name} needs at least one system: --model SPEC")
    seen: set[str] = set()
    for spec in models:
        if spec in seen:
            raise TaiwaError(f"--model {spec} is given twice")
        seen.add(spec)
        if spec != HUMAN:
            ModelSpec.parse(spec)
    return list(models)


def _model_roles(
    stages: Sequence[Stage[Any]],
    method: Method[Any],
    roles: Mapping[str, str],
    systems: Sequence[str],
) -> list[tuple[str, str]]:
    """``(role, SPEC)`` of every model the stages will call, in first-use order."""
    by_name = {r.name: r for r in method.roles}
    wanted: list[tuple[str, str]] = []
    for st in stages:
        if st.role == SYSTEM:
            wanted += [(SYSTEM, s) for s in systems if s]
        elif st.role is not None and st.role in roles and by_name[st.role].is_model(roles[st.role]):
            wanted.append((st.role, roles[st.role]))
    return list(dict.fromkeys(wanted))


def prepare(config: RunConfig, *, method: Method[Any] | None = None) -> Plan:
    """Validate the whole run (one-line errors) without calling any model."""
    m: Method[Any] = method or get_method(config.method)
    options = parse_options(m.name, m.options, config.options)
    roles = _resolve_roles(m, config.roles)
    systems = _resolve_systems(m, config.models)
    setup = Setup(
        options=options,
        roles=roles,
        params=config.params,
        seed=config.seed,
        systems=tuple(s for s in systems if s),
    )
    stages = list(m.stages(setup))
    calls = _model_roles(stages, m, roles, systems)
    if not calls and (config.cache_dir or config.no_cache):
        raise TaiwaError(
            f"{m.name} with these settings calls no model: --cache-dir/--no-cache do not apply"
        )
    for _, spec in calls:
        if spec != HUMAN:
            ModelSpec.parse(spec).check(config.model_options)
    data_path = (config.data or m.default_data()).resolve()
    chunk = chunk_size(config.concurrency if calls else None)
    samples = SampleSource(lambda: m.load(data_path, options), config.limit, chunk)
    if not len(samples):
        raise TaiwaError(f"{data_path}: no samples to evaluate")
    out = config.out or default_run_dir(m.name, systems, data_path)
    return Plan(config, m, setup, systems, data_path, samples, stages, out)


# ---------------------------------------------------------------------------- stage execution


def _upstream_error(upstream: Mapping[str, Row]) -> str | None:
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

    pending: list[tuple[Any, Any, list[ChatRequest]]] = []
    for s in samples:
        up = upstream(s)
        failed = None if stage.across_systems else _upstream_error(up)
        if failed is not None:
            settle(s, {"error": failed, "skipped": True})
            advance(1)
            continue
        reqs = list(stage.requests(s, up))
        if reqs:
            pending.append((s, up, reqs))
            continue
        settle(s, _local_result(stage, s, up))
        advance(1)
    attempt = 1
    while pending:
        if model is None:
            raise TaiwaError(f"stage {stage.name} asked for a model but its role has none")
        retry: list[tuple[Any, Any, list[ChatRequest]]] = []

        def conclude(
            item: tuple[Any, Any, list[ChatRequest]],
            rs: Sequence[ChatResponse],
            attempt: int = attempt,
            retry: list[tuple[Any, Any, list[ChatRequest]]] = retry,
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
        pending: Sequence[tuple[Any, Any, list[ChatRequest]]],
        conclude: Callable[[tuple[Any, Any, list[ChatRequest]], Sequence[ChatResponse]], None],
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


def _progress(show: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not show,
    )


def _with_ids(sample_ids: Sequence[str], system: str, rows: Sequence[Row]) -> list[Row]:
    head = {"system": system} if system else {}
    return [{"id": sid, **head, **row} for sid, row in zip(sample_ids, rows, strict=True)]


async def _run_stages(
    plan: Plan, pool: ModelPool, progress: Progress, seconds: dict[str, float], store: RowStore
) -> None:
    """Every stage on each chunk of samples in turn; the chunk's rows go to ``store``."""
    tasks = {
        st.name: progress.add_task(
            _stage_label(st, plan),
            total=len(plan.samples) * (1 if st.across_systems else len(plan.systems)),
        )
        for st in plan.stages
    }
    for chunk in plan.samples.chunks():
        await _run_chunk(plan, chunk, pool, progress, tasks, seconds, store)


async def _run_chunk(
    plan: Plan,
    samples: Sequence[Any],
    pool: ModelPool,
    progress: Progress,
    tasks: Mapping[str, Any],
    seconds: dict[str, float],
    store: RowStore,
) -> None:
    """The stages on one chunk, in order. Per-system stages that call no model and directly
    follow one that does run sample by sample as the model's rows are made (pipelined: a
    score stage is done by the time the last reply arrives)."""
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
            rows = await run_stage(
                stage,
                samples,
                lambda s: {sys_: upstream[sys_][s.id] for sys_ in plan.systems},
                _stage_model(plan, pool, stage, ""),
                advance,
            )
            store.append(stage.name, "", _with_ids(ids, "", rows))
            seconds[stage.name] = round(seconds.get(stage.name, 0.0) + _since(start), 3)
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
        pipe = _Followers(stage.name, followers, upstream, progress, tasks)
        per_system = await asyncio.gather(
            *(
                run_stage(
                    stage,
                    samples,
                    lambda s, sys_=sys_: upstream[sys_][s.id],  # type: ignore[misc]
                    models[sys_],
                    advance,
                    pipe.lane(sys_),
                )
                for sys_ in plan.systems
            )
        )
        for sys_, rows in zip(plan.systems, per_system, strict=True):
            store.append(stage.name, sys_, _with_ids(ids, sys_, rows))
        own = _since(start) - sum(pipe.seconds.values())
        seconds[stage.name] = round(seconds.get(stage.name, 0.0) + own, 3)
        for f in followers:
            for sys_ in plan.systems:
                rows = [upstream[sys_][sid][f.name] for sid in ids]
                store.append(f.name, sys_, _with_ids(ids, sys_, rows))
            seconds[f.name] = round(seconds.get(f.name, 0.0) + pipe.seconds[f.name], 3)
        i += 1 + len(followers)


def _since(start: float) -> float:
    return time.perf_counter() - start


def _stage_model(plan: Plan, pool: ModelPool, stage: Stage[Any], system: str) -> RoleModel | None:
    """The model ``stage`` calls for ``system`` (None: its role has a local value, or none)."""
    if stage.role == SYSTEM:
        return pool.get(SYSTEM, system)
    spec = plan.setup.roles.get(stage.role or "")
    role = next((r for r in plan.method.roles if r.name == stage.role), None)
    return pool.get(role.name, spec) if role and spec and role.is_model(spec) else None


class _Followers:
    """Runs the local ``followers`` of stage ``name`` on each sample as soon as its row of
    ``name`` is made (see :func:`_run_chunk`); their rows go into ``upstream``."""

    def __init__(
        self,
        name: str,
        followers: Sequence[Stage[Any]],
        upstream: dict[str, dict[str, dict[str, Row]]],
        progress: Progress,
        tasks: Mapping[str, Any],
    ) -> None:
        self.name = name
        self.followers = followers
        self.upstream = upstream
        self.progress = progress
        self.tasks = tasks
        self.seconds = {f.name: 0.0 for f in followers}

    def lane(self, system: str) -> Callable[[Any, Row], None]:
        def on_done(sample: Any, row: Row) -> None:
            up = self.upstream[system][sample.id]
            up[self.name] = row
            for f in self.followers:
                start = time.perf_counter()
                up[f.name] = _local_row(f, sample, up)
                self.seconds[f.name] += _since(start)
                self.progress.advance(self.tasks[f.name], 1)

        return on_done


def _local_row(stage: Stage[Any], sample: Any, up: Any) -> Row:
    """The row of a stage that calls no model, for one sample (skipped after an upstream
    failure)."""
    failed = _upstream_error(up)
    if failed is not None:
        return {"error": failed, "skipped": True}
    if stage.requests(sample, up):
        raise TaiwaError(f"stage {stage.name} asked for a model but its role has none")
    return _local_result(stage, sample, up)


def _local_result(stage: Stage[Any], sample: Any, up: Any) -> Row:
    res = _finish(stage, sample, up, [])
    if isinstance(res, Retry):
        raise TaiwaError(f"stage {stage.name}: Retry without a model")  # a method bug
    return res


def _stage_label(stage: Stage[Any], plan: Plan) -> str:
    if stage.role == SYSTEM:
        return f"{stage.name} ({len(plan.systems)} system(s))"
    spec = plan.setup.roles.get(stage.role or "")
    return f"{stage.name} ({stage.role}: {spec})" if spec else stage.name


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


async def _check_models(plan: Plan, pool: ModelPool) -> None:
    """Load every model the stages will use and check its endpoint before the first sample."""
    for role, spec in _model_roles(plan.stages, plan.method, plan.setup.roles, plan.systems):
        await pool.get(role, spec).inner.check()


def execute(
    plan: Plan,
    *,
    show_progress: bool = True,
    preloaded: dict[str, ChatModel] | None = None,
    overwrite: bool = False,
) -> RunResult:
    """Run a prepared plan and write its run directory (see :class:`RunDir`: locked while the
    run lasts, marked ``INCOMPLETE`` until ``summary.json`` is written)."""
    from taiwa.models.cache import default_cache_dir

    cfg = plan.config
    t0 = time.perf_counter()
    cache_dir = cfg.cache_dir or default_cache_dir()
    uses_cache = bool(_model_roles(plan.stages, plan.method, plan.setup.roles, plan.systems))
    inputs = input_files(plan)
    outputs = [st.output for st in plan.stages if st.output]
    factories = {HUMAN: _reference_factory(plan)} if HUMAN in plan.systems else {}
    with RunDir(plan.out, _key(plan, inputs), outputs=outputs, overwrite=overwrite) as rundir:
        cache = _open_cache(cache_dir) if uses_cache and not cfg.no_cache else None
        pool = ModelPool(cfg.model_options, cache, factories, preloaded)
        write_json(plan.out / "config.json", provenance(plan, pool, None, inputs))
        seconds: dict[str, float] = {}
        store = RowStore(plan.out)
        results = Results([s for s in plan.systems if s], store)
        waits: list[Callable[[], Any]] = []
        try:
            with collector_paused():

                async def main() -> None:
                    await _check_models(plan, pool)
                    with _progress(show_progress) as progress:
                        await _run_stages(plan, pool, progress, seconds, store)

                try:
                    asyncio.run(main())
                finally:
                    # The cache's last commit and checkpoint run beside what follows.
                    closing = _in_background(lambda: _close_cache(cache), "taiwa-cache")
                    waits.append(closing)
                # The stage files are joined and synced (I/O, the GIL let go) while the method
                # aggregates (its views read the spill files, or a joined file once complete).
                writing = _in_background(
                    lambda: write_stage_files(plan.out, plan.stages, results), "taiwa-write"
                )
                waits.append(writing)
                start = time.perf_counter()
                summary = plan.method.aggregate(plan.samples, results, plan.setup)
                summary.notes.extend(closing() or [])
                seconds["aggregate"] = round(time.perf_counter() - start, 3)
                seconds["total"] = round(time.perf_counter() - t0, 3)
                out = _summary(plan, store, summary, pool, seconds)
                config = provenance(plan, pool, cache_dir if cache is not None else None, inputs)
                write_outputs(plan.out, config, out, summary.files, before_summary=writing)
        finally:
            for wait in waits:
                wait()
            store.close()
        rundir.finish()
    return RunResult(plan.out, out, plan.method, results)


def _key(plan: Plan, inputs: dict[str, str]) -> str:
    """The run's identity (:func:`run_key`) before any model is loaded."""
    from taiwa.harness.rundir import run_key

    return run_key(
        {
            "config": plan.config.model_dump(mode="json"),
            "method": plan.method.name,
            "systems": [s for s in plan.systems if s],
            "roles": dict(plan.setup.roles),
            "options": plan.setup.options.model_dump(mode="json"),
            "input_sha256": inputs,
        }
    )


def _open_cache(cache_dir: Path) -> ResponseCache:
    from taiwa.models.cache import ResponseCache

    return ResponseCache(cache_dir / "responses.sqlite")


def _in_background(work: Callable[[], T], name: str) -> Callable[[], T | None]:
    """Start ``work`` in a thread; the function returned waits for it and gives its result,
    or raises what it raised (once; later calls return None)."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=target, name=name)
    thread.start()

    def wait() -> T | None:
        thread.join()
        if not outcome:
            return None
        got = outcome.pop()
        if isinstance(got, BaseException):
            raise got
        return got  # type: ignore[no-any-return]

    return wait


def _close_cache(cache: ResponseCache | None) -> list[str]:
    """Close the cache (if any); a failure to store replies costs resumability, not the run's
    results: it becomes a warning and a note in the summary."""
    if cache is None:
        return []
    try:
        cache.close()
    except TaiwaError as exc:
        log.warning("%s", exc)
        return [f"replies not stored in the cache (a rerun sends them again): {exc}"]
    return []


def _summary(
    plan: Plan, store: RowStore, summary: Any, pool: ModelPool, seconds: dict[str, float]
) -> dict[str, Any]:
    failures: dict[str, int] = {}
    for st in plan.stages:
        lanes = [""] if st.across_systems else plan.systems
        failures[st.name] = sum(store.count(st.name, sys_).failed for sys_ in lanes)
    last = next((st for st in reversed(plan.stages) if not st.across_systems), None)
    systems: dict[str, dict[str, Any]] = {}
    for label, block in summary.systems.items():
        head: dict[str, Any] = {}
        if label in plan.systems and last is not None:
            count = store.count(last.name, label)
            head = {
                "n": count.rows,
                "scored": count.rows - count.errors,
                "failures": {
                    st.name: store.count(st.name, label).failed
                    for st in plan.stages
                    if not st.across_systems
                },
            }
        systems[label] = {**head, **block}
    return {
        "method": plan.method.name,
        "seed_paper": plan.method.seed,
        "status": "failures" if any(failures.values()) else "ok",
        "n_samples": len(plan.samples),
        "systems": systems,
        "across": summary.across,
        "failures": failures,
        "calls": pool.stats(),
        "seconds": seconds,
        "notes": summary.notes,
        "files": sorted(summary.files),
    }


def run(
    config: RunConfig,
    *,
    show_progress: bool = True,
    method: Method[Any] | None = None,
    preloaded: dict[str, ChatModel] | None = None,
    overwrite: bool = False,
) -> RunResult:
    """Validate, run and write: the Python entry point of ``taiwa run``."""
    plan = prepare(config, method=method)
    return execute(plan, show_progress=show_progress, preloaded=preloaded, overwrite=overwrite)
