"""``taiwa compare RUN_DIR...`` and :func:`taiwa.cli.api.compare`: the paired comparisons of
finished runs on the same data (issue 27), e.g. systems run on different days.

Each run is read by :func:`taiwa.harness.run_reader.load_run` (every file checked) and its
systems' per-item values collected from its stage files with the metrics its method declares
(``Method.compared``; a compared value that is no number is an error naming its line); the
systems of all runs are then paired exactly as one joint run would pair them
(:func:`taiwa.metrics.comparisons.comparisons_of`): the same table, the same numbers, the
same flags (each run's flags travel to the rows of its systems, issue 39). Runs are refused,
with one line, when pairing them would be wrong: another method, other items (dataset content,
``--limit``, number of samples), other method options, helper roles (annotator, judge, tagger)
or prompts. A system in two runs (two seeds of a sampling model) is named ``SYSTEM@RUN_DIR``.
Statistics that depend on the systems judged together (a pairwise win rate) are compared only
within one run. Knows no method by name: the method objects are handed in."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io import shown_name
from taiwa.harness.method import compared_metrics
from taiwa.harness.options import parse_options
from taiwa.harness.summary_schema import shown
from taiwa.metrics.comparisons import ComparedMetric, collect, comparisons_of

if TYPE_CHECKING:
    from taiwa.harness.method import Method
    from taiwa.harness.run_reader import RunData, StageRow

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
            from taiwa.report.grouping import items_text

            raise TaiwaError(
                f"cannot pair {run.path} with {first.path}: other items "
                f"({items_text(run)} vs {items_text(first)})"
            )
        for key in PAIRING:
            mine: dict[str, Any] = getattr(run.config, key)
            theirs: dict[str, Any] = getattr(first.config, key)
            differ = [k for k in {**theirs, **mine} if mine.get(k) != theirs.get(k)]
            if differ:
                what = ", ".join(
                    f"{k} {shown(mine.get(k))} vs {shown(theirs.get(k))}" for k in differ[:3]
                )
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
    return run.systems


def _rows_of(
    run: RunData, metrics: Sequence[ComparedMetric], systems: Sequence[str]
) -> Callable[[str, str], Iterator[Mapping[str, Any]]]:
    """``rows(stage, system)`` for :func:`~taiwa.metrics.comparisons.collect`: the rows that
    did not fail, each compared value checked first (:func:`_check_values`)."""

    def rows(stage: str, system: str) -> Iterator[Mapping[str, Any]]:
        declared = [m for m in metrics if m.stage == stage and m.kind == "mean"]
        first: dict[str, tuple[str, int]] = {}
        for row in run.stage_rows(stage, system, ok=True):
            for m in declared:
                for s in systems if m.across else [system]:
                    _check_value(row, m, s, first)
            yield row.values

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


def _check_value(
    row: StageRow, m: ComparedMetric, system: str, first: dict[str, tuple[str, int]]
) -> None:
    """A compared mean's value in ``row``: a number (or true/false where the file holds only
    those), or none; anything else, or a number where earlier rows held true/false (or the
    reverse), is an :class:`InputError` naming the file, the line and the field, instead of an
    item dropped or taken without a word."""
    v = m.raw(row.values, system)
    if v is None:
        return
    name = m.field.replace("{system}", system)
    if isinstance(v, bool):
        kind = "true/false"
    elif isinstance(v, int | float):
        kind = "a number"
    else:
        expected = f"a number ({m.label}, compared across systems)"
        raise InputError(row.file, row.line, name, expected, shown(v))
    seen, line = first.setdefault(m.key, (kind, row.line))
    if seen != kind:
        got = f"{shown(v)}, where line {line} holds {seen}"
        raise InputError(row.file, row.line, name, f"{seen} like the other rows", got)


def _options(run: RunData, method: Method[Any]) -> Any:
    """The run's method options validated by the method's model; an error names
    ``config.json`` and the option."""
    from taiwa.harness.run_reader import CONFIG

    where = f"{run.path / CONFIG}: field 'options.{{}}'"
    options = dict(run.config.options)
    return parse_options(method.name, method.options, options, where.format)


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
        if run.config.stage_files is None:
            raise TaiwaError(
                f"{run.path}/config.json: no 'stage_files' (written by an older taiwa): "
                "rerun it to compare"
            )
    known = {m.name: m for m in methods}
    if runs[0].method not in known:
        raise TaiwaError(f"unknown method {runs[0].method!r}: expected one of {', '.join(known)}")
    method = known[runs[0].method]
    metrics = compared_metrics(method, _options(runs[0], method))
    if len(runs) > 1:
        metrics = [m for m in metrics if not m.relative]
    labels = run_labels(runs)
    every = [x for names in labels for x in names]
    if baseline is not None and baseline not in every:
        raise TaiwaError(
            f"--baseline {shown_name(baseline)}: not a system of these runs ({', '.join(every)})"
        )
    values: dict[str, dict[str, dict[Any, Any]]] = {}
    flagged: dict[str, Any] = {"systems": {}, "across": {"flags": []}}
    for run, names in zip(runs, labels, strict=True):
        _carry_flags(run, names, flagged)
        systems = run_systems(run)
        try:
            got = collect(metrics, systems, _rows_of(run, metrics, systems))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # a value a method's reader cannot take (a row of the wrong shape): one line
            files = ", ".join((run.config.stage_files or {}).values()) or "stage files"
            raise TaiwaError(
                f"{run.path}: {files[:300]}: rows not as taiwa wrote them "
                f"({type(exc).__name__}: {str(exc)[:120]})"
            ) from None
        values.update({label: got[s] for s, label in zip(systems, names, strict=True)})
    if len(every) < 2:
        raise TaiwaError(f"compare: {len(every)} system in these runs, nothing to pair")
    block = comparisons_of(
        values, metrics, baseline=baseline, seed=runs[0].config.bootstrap_seed, summary=flagged
    )
    if block is None:
        raise TaiwaError(f"{method.name}: no per-item metric to compare in these runs")
    return block
