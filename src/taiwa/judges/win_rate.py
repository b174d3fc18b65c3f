"""A system's pairwise win rate as a statistic over items, for paired comparisons (issue 27;
the pairwise judge of MT-bench-style evaluation, seed 001 §4).

Each item of a pairwise-judge row holds the verdict of every pair of systems; a system's
*points* on the item are 1 per pair won, 0.5 per tie and 0 per pair lost, over the pairs the
judge decided (as the method's win rate: pairs decided by forfeit, one answer missing, and
excluded pairs do not count). The win rate is the sum of points over the sum of
pairs judged, pooled over items: not an item mean (items may have different numbers of pairs),
so comparisons resample items and recompute it on each side (:class:`WinRate`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def points_of(row: Mapping[str, Any], system: str) -> tuple[float, int] | None:
    """``(points, pairs)`` of ``system`` in one pairwise-judge row, over its pairs with
    ``basis`` "judged" (``None``: in no judged pair)."""
    points, pairs = 0.0, 0
    for p in row.get("pairs", ()):
        if system not in (p.get("a"), p.get("b")) or p.get("basis", "judged") != "judged":
            continue
        pairs += 1
        points += 1.0 if p.get("winner") == system else 0.5 if p.get("outcome") == "tie" else 0.0
    return (points, pairs) if pairs else None


def judged_points(row: Mapping[str, Any], system: str) -> Any:
    """:func:`points_of`, or :data:`~taiwa.metrics.imputed.IMPUTED` when every pair of
    ``system`` on the item was decided by forfeit (a side without an answer): a comparison
    leaves such an item out and counts it, never as a win or a loss (issue 39)."""
    from taiwa.metrics.imputed import IMPUTED

    points = points_of(row, system)
    if points is not None:
        return points
    mine = [p for p in row.get("pairs", ()) if system in (p.get("a"), p.get("b"))]
    return IMPUTED if any(p.get("basis") == "missing" for p in mine) else None


class WinRate:
    """Pooled win rate of ``(points, pairs)`` records: Σ points / Σ pairs, vectorised over
    resamples (``prepare`` / ``resampled``: a ``ResampledStatistic`` of
    :mod:`taiwa.metrics.paired`)."""

    def __call__(self, records: Sequence[Any]) -> float:
        return float(self.resampled(self.prepare(records), np.arange(len(records))[None])[0])

    def prepare(self, records: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        arr = np.asarray([(float(p), float(n)) for p, n in records], dtype=float).reshape(-1, 2)
        return arr[:, 0], arr[:, 1]

    def resampled(self, prepared: tuple[np.ndarray, np.ndarray], idx: np.ndarray) -> np.ndarray:
        points, pairs = prepared
        total = pairs[idx].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, points[idx].sum(axis=1) / total, np.nan)
