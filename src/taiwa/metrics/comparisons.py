"""Paired comparisons of a run's systems, for every metric a method declares (issue 27).

A method declares what it compares (:class:`ComparedMetric`: which stage's rows, which field,
whether higher or lower is better, an item mean or another statistic); this module knows no
method. :func:`collect` reads each system's per-item values from the rows, and
:func:`build_comparisons` turns them into the ``comparisons`` block of ``summary.json``: every
pair of systems (or every system against a baseline) × every declared metric, with the paired
difference, its 95 % bootstrap CI, the raw p-value, the Holm-corrected p across every pair and
metric shown, the minimum detectable difference, the shared n and the items left out
(statistics in :mod:`taiwa.metrics.paired`). :mod:`taiwa.display.comparison_table` shows the block.

Importing this module loads no numpy (method packages declare their metrics at import time);
:func:`build_comparisons` imports the statistics when it runs. A declaration holding a
statistic object (e.g. ``ActEntropy``) is best built inside the method's aggregate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from taiwa.metrics.paired import PairedDifference, Statistic

Values = Mapping[str, Mapping[str, Mapping[Any, Any]]]
"""system → metric key → item id → value (``None``: no value for that item)."""


@dataclass(frozen=True)
class ComparedMetric:
    """One metric a method compares across systems, read per item from a stage's rows.

    ``field`` may be dotted (``"wed.total"`` reads ``row["wed"]["total"]``); ``{system}`` in
    it stands for the system (``"acts.{system}"``). ``read(row, system)``, when given, reads the
    value instead of ``field`` (``None``: no value). ``across=True``: the stage runs across
    systems (one row per item for all systems, read from the ``""`` lane). ``kind="mean"``
    compares item means (the value must be a number); ``kind="statistic"`` compares
    ``statistic(records)`` of each system (the value is any per-item record, e.g. an act)."""

    key: str
    label: str
    direction: Literal["higher", "lower"]
    stage: str
    field: str
    kind: Literal["mean", "statistic"] = "mean"
    statistic: Statistic | None = None
    read: Callable[[Mapping[str, Any], str], Any] | None = None
    across: bool = False
    relative: bool = False

    def __post_init__(self) -> None:
        if self.direction not in ("higher", "lower"):
            raise ValueError(f"{self.key}: direction must be 'higher' or 'lower'")
        if (self.kind == "statistic") != (self.statistic is not None):
            raise ValueError(f"{self.key}: a statistic is given exactly when kind='statistic'")

    def raw(self, row: Mapping[str, Any], system: str = "") -> Any:
        """The item's value of ``system`` in ``row`` as written (``None``: an error row, no
        such field); :meth:`value` keeps it only when it is of the metric's kind."""
        if "error" in row:
            return None
        if self.read is not None:
            return self.read(row, system)
        v: Any = row
        for part in self.field.replace("{system}", system).split("."):
            if not isinstance(v, Mapping) or part not in v:
                return None
            v = v[part]
        return v

    def value(self, row: Mapping[str, Any], system: str = "") -> Any:
        """The item's value of ``system`` in ``row``, or ``None`` (an error row, a missing
        field, NaN)."""
        v = self.raw(row, system)
        if v is None:
            return None
        if self.kind == "mean":
            if isinstance(v, bool):
                return float(v)
            if not isinstance(v, int | float) or math.isnan(v):
                return None
        return v


def collect(
    metrics: Sequence[ComparedMetric],
    systems: Sequence[str],
    rows: Callable[[str, str], Iterable[Mapping[str, Any]]],
) -> dict[str, dict[str, dict[Any, Any]]]:
    """Each system's per-item values of every metric: ``rows(stage, system)`` gives a stage's
    rows of one system (each with ``id``; ``system=""`` for a stage across systems), read once
    per stage and system."""
    out: dict[str, dict[str, dict[Any, Any]]] = {s: {m.key: {} for m in metrics} for s in systems}
    stages: dict[tuple[str, bool], list[ComparedMetric]] = {}
    for m in metrics:
        stages.setdefault((m.stage, m.across), []).append(m)
    for (stage, across), declared in stages.items():
        for lane in [""] if across else systems:
            for row in rows(stage, lane):
                for system in systems if across else [lane]:
                    for m in declared:
                        v = m.value(row, system)
                        if v is not None:
                            out[system][m.key][row["id"]] = v
    return out


def compare_rows(
    metrics: Sequence[ComparedMetric],
    systems: Sequence[str],
    rows: Callable[[str, str], Iterable[Mapping[str, Any]]],
    *,
    baseline: str | None = None,
    seed: int = 0,
) -> dict[str, Any] | None:
    """The ``comparisons`` block of a run's rows (:func:`collect` then
    :func:`build_comparisons`), or ``None`` when there is nothing to pair (fewer than two
    systems, no metric declared). The runner and :func:`taiwa.cli.api.compare` both call it."""
    if len(systems) < 2 or not metrics:
        return None
    return comparisons_of(collect(metrics, systems, rows), metrics, baseline=baseline, seed=seed)


def comparisons_of(
    values: Values,
    metrics: Sequence[ComparedMetric],
    *,
    baseline: str | None = None,
    seed: int = 0,
) -> dict[str, Any] | None:
    """:func:`build_comparisons` of the metrics some system has a value of (a metric no system
    has was not measured in this run, e.g. a judge's rating without a judge); ``None`` when
    there is none."""
    measured = [m for m in metrics if any(per.get(m.key) for per in values.values())]
    if len(values) < 2 or not measured:
        return None
    return build_comparisons(values, measured, baseline=baseline, seed=seed)


def pairs_of(systems: Sequence[str], baseline: str | None = None) -> list[tuple[str, str]]:
    """Every pair of systems in run order, or each system against ``baseline`` (``a − b`` with
    ``b`` the baseline)."""
    if baseline is None:
        return list(combinations(systems, 2))
    if baseline not in systems:
        raise ValueError(f"--baseline {baseline}: not a system of this run ({', '.join(systems)})")
    return [(s, baseline) for s in systems if s != baseline]


def build_comparisons(
    values: Values,
    metrics: Sequence[ComparedMetric],
    *,
    baseline: str | None = None,
    seed: int = 0,
    n_resamples: int | None = None,
    n_permutations: int | None = None,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """The ``comparisons`` block: one row per pair × metric (see the module docstring).

    Each row: ``a``, ``b``, ``metric``, ``label``, ``direction``, ``kind``, ``difference``
    (``a − b``: value, ci_low, ci_high, n), ``p``, ``p_holm``, ``significant`` (``p_holm <
    alpha``), ``better`` (the better system when significant, else ``None``), ``mdd``,
    ``test``, ``shared``, ``only_a``, ``only_b`` and ``resampled`` (what the bootstrap
    resamples). Item-mean rows that share the same items are computed together (one set of
    resamples), each as it would be alone."""
    import numpy as np

    from taiwa.metrics import paired
    from taiwa.metrics.resample_memo import recall
    from taiwa.metrics.stats import N_RESAMPLES

    b_res = N_RESAMPLES if n_resamples is None else n_resamples
    b_perm = paired.N_PERMUTATIONS if n_permutations is None else n_permutations
    systems = list(values)
    pairs = pairs_of(systems, baseline)
    metrics = list(metrics)
    results: dict[tuple[int, int], PairedDifference] = {}
    groups: dict[tuple[Any, ...], list[tuple[tuple[int, int], Any, paired.PairCounts, Any]]] = {}
    canon: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    arrays: dict[tuple[str, str], tuple[tuple[Any, ...], Any, Any]] = {}

    def item_array(system: str, key: str) -> tuple[tuple[Any, ...], Any, Any]:
        """A system's usable items of a mean metric (ids interned: equal lists are one
        object), their values and their resampled means if the aggregate's ``bootstrap_ci``
        drew them already (:mod:`taiwa.metrics.resample_memo`), converted once for every pair."""
        if (system, key) not in arrays:
            per_item = values[system].get(key, {})
            x = np.array([np.nan if v is None else v for v in per_item.values()], dtype=float)
            keep = ~np.isnan(x)
            ids = tuple(per_item) if keep.all() else tuple(np.array(list(per_item), object)[keep])
            x = x[keep]
            arrays[system, key] = (canon.setdefault(ids, ids), x, recall(x, b_res, seed))
        return arrays[system, key]

    for i, (a, b) in enumerate(pairs):
        for j, m in enumerate(metrics):
            if m.kind == "statistic" and m.statistic is not None:
                results[i, j] = paired.paired_statistic_difference(
                    values[a].get(m.key, {}),
                    values[b].get(m.key, {}),
                    m.statistic,
                    seed=seed,
                    n_resamples=b_res,
                )
                continue
            (ids_a, xa, ra), (ids_b, xb, rb) = item_array(a, m.key), item_array(b, m.key)
            known = None
            if ids_a is ids_b:  # the same items in the same order: nothing to align
                ids, d, counts = ids_a, xa - xb, paired.PairCounts(len(ids_a), 0, 0)
                if ra is not None and rb is not None:
                    known = ra - rb  # the same resamples: mean(a − b) = mean(a) − mean(b)
            else:
                shared, ya, yb, counts = paired.align(
                    dict(zip(ids_a, xa.tolist(), strict=True)),
                    dict(zip(ids_b, xb.tolist(), strict=True)),
                )
                ids, d = tuple(shared), np.asarray(ya, dtype=float) - np.asarray(yb, dtype=float)
            groups.setdefault(ids, []).append(((i, j), d, counts, known))
    for ids, members in groups.items():
        d = np.column_stack([x[1] for x in members]) if ids else np.empty((0, len(members)))
        tests = paired.difference_tests(
            d,
            [x[2] for x in members],
            seed=seed,
            n_resamples=b_res,
            n_permutations=b_perm,
            known=[x[3] for x in members],
        )
        for (cell, *_), t in zip(members, tests, strict=True):
            results[cell] = t
    cells = [(i, j) for i in range(len(pairs)) for j in range(len(metrics))]
    adjusted = paired.holm([results[c].p for c in cells])
    rows = []
    for c, p_holm in zip(cells, adjusted, strict=True):
        (a, b), m, r = pairs[c[0]], metrics[c[1]], results[c]
        diff = r.difference.value
        significant = bool(p_holm < alpha)
        better = None
        if significant and diff != 0:
            better = a if (diff > 0) == (m.direction == "higher") else b
        rows.append(
            {
                "a": a,
                "b": b,
                "metric": m.key,
                "label": m.label,
                "direction": m.direction,
                "kind": m.kind,
                **r.as_dict(),
                "p_holm": p_holm,
                "significant": significant,
                "better": better,
                "resampled": paired.RESAMPLED_NOTE
                if m.kind == "statistic"
                else "items resampled with replacement; per-item differences a − b averaged",
            }
        )
    return {
        "baseline": baseline,
        "alpha": alpha,
        "correction": "holm",
        "family": sum(1 for p in adjusted if p == p),
        "confidence": 0.95,
        "n_resamples": b_res,
        "n_permutations": b_perm,
        "seed": seed,
        "rows": rows,
    }
