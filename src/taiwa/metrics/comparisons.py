"""Paired comparisons of a run's systems, for every metric a method declares (issues 27, 39).

A method declares what it compares (:class:`ComparedMetric`: which stage's rows, which field,
whether higher or lower is better, an item mean or another statistic, which values are
imputed); this module knows no method. :func:`collect` reads each system's per-item values from
the rows, and :func:`build_comparisons` turns them into the ``comparisons`` block of
``summary.json``: every pair of systems (or every system against a baseline) × every declared
metric, with the paired difference over the items both sides measured, its 95 % interval, the
raw p-value, the Holm-corrected p across every test run, the minimum detectable difference for
that test and family, the measured n, the items left out (scored by one side only, or imputed)
and, below the floor of measured items, no test and why (statistics in
:mod:`taiwa.metrics.paired`). Flags of the systems' numbers travel to the rows compared on
them (:func:`taiwa.metrics.flags.flags_on`), and a flag of ``across`` on
``comparisons.KEY`` naming two systems to that pair's row of KEY.
:mod:`taiwa.display.comparison_table` shows the block.

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

from taiwa.metrics.imputed import IMPUTED

if TYPE_CHECKING:
    from taiwa.metrics.paired import PairedDifference, Statistic

Values = Mapping[str, Mapping[str, Mapping[Any, Any]]]
"""system → metric key → item id → value (``None``: no value for that item;
:data:`~taiwa.metrics.imputed.IMPUTED`: a stand-in, left out of the test and counted)."""

Summaries = Mapping[str, Mapping[str, Any]]
"""What flags a system's numbers: ``{"systems": {system: block}, "across": block}`` as in
``summary.json`` (only the blocks' ``flags`` are read)."""


@dataclass(frozen=True)
class ComparedMetric:
    """One metric a method compares across systems, read per item from a stage's rows.

    ``field`` may be dotted (``"wed.total"`` reads ``row["wed"]["total"]``); ``{system}`` in
    it stands for the system (``"acts.{system}"``). ``read(row, system)``, when given, reads the
    value instead of ``field`` (``None``: no value). ``across=True``: the stage runs across
    systems (one row per item for all systems, read from the ``""`` lane). ``kind="mean"``
    compares item means (the value must be a number); ``kind="statistic"`` compares
    ``statistic(records)`` of each system (the value is any per-item record, e.g. an act).
    ``imputed(row, system)``, when given, says that the row's value is a rule's stand-in (a
    forfeit, an unreadable answer scored wrong): the item is left out of the pair and counted.
    ``flagged_by``: the keys of the system's summary block whose flags qualify this metric
    (default: ``key``)."""

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
    imputed: Callable[[Mapping[str, Any], str], bool] | None = None
    flagged_by: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.direction not in ("higher", "lower"):
            raise ValueError(f"{self.key}: direction must be 'higher' or 'lower'")
        if (self.kind == "statistic") != (self.statistic is not None):
            raise ValueError(f"{self.key}: a statistic is given exactly when kind='statistic'")

    @property
    def flag_keys(self) -> tuple[str, ...]:
        """The summary keys whose flags qualify this metric."""
        return self.flagged_by or (self.key,)

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
        """The item's value of ``system`` in ``row``, :data:`~taiwa.metrics.imputed.IMPUTED`
        when :attr:`imputed` says so, or ``None`` (an error row, a missing field, NaN)."""
        v = self.raw(row, system)
        if v is None:
            return None
        if self.imputed is not None and self.imputed(row, system):
            return IMPUTED  # a value is there, but a rule's, not a measurement
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
    summary: Summaries | None = None,
) -> dict[str, Any] | None:
    """The ``comparisons`` block of a run's rows (:func:`collect` then
    :func:`build_comparisons`), or ``None`` when there is nothing to pair (fewer than two
    systems, no metric declared). ``summary``: the run's summary, whose flags travel to the
    rows. The runner and :func:`taiwa.cli.api.compare` both call it."""
    if len(systems) < 2 or not metrics:
        return None
    values = collect(metrics, systems, rows)
    return comparisons_of(values, metrics, baseline=baseline, seed=seed, summary=summary)


def comparisons_of(
    values: Values,
    metrics: Sequence[ComparedMetric],
    *,
    baseline: str | None = None,
    seed: int = 0,
    summary: Summaries | None = None,
) -> dict[str, Any] | None:
    """:func:`build_comparisons` of the metrics some system has a value of (a metric no system
    has was not measured in this run, e.g. a judge's rating without a judge); ``None`` when
    there is none."""
    measured = [m for m in metrics if any(per.get(m.key) for per in values.values())]
    if len(values) < 2 or not measured:
        return None
    return build_comparisons(values, measured, baseline=baseline, seed=seed, summary=summary)


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
    summary: Summaries | None = None,
) -> dict[str, Any]:
    """The ``comparisons`` block: one row per pair × metric (see the module docstring).

    Each row: ``a``, ``b``, ``metric``, ``label``, ``direction``, ``kind``, ``difference``
    (``a − b``: value, ci_low, ci_high, n), ``p``, ``p_holm``, ``significant`` (``p_holm <
    alpha``), ``better`` (the better system when significant, else ``None``), ``mdd`` (for the
    test and the Holm family), ``test``, ``interval``, ``shared`` (measured on both sides),
    ``only_a``, ``only_b``, ``imputed_a``, ``imputed_b``, ``no_test`` (why no test ran, else
    ``None``), ``small_n``, ``flags`` (the flags of either side's number: system, code, on) and
    ``resampled`` (what a bootstrap resamples). The block's ``flags`` hold each such flag's
    text once. Item-mean rows that share the same items are computed together (one set of sign
    flips), each as it would be alone."""
    import numpy as np

    from taiwa.metrics import paired
    from taiwa.metrics.stats import N_RESAMPLES

    b_res = N_RESAMPLES if n_resamples is None else n_resamples
    b_perm = paired.N_PERMUTATIONS if n_permutations is None else n_permutations
    systems = list(values)
    pairs = pairs_of(systems, baseline)
    metrics = list(metrics)
    results: dict[tuple[int, int], PairedDifference] = {}
    groups: dict[tuple[Any, ...], list[tuple[tuple[int, int], Any, paired.PairCounts]]] = {}
    canon: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    arrays: dict[tuple[str, str], tuple[tuple[Any, ...], Any, bool]] = {}

    def item_array(system: str, key: str) -> tuple[tuple[Any, ...], Any, bool]:
        """A system's measured items of a mean metric (ids interned: equal lists are one
        object), their values, and whether it has imputed items; converted once for every
        pair."""
        if (system, key) not in arrays:
            per_item = values[system].get(key, {})
            imputed = any(v is IMPUTED for v in per_item.values())
            kept = {k: v for k, v in per_item.items() if v is not None and v is not IMPUTED}
            x = np.array(list(kept.values()), dtype=float)
            keep = ~np.isnan(x)
            ids = tuple(np.array(list(kept), object)[keep]) if not keep.all() else tuple(kept)
            arrays[system, key] = (canon.setdefault(ids, ids), x[keep], imputed)
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
            (ids_a, xa, imp_a), (ids_b, xb, imp_b) = item_array(a, m.key), item_array(b, m.key)
            if ids_a is ids_b and not imp_a and not imp_b:  # the same items: nothing to align
                ids, d, counts = ids_a, xa - xb, paired.PairCounts(len(ids_a), 0, 0)
            else:
                shared, ya, yb, counts = paired.align(
                    values[a].get(m.key, {}), values[b].get(m.key, {})
                )
                ids = canon.setdefault(tuple(shared), tuple(shared))
                d = np.asarray(ya, dtype=float) - np.asarray(yb, dtype=float)
            groups.setdefault(ids, []).append(((i, j), d, counts))
    for ids, members in groups.items():
        d = np.column_stack([x[1] for x in members]) if ids else np.empty((0, len(members)))
        tests = paired.difference_tests(
            d, [x[2] for x in members], seed=seed, n_permutations=b_perm
        )
        for (cell, *_), t in zip(members, tests, strict=True):
            results[cell] = t
    cells = [(i, j) for i in range(len(pairs)) for j in range(len(metrics))]
    adjusted = paired.holm([results[c].p for c in cells])
    family = sum(1 for p in adjusted if p == p)
    rows = []
    noted: dict[tuple[str, str, str], dict[str, str]] = {}
    for c, p_holm in zip(cells, adjusted, strict=True):
        (a, b), m = pairs[c[0]], metrics[c[1]]
        r = results[c].for_family(max(1, family), alpha)
        diff = r.difference.value
        significant = bool(p_holm < alpha)
        better = None
        if significant and diff != 0:
            better = a if (diff > 0) == (m.direction == "higher") else b
        on: list[dict[str, str]] = []
        for side in (a, b):
            for f in _flags_of(summary, side, m.flag_keys):
                noted.setdefault((side, f["code"], f["on"]), {"system": side, **f})
                on.append({"system": side, "code": f["code"], "on": f["on"]})
        for f in _pair_flags(summary, a, b, m.key):
            noted.setdefault(("across", f["code"], f["text"]), {"system": "across", **f})
            on.append({"system": "across", "code": f["code"], "on": f["on"]})
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
                "flags": on,
                "resampled": _resampled(m),
            }
        )
    return {
        "baseline": baseline,
        "alpha": alpha,
        "correction": "holm",
        "family": family,
        "confidence": 0.95,
        "floor": paired.TEST_FLOOR,
        "power": paired.POWER,
        "n_resamples": b_res,
        "n_permutations": b_perm,
        "seed": seed,
        "rows": rows,
        "flags": list(noted.values()),
    }


def _resampled(m: ComparedMetric) -> str:
    if m.kind != "statistic":
        return "no resampling: sign flips of the per-item differences a − b"
    from taiwa.metrics.paired_statistic import CORRECTED_NOTE, RESAMPLED_NOTE, BiasCorrected

    return CORRECTED_NOTE if isinstance(m.statistic, BiasCorrected) else RESAMPLED_NOTE


def _pair_flags(summary: Summaries | None, a: str, b: str, key: str) -> list[dict[str, str]]:
    """The flags of ``across`` on this pair's comparison of ``key`` (``on``:
    ``comparisons.KEY``, ``systems``: the two systems), e.g. a raw DAE comparison that the
    corrected DAE orders the other way."""
    if summary is None:
        return []
    return [
        {"code": f["code"], "on": f["on"], "text": f["text"]}
        for f in (summary.get("across") or {}).get("flags", ())
        if f.get("on") == f"comparisons.{key}" and set(f.get("systems", ())) == {a, b}
    ]


def _flags_of(summary: Summaries | None, system: str, keys: Sequence[str]) -> list[dict[str, str]]:
    if summary is None:
        return []
    from taiwa.metrics.flags import flags_on

    return flags_on(summary, system, keys)
