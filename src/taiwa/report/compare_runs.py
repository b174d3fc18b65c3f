"""``taiwa compare RUN_DIR...`` and :func:`taiwa.cli.api.compare`: the paired comparisons of
finished runs on the same data (issue 27), e.g. systems run on different days.

Each run's stage files are re-read (``config.json`` names them, ``stage_files``) and its systems'
per-item values collected with the metrics its method declares (``Method.compared``); the
systems of all runs are then paired exactly as one joint run would pair them
(:func:`taiwa.metrics.comparisons.comparisons_of`): the same table, the same numbers, the
same flags (each run's flags travel to the rows of its systems, issue 39). Runs are refused,
with one line, when pairing them would be wrong: another method, other items (dataset content,
``--limit``, number of samples), other method options, helper roles (annotator, judge, tagger)
or prompts. A system in two runs (two seeds of a sampling model) is named ``SYSTEM@RUN_DIR``.
Statistics that depend on the systems judged together (a pairwise win rate) are compared only
within one run. Knows no method by name: the method objects are handed in."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import TaiwaError
from taiwa.harness.method import compared_metrics
from taiwa.harness.options import parse_options
from taiwa.metrics.comparisons import collect, comparisons_of

if TYPE_CHECKING:
    from taiwa.harness.method import Method
    from taiwa.harness.run_reader import RunData

PAIRING = ("options", "roles", "prompt_sha256")
"""``config.json`` fields that must be equal for runs to be paired (beside the items)."""


def _same(runs: Sequence[RunData]) -> None:
    first = runs[0]
    for run in runs[1:]:
        if run.method != first.method:
            raise TaiwaError(
                f"cannot compare {run.path} ({run.method}) with {first.path} ({first.method}): "
                "another method"
            )
        if run.items[1:] != first.items[1:]:
            raise TaiwaError(
                f"cannot pair {run.path} with {first.path}: other items "
                f"({run.items[3]} of {run.items[0]}, --limit {run.items[2]} vs "
                f"{first.items[3]} of {first.items[0]}, --limit {first.items[2]})"
            )
        for key in PAIRING:
            mine, theirs = run.config.get(key) or {}, first.config.get(key) or {}
            differ = [k for k in {**theirs, **mine} if mine.get(k) != theirs.get(k)]
            if differ:
                what = ", ".join(f"{k} {mine.get(k)} vs {theirs.get(k)}" for k in differ[:3])
                raise TaiwaError(f"cannot pair {run.path} with {first.path}: {key} differ ({what})")


def run_labels(runs: Sequence[RunData]) -> list[list[str]]:
    """Each run's systems as named in the comparison (``SYSTEM@RUN_DIR`` when a system is in
    more than one run: the directory's name, or its whole path when two names are the same)."""
    systems = [run_systems(r) for r in runs]
    seen: dict[str, int] = {}
    for names in systems:
        for s in names:
            seen[s] = seen.get(s, 0) + 1
    short = [r.path.name for r in runs]
    where = short if len(set(short)) == len(short) else [str(r.path) for r in runs]
    return [
        [f"{s}@{at}" if seen[s] > 1 else s for s in names]
        for at, names in zip(where, systems, strict=True)
    ]


def run_systems(run: RunData) -> list[str]:
    """The run's systems, in its order."""
    return list(run.config.get("systems") or run.summary["systems"])


def _rows_of(run: RunData) -> Any:
    files: Mapping[str, str] = run.config.get("stage_files") or {}

    def rows(stage: str, system: str) -> Iterator[Mapping[str, Any]]:
        name = files.get(stage)
        if name is None or not run.has(name):
            return iter(())
        return (r for r in run.rows(name) if "error" not in r and r.get("system", "") == system)

    return rows


def _carry_flags(run: RunData, names: Sequence[str], into: dict[str, Any]) -> None:
    """The flags of ``run``'s summary, its systems named as in the comparison (``names``), so
    that they travel to the rows as in the run's own block."""
    blocks = run.summary.get("systems") or {}
    rename = dict(zip(run_systems(run), names, strict=True))
    for system, label in rename.items():
        into["systems"][label] = {"flags": list((blocks.get(system) or {}).get("flags", ()))}
    for f in (run.summary.get("across") or {}).get("flags", ()):
        if f.get("systems"):
            named = [rename[s] for s in f["systems"] if s in rename]
            into["across"]["flags"].append({**f, "systems": named})


def compare_runs(
    run_dirs: Sequence[Path],
    methods: Sequence[Method[Any]],
    *,
    baseline: str | None = None,
) -> dict[str, Any]:
    """The ``comparisons`` block (as in ``summary.json``) of the systems of ``run_dirs``
    (finished runs of one method on the same items), paired as one joint run would pair them.
    Raises :class:`TaiwaError` (one line) when the runs cannot be paired."""
    from taiwa.harness.run_reader import load_run

    if not run_dirs:
        raise TaiwaError("compare: give at least one run directory")
    runs = [load_run(Path(p)) for p in run_dirs]
    _same(runs)
    for run in runs:
        if "stage_files" not in run.config:
            raise TaiwaError(
                f"{run.path}/config.json: no 'stage_files' (written by an older taiwa): "
                "rerun it to compare"
            )
    known = {m.name: m for m in methods}
    if runs[0].method not in known:
        raise TaiwaError(f"unknown method {runs[0].method!r}: expected one of {', '.join(known)}")
    method = known[runs[0].method]
    options = parse_options(method.name, method.options, dict(runs[0].config.get("options", {})))
    metrics = compared_metrics(method, options)
    if len(runs) > 1:
        metrics = [m for m in metrics if not m.relative]
    labels = run_labels(runs)
    values: dict[str, dict[str, dict[Any, Any]]] = {}
    flagged: dict[str, Any] = {"systems": {}, "across": {"flags": []}}
    for run, names in zip(runs, labels, strict=True):
        _carry_flags(run, names, flagged)
        systems = run_systems(run)
        try:
            got = collect(metrics, systems, _rows_of(run))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # a damaged stage file (a row without its id, a value of the wrong type): one line
            files = ", ".join(str(f) for f in run.config.get("stage_files", [])) or "stage files"
            raise TaiwaError(
                f"{run.path}: {files[:300]}: rows not as taiwa wrote them "
                f"({type(exc).__name__}: {str(exc)[:120]})"
            ) from None
        values.update({label: got[s] for s, label in zip(systems, names, strict=True)})
    every = [x for names in labels for x in names]
    if len(every) < 2:
        raise TaiwaError(f"compare: {len(every)} system in these runs, nothing to pair")
    if baseline is not None and baseline not in every:
        raise TaiwaError(f"--baseline {baseline}: not a system of these runs ({', '.join(every)})")
    seed = int((runs[0].config.get("seeds") or {}).get("bootstrap", 0))
    block = comparisons_of(values, metrics, baseline=baseline, seed=seed, summary=flagged)
    if block is None:
        raise TaiwaError(f"{method.name}: no per-item metric to compare in these runs")
    return block
