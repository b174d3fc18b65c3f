"""Preparing a run (DESIGN.md, "One flow", prepare): everything is validated before the first
model call, each problem one line: the method's options, its roles (defaults, required,
unknown), the systems, the SPECs of every model the stages will call, the dataset (read once
and counted) and where the run will be written.

The method comes from the caller: the CLI resolves its name through the registry
(``taiwa.benchmarks``) and hands the method object down; nothing here knows a method by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from taiwa.core.errors import TaiwaError
from taiwa.core.io import shown
from taiwa.harness.collector import collector_paused
from taiwa.harness.config import RunConfig
from taiwa.harness.held import HeldResources
from taiwa.harness.method import HUMAN, SYSTEM, Method, Setup, Stage
from taiwa.harness.options import parse_options
from taiwa.harness.rundir import default_run_dir
from taiwa.harness.samples import SampleSource, chunk_size
from taiwa.models.spec import ModelSpec, looks_like_path


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
    held: HeldResources
    """What the stages keep for the whole run, open from before the dataset was read;
    :func:`~taiwa.harness.runner.execute` closes it (or :meth:`close`, for a plan not run)."""

    def close(self) -> None:
        """Close what the stages hold (idempotent; ``execute`` does it at the end of a run)."""
        self.held.close()


def _named(config: RunConfig, key: str, default: str) -> Callable[[], AbstractContextManager[None]]:
    """A context in which a one-line error is prefixed with how the user wrote ``key`` (e.g.
    ``--judge``, ``-m``, ``run.yaml: field 'roles.judge'``)."""
    where = config.given_as(key) or default

    @contextmanager
    def named() -> Iterator[None]:
        try:
            yield
        except TaiwaError as exc:
            raise TaiwaError(f"{where}: {exc}") from None

    return named


def _resolve_roles(
    method: Method[Any], given: Mapping[str, str], config: RunConfig
) -> dict[str, str]:
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
            with _named(config, f"roles.{name}", f"--role {name}")():
                if role.paths and looks_like_path(spec):  # a path that is not there
                    raise TaiwaError(f"no such directory: {shown(spec)}")
                ModelSpec.parse(spec)
        out[name] = spec
    return out


def _resolve_systems(
    method: Method[Any], models: Sequence[str], named: Callable[[], AbstractContextManager[None]]
) -> list[str]:
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
            with named():
                ModelSpec.parse(spec)
    return list(models)


def model_roles(
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


def calling_stages(
    stages: Sequence[Stage[Any]],
    method: Method[Any],
    roles: Mapping[str, str],
    systems: Sequence[str],
) -> int:
    """How many of ``stages`` call a model (:func:`model_roles` of each)."""
    return sum(1 for st in stages if model_roles([st], method, roles, systems))


def plan_calling_stages(plan: Plan) -> int:
    """How many stages of a prepared run call a model (:func:`calling_stages`)."""
    return calling_stages(plan.stages, plan.method, plan.setup.roles, plan.systems)


def plan_models(plan: Plan) -> list[tuple[str, str]]:
    """``(role, SPEC)`` of every model a prepared run will call (:func:`model_roles`)."""
    return model_roles(plan.stages, plan.method, plan.setup.roles, plan.systems)


def _differs(
    config: RunConfig,
    method: Method[Any],
    options: BaseModel,
    roles: Mapping[str, str],
    data_path: Path,
) -> dict[str, Any]:
    """What sets this run apart from the method's defaults (for its directory's name): options
    and roles that are not the defaults, another dataset when the systems are named apart
    from it, the sample limit and generation parameters."""
    out: dict[str, Any] = {}
    defaults = options.model_construct().model_dump(mode="json")
    for key, value in options.model_dump(mode="json").items():
        if key not in defaults or value != defaults[key]:
            out[key] = value
    declared = {r.name: r.default for r in method.roles}
    out |= {k: v for k, v in roles.items() if v != declared.get(k)}
    if method.takes_systems and data_path != method.default_data().resolve():
        out["data"] = data_path.stem
    base = RunConfig(method=config.method)
    for key in ("limit", "temperature", "max_tokens", "seed"):
        if getattr(config, key) != getattr(base, key):
            out[key] = getattr(config, key)
    return out


def prepare(config: RunConfig, method: Method[Any]) -> Plan:
    """Validate the whole run of ``method`` (one-line errors) without calling any model."""
    m = method
    options = parse_options(
        m.name, m.options, config.options, lambda key: config.given_as(f"options.{key}")
    )
    roles = _resolve_roles(m, config.roles, config)
    systems = _resolve_systems(m, config.models, _named(config, "models", "--model"))
    setup = Setup(
        options=options,
        roles=roles,
        params=config.params,
        seed=config.seed,
        systems=tuple(s for s in systems if s),
    )
    if config.baseline is not None and config.baseline not in setup.systems:
        raise TaiwaError(
            f"--baseline {config.baseline}: not a system of this run "
            f"({', '.join(setup.systems) or 'its systems come from the data'})"
        )
    stages = list(m.stages(setup))
    calls = model_roles(stages, m, roles, systems)
    if not calls and (config.cache_dir or config.no_cache):
        raise TaiwaError(
            f"{m.name} with these settings calls no model: --cache-dir/--no-cache do not apply"
        )
    for _, spec in calls:
        if spec != HUMAN:
            ModelSpec.parse(spec).check(config.model_options)
    data_path = (config.data or m.default_data()).resolve()
    callers = calling_stages(stages, m, roles, systems)
    chunk = chunk_size(config.concurrency if calls else None, callers)
    held = HeldResources(stages)
    held.open(data_path)  # e.g. a worker process starting while the dataset is read
    try:
        with collector_paused():  # a sample is a dozen objects: on 10,000 samples the
            # collector's passes cost 40-60 ms before the first request, and find nothing
            samples = SampleSource(lambda: m.load(data_path, options), config.limit, chunk)
        if not len(samples):
            raise TaiwaError(f"{data_path}: no samples to evaluate")
        out = config.out or default_run_dir(
            m.name, systems, data_path, _differs(config, m, options, roles, data_path)
        )
    except BaseException:
        held.close()
        raise
    return Plan(config, m, setup, systems, data_path, samples, stages, out, held)
