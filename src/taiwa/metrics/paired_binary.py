"""Paired differences that take only the values −1, 0 and 1 (issue 39): two systems scored 0/1
on the same items (seed 004's accuracy, a correct / wrong per reply), or any per-item
difference of one step.

Such a difference is a three-valued variable: ``+1`` with probability ``p₊`` (A right, B wrong),
``−1`` with ``p₋`` and 0 otherwise; the mean difference is ``δ = p₊ − p₋`` and the share of
items on which the systems differ (the discordant share) is ``ψ = p₊ + p₋``. The sign-flip test
of :mod:`taiwa.metrics.sign_flip` is then exactly McNemar's exact test: the zeros do not move
the sum, and the ``b`` items for A and ``c`` for B are a binomial split of ``b + c`` under the
null.

Inverting that test for δ ≠ 0 (the item-mean interval) treats the discordant share as known
and covers the true δ only 84–92 % of the time at 10 items when few items differ (simulated,
docs/statistics.md). :func:`tango_interval` is Tango's (1998) score interval for a difference of
paired proportions, which estimates the discordant share under each δ it tests; taiwa prints it
widened to 0 when the exact test does not reject (so that interval and p agree).
"""

from __future__ import annotations

from statistics import NormalDist

import numpy as np

_BISECTIONS = 60
"""Halvings of [−1, 1]: the ends are found to 2⁻⁶⁰, far below what is printed."""


def is_ternary(d: np.ndarray) -> np.ndarray:
    """``(m,)``: whether every difference of each column of ``d`` (n × m) is −1, 0 or 1."""
    return np.asarray(np.isin(d, (-1.0, 0.0, 1.0)).all(axis=0))


def _score(b: np.ndarray, c: np.ndarray, n: int, delta: np.ndarray) -> np.ndarray:
    """Tango's score statistic of ``H0: p₊ − p₋ = delta`` from ``b`` items +1 and ``c`` −1 of
    ``n``: ``(b − c − nδ) / √(n (2 p̃₋ + δ (1 − δ)))`` with ``p̃₋`` the restricted maximum
    likelihood estimate of ``p₋`` under the null (the root of a quadratic)."""
    qa = 2.0 * n
    qb = -b - c + (2.0 * n - b + c) * delta
    qc = -c * delta * (1.0 - delta)
    root = (-qb + np.sqrt(np.maximum(qb * qb - 4 * qa * qc, 0.0))) / (2 * qa)
    var = n * (2 * root + delta * (1 - delta))
    num = b - c - n * delta
    with np.errstate(divide="ignore", invalid="ignore"):
        z = num / np.sqrt(var)
    # where the variance vanishes (δ = ±1 with all items there) the statistic is 0 or ±inf
    edge = np.where(num == 0, 0.0, np.copysign(np.inf, num))
    return np.asarray(np.where(var > 0, z, edge))


def tango_interval(b: np.ndarray, c: np.ndarray, n: int, confidence: float = 0.95) -> np.ndarray:
    """``(m, 2)``: Tango's score interval for ``δ = p₊ − p₋`` of each column (``b`` items +1,
    ``c`` items −1 of ``n``): the δ whose score statistic lies within ``±z(1 − α/2)``. The
    statistic falls as δ rises, so each end is found by bisection (vectorised over columns)."""
    b = np.asarray(b, dtype=float)
    c = np.asarray(c, dtype=float)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    est = (b - c) / n
    lo_a, lo_b = np.full(b.shape, -1.0), est.copy()  # the lower end lies in [−1, est]
    hi_a, hi_b = est.copy(), np.full(b.shape, 1.0)  # the upper end in [est, 1]
    for _ in range(_BISECTIONS):
        mid = (lo_a + lo_b) / 2
        rejected = _score(b, c, n, mid) > z  # δ too small to be believed
        lo_a, lo_b = np.where(rejected, mid, lo_a), np.where(rejected, lo_b, mid)
        mid = (hi_a + hi_b) / 2
        rejected = _score(b, c, n, mid) < -z  # δ too large
        hi_a, hi_b = np.where(rejected, hi_a, mid), np.where(rejected, mid, hi_b)
    return np.column_stack([lo_b, hi_a])


def mcnemar_p(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """McNemar's exact two-sided p of each column (``b`` items +1, ``c`` items −1): the share
    of the ``2^(b+c)`` sign patterns of the discordant items at least as far from an even
    split, ``min(1, 2 · P(X ≥ max(b, c)))`` for ``X ~ Binomial(b + c, 1/2)`` (1 when b = c).
    This is the sign-flip p of the same differences, exact at any n."""
    from taiwa.metrics.exact_tail import binom_sf

    out = np.ones(len(b))
    for j, (x, y) in enumerate(
        zip(np.asarray(b, int).tolist(), np.asarray(c, int).tolist(), strict=True)
    ):
        if x != y:
            out[j] = min(1.0, 2 * binom_sf(max(x, y) - 1, x + y, 0.5))
    return out


def discordant_counts(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(b, c)``: per column of a three-valued ``d``, the items at +1 and at −1."""
    return (d > 0).sum(axis=0).astype(float), (d < 0).sum(axis=0).astype(float)
