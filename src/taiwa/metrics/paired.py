"""Is system A better than system B on the same items? Paired differences with CIs, p-values
and the minimum detectable difference (issues 27 and 39; the question seed 002 §5.1 asks of
paired batches and seed 004 §3.2 of how many items make a ranking stable).

Two systems scored on the same items are compared item by item, only on items both measured
(:func:`taiwa.metrics.pairing.align` counts the items one side lacks and the imputed ones),
and not at all below :data:`~taiwa.metrics.pairing.TEST_FLOOR` items; the difference's
uncertainty comes from the spread of the per-item differences, which is much smaller than
either system's own CI when the items vary more than the systems do.

- Item means (:func:`paired_difference`, :func:`difference_tests` for many at once): the mean
  paired difference ``mean(a − b)``; a two-sided p-value from the paired sign-flip permutation
  test (exact up to 16 items; :mod:`taiwa.metrics.sign_flip`); the 95 % interval that inverts
  that test, or for differences of −1, 0 and 1 (0/1 items) Tango's score interval
  (:mod:`taiwa.metrics.paired_binary`), either one holding 0 exactly when p ≥ 0.05; and the
  minimum detectable difference for the test in use (:mod:`taiwa.metrics.detectable`).
- Any other statistic (DAE, DAMI, a win rate): :func:`paired_statistic_difference`
  (:mod:`taiwa.metrics.paired_statistic`).
- :func:`holm` corrects a family of p-values (Holm's step-down, family-wise error ≤ α).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from taiwa.metrics.detectable import ALPHA, POWER, minimum_detectable
from taiwa.metrics.paired_binary import discordant_counts, is_ternary, mcnemar_p, tango_interval
from taiwa.metrics.paired_statistic import (
    RESAMPLED_NOTE,
    ActEntropy,
    ActMutualInformation,
    BiasCorrected,
    ResampledStatistic,
    Statistic,
    paired_statistic_difference,
)
from taiwa.metrics.pairing import (
    TEST_FLOOR,
    PairCounts,
    PairedDifference,
    align,
    untested,
)
from taiwa.metrics.sign_flip import EXACT_MAX_N, N_PERMUTATIONS, flip_interval, sign_flips
from taiwa.metrics.stats import Estimate

__all__ = [
    "ALPHA",
    "EXACT_MAX_N",
    "N_PERMUTATIONS",
    "POWER",
    "RESAMPLED_NOTE",
    "TEST_FLOOR",
    "ActEntropy",
    "ActMutualInformation",
    "BiasCorrected",
    "PairCounts",
    "PairedDifference",
    "ResampledStatistic",
    "Statistic",
    "align",
    "difference_tests",
    "holm",
    "minimum_detectable",
    "paired_difference",
    "paired_statistic_difference",
]

FLIP_INTERVAL = "inverted sign-flip test"
SCORE_INTERVAL = "Tango score interval (−1/0/1 differences), widened to 0 when p ≥ α"


def difference_tests(
    d: np.ndarray,
    counts: Sequence[PairCounts] | None = None,
    *,
    seed: int = 0,
    n_permutations: int = N_PERMUTATIONS,
    confidence: float = 0.95,
    family: int = 1,
) -> list[PairedDifference]:
    """:func:`paired_difference` for each column of ``d`` (n shared measured items × m
    comparisons of per-item differences ``a − b``), with one set of sign flips for all columns:
    each column's result is what it would get alone. ``counts`` (one per column) say how many
    items each side scored alone or had imputed (default: none); ``family``: the Holm family
    the MDD is for."""
    d = np.asarray(d, dtype=float)
    if d.ndim != 2:
        raise ValueError(f"difference_tests: d must be items × comparisons, got shape {d.shape}")
    n, m = d.shape
    counts = list(counts) if counts is not None else [PairCounts(n, 0, 0)] * m
    ternary = is_ternary(d) if n else np.zeros(m, dtype=bool)
    if n < TEST_FLOOR:
        means = d.mean(axis=0) if n else np.full(m, np.nan)
        return [
            untested(float(means[j]), n, counts[j], "ternary" if ternary[j] else "mean")
            for j in range(m)
        ]
    means = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1)
    flips = sign_flips(d, n_permutations, seed)
    ci = flip_interval(flips, means, confidence)
    how = [FLIP_INTERVAL] * m
    p = flips.p.copy()
    if ternary.any():
        cols = np.flatnonzero(ternary)
        b, c = discordant_counts(d[:, cols])
        p[cols] = mcnemar_p(b, c)  # the sign-flip p itself, exact at any n
        score = tango_interval(b, c, n, confidence)
        alpha = 1 - confidence
        for j, (lo, hi) in zip(cols.tolist(), score.tolist(), strict=True):
            if p[j] >= alpha:
                lo, hi = min(lo, 0.0), max(hi, 0.0)
            elif lo <= 0 <= hi:  # the exact test rejects, the score test does not (never seen
                # in simulation): the p decides, the end nearest 0 moves just past it
                if means[j] > 0:
                    lo = float(np.nextafter(0.0, 1.0))
                else:
                    hi = float(np.nextafter(0.0, -1.0))
            ci[j] = (lo, hi)
            how[j] = SCORE_INTERVAL
    discordant = (d != 0).sum(axis=0)
    exact = "sign-flip, exact: McNemar's exact test (−1/0/1 differences)"
    return [
        PairedDifference(
            Estimate(float(means[j]), float(ci[j, 0]), float(ci[j, 1]), n),
            float(p[j]),
            exact if ternary[j] else flips.test,
            float("nan"),
            float(sd[j]),
            counts[j],
            how[j],
            "ternary" if ternary[j] else "mean",
            int(discordant[j]),
        ).for_family(family)
        for j in range(m)
    ]


def paired_difference(
    a: Mapping[Any, float | None] | Sequence[float | None],
    b: Mapping[Any, float | None] | Sequence[float | None],
    *,
    seed: int = 0,
    n_permutations: int = N_PERMUTATIONS,
    confidence: float = 0.95,
    family: int = 1,
) -> PairedDifference:
    """Mean of ``a − b`` over the items both measured (see :func:`align`), with its interval,
    the two-sided sign-flip p-value (exact up to :data:`EXACT_MAX_N` items, else
    ``n_permutations`` random patterns) and the minimum detectable difference for a Holm family
    of ``family`` tests (see the module docstring)."""
    _, va, vb, counts = align(a, b)
    d = (np.asarray(va, dtype=float) - np.asarray(vb, dtype=float)).reshape(-1, 1)
    return difference_tests(
        d,
        [counts],
        seed=seed,
        n_permutations=n_permutations,
        confidence=confidence,
        family=family,
    )[0]


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order: sorted ascending, the i-th
    smallest (1-based) of m is multiplied by ``m − i + 1``, kept non-decreasing, capped at 1.
    Rejecting where the adjusted p < α keeps the family-wise error rate ≤ α. NaN p-values
    (no test) are left NaN and are not counted in m."""
    arr = np.asarray(p, dtype=float)
    out = np.full(arr.shape, np.nan)
    finite = np.flatnonzero(np.isfinite(arr))
    m = finite.size
    if m == 0:
        return [float("nan")] * len(arr)
    order = finite[np.argsort(arr[finite], kind="stable")]
    scaled = arr[order] * (m - np.arange(m))
    out[order] = np.minimum(1.0, np.maximum.accumulate(scaled))
    return [float(x) for x in out]
