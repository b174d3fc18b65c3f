"""Two tail probabilities in closed form, from :mod:`math` alone: the binomial and the
chi-square survival functions that the answer-distribution flags test with (seed 004's
multiple choice; issue 24). They equal ``scipy.stats.binom.sf`` and ``scipy.stats.chi2.sf``
(the tests compare them), but importing ``scipy.stats`` costs about half a second of every
intent run that a user waits for (issue 29)."""

from __future__ import annotations

import math


def binom_sf(k: int, n: int, p: float) -> float:
    """``P(X > k)`` for ``X ~ Binomial(n, p)``: the exact sum of the upper terms, in log space
    (no overflow at any n)."""
    if k < 0 or p >= 1:
        return 1.0 if k < n else 0.0
    if k >= n or p <= 0:
        return 0.0
    lp, lq, top = math.log(p), math.log1p(-p), math.lgamma(n + 1)
    logs = [
        top - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
        for i in range(k + 1, n + 1)
    ]
    peak = max(logs)
    return min(1.0, math.exp(peak) * math.fsum(math.exp(v - peak) for v in logs))


def chi2_sf(x: float, df: int) -> float:
    """``P(X > x)`` for ``X`` chi-square with ``df`` (a whole number >= 1) degrees of freedom:
    the regularised upper incomplete gamma ``Q(df/2, x/2)``, summed up from
    ``Q(1, y) = e^-y`` (even ``df``) or ``Q(1/2, y) = erfc(√y)`` (odd) by
    ``Q(a+1, y) = Q(a, y) + y^a e^-y / Γ(a+1)``."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if x <= 0:
        return 1.0
    y, ly = x / 2, math.log(x / 2)
    if df % 2 == 0:  # Q(m, y), m = df/2: e^-y Σ_{j<m} y^j / j!
        head, logs = 0.0, [j * ly - y - math.lgamma(j + 1) for j in range(df // 2)]
    else:  # Q(m + 1/2, y): erfc(√y) + Σ_{j=1..m} y^(j-1/2) e^-y / Γ(j + 1/2)
        head = math.erfc(math.sqrt(y))
        logs = [(j - 0.5) * ly - y - math.lgamma(j + 0.5) for j in range(1, df // 2 + 1)]
    return min(1.0, head + math.fsum(math.exp(v) for v in logs))


def exchange_floor(n: int) -> float:
    """The smallest two-sided p any test of n paired items can give when, under the null,
    each item's two values could as well be swapped: ``2 / 2^n`` (every item on one side is
    one arrangement of 2^n, each side counted). A percentile bootstrap has no such floor: on 4
    items that all favour one system every resample does too, and its p is ``2/(B+1)``, about
    0.001 where an exact test says 0.125. Applied to the bootstrap's p, it changes nothing
    from about 20 items on."""
    return min(1.0, 2.0 / 2.0**n) if n < 1024 else 0.0
