"""The minimum detectable difference (MDD) of a paired comparison, for the decision taiwa makes
(issue 39; seed 004 §3.2 asks how many items a ranking needs).

A comparison is called significant when its Holm-corrected p is below α. In a family of k
tests the first Holm step asks ``p < α / k`` of the smallest p, and when the other k − 1
differences are null that is what one true difference must pass; so the MDD here is the
smallest true difference that the test in use finds with probability 0.8 at level ``α / k``
(more, when other differences in the family are real too):

- an item mean (:func:`mean_mdd`): the sign-flip test behaves as the paired t test, so
  ``MDD = (t(1 − α/2k) + t(0.8)) · sd / √n`` with ``n − 1`` degrees of freedom;
- 0/1 items, or any difference of −1, 0 or 1 (:func:`discordant_mdd`): the sign-flip test is
  McNemar's exact test, whose power depends on the share ψ of items the systems differ on; the
  MDD is the δ at which its exact power (over the binomial number of discordant items, each
  for A with probability ``(ψ + δ) / 2ψ``) is 0.8, for the observed ψ;
- any other statistic (DAE, DAMI, a win rate): ``(z(1 − α/2k) + z(0.8)) · se`` with the
  bootstrap standard error (:func:`minimum_detectable`).

Simulated power at these MDDs is in docs/statistics.md.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

import numpy as np

ALPHA = 0.05
POWER = 0.8

_Z = NormalDist()

EXACT_POWER_MAX_N = 400
"""Up to this many items the 0/1 MDD sums McNemar's exact power; beyond, the normal
approximation with the variance under each hypothesis (Connor 1987), within 0.005 of it there."""


def minimum_detectable(se: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """``(z(1 − alpha/2) + z(power)) · se`` (= 2.80 · se at 0.05 and 0.8): the smallest true
    difference a two-sided level-``alpha`` normal test finds with probability ``power``, given
    the standard error ``se`` of the estimate. NaN when ``se`` is 0 or not finite (a spread
    estimated as 0 says nothing)."""
    if not (se > 0 and math.isfinite(se)):
        return float("nan")
    return (_Z.inv_cdf(1 - alpha / 2) + _Z.inv_cdf(power)) * se


def _t_abs_cdf(t: float, df: int) -> float:
    """``P(|T| ≤ t)`` for Student's t with a whole number ``df`` of degrees of freedom, from the
    finite series in ``θ = atan(t / √df)`` (Abramowitz & Stegun 26.7.3–4)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:
        term, total = math.cos(theta), 0.0
        if df > 1:
            total = term
            for k in range(3, df - 1, 2):
                term *= c2 * (k - 1) / k
                total += term
        return min(1.0, 2 / math.pi * (theta + s * total))
    term = total = 1.0
    for k in range(2, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return min(1.0, s * total)


@lru_cache(maxsize=256)
def t_quantile(q: float, df: int) -> float:
    """The ``q`` quantile (q > 0.5) of Student's t with ``df`` degrees of freedom: bisection on
    the exact distribution up to 200 of them, the Cornish–Fisher series beyond (error < 10⁻⁶)."""
    if not 0.5 < q < 1:
        raise ValueError(f"t_quantile: q must be in (0.5, 1), got {q}")
    if df > 200:
        z, v = _Z.inv_cdf(q), float(df)
        return (
            z
            + (z**3 + z) / (4 * v)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        )
    target = 2 * q - 1  # P(|T| ≤ t)
    lo, hi = 0.0, 1.0
    while _t_abs_cdf(hi, df) < target:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _t_abs_cdf(mid, df) < target else (lo, mid)
    return (lo + hi) / 2


def mean_mdd(
    sd: float, n: int, family: int = 1, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The MDD of a mean of ``n`` paired differences with SD ``sd``, at level ``alpha / family``
    (see the module docstring). NaN under 2 items or for an SD of 0."""
    if n < 2 or not (sd > 0 and math.isfinite(sd)):
        return float("nan")
    level = alpha / max(1, family)
    df = n - 1
    return (t_quantile(1 - level / 2, df) + t_quantile(power, df)) * sd / math.sqrt(n)


def _log_factorials(n: int) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))])


@lru_cache(maxsize=64)
def _rejections(n: int, psi: float, level: float) -> tuple[np.ndarray, ...]:
    """McNemar's exact rejection region over ``n`` items with discordant share ``psi``: for
    every likely number m of discordant items (± 9 SD) and every split x of them for A that the
    test rejects at ``level``, the probability of m, m, x and ``log C(m, x)``, flat."""
    lf = _log_factorials(n)
    sd = math.sqrt(n * psi * (1 - psi))
    ms = np.arange(max(1, math.floor(n * psi - 9 * sd)), min(n, math.ceil(n * psi + 9 * sd)) + 1)
    if psi < 1:
        logw = lf[n] - lf[ms] - lf[n - ms] + ms * math.log(psi) + (n - ms) * math.log1p(-psi)
    else:
        logw = np.where(ms == n, 0.0, -np.inf)
    parts: list[list[np.ndarray]] = [[], [], [], []]
    for m, lw in zip(ms.tolist(), logw.tolist(), strict=True):
        if lw < -32:  # below 10⁻¹⁴: nothing to the power
            continue
        xs = np.arange(m + 1)
        log_comb = lf[m] - lf[xs] - lf[m - xs]
        tail = np.cumsum(np.exp(log_comb - m * math.log(2))[::-1])[::-1]  # P(X ≥ x), null
        p = np.minimum(1.0, 2 * tail[np.maximum(xs, m - xs)])
        p[2 * xs == m] = 1.0
        keep = p < level
        if keep.any():
            parts[0].append(np.full(int(keep.sum()), lw))
            parts[1].append(np.full(int(keep.sum()), float(m)))
            parts[2].append(xs[keep].astype(float))
            parts[3].append(log_comb[keep])
    if not parts[0]:
        return tuple(np.empty(0) for _ in range(4))
    return tuple(np.concatenate(x) for x in parts)


def mcnemar_power(n: int, discordant: float, delta: float, level: float) -> float:
    """The exact power of McNemar's two-sided exact test at ``level`` (rejecting when its p is
    below it) over ``n`` items, when the systems differ on a share ``discordant`` of items and
    the true difference is ``delta`` (0 ≤ delta ≤ discordant): the sum over the rejection
    region of the number of discordant items and their split, each for A with probability
    ``(discordant + delta) / (2 · discordant)``."""
    psi = discordant
    if not (0 < psi <= 1 and 0 <= delta <= psi):
        raise ValueError(f"mcnemar_power: need 0 ≤ delta ≤ discordant ≤ 1, got {delta}, {psi}")
    logw, m, x, log_comb = _rejections(n, psi, level)
    if not logw.size:
        return 0.0
    q = min((psi + delta) / (2 * psi), 1.0)
    if q >= 1:
        logs = np.where(x == m, logw + log_comb, -np.inf)
    else:
        logs = logw + log_comb + x * math.log(q) + (m - x) * math.log1p(-q)
    return min(1.0, float(np.exp(logs).sum()))


def _connor_mdd(n: int, psi: float, level: float, power: float) -> float:
    """δ with ``δ √n = z(1 − level/2) √ψ + z(power) √(ψ − δ²)`` (Connor 1987), by iteration."""
    za, zb = _Z.inv_cdf(1 - level / 2), _Z.inv_cdf(power)
    delta = (za + zb) * math.sqrt(psi / n)
    for _ in range(100):
        delta = (za * math.sqrt(psi) + zb * math.sqrt(max(psi - delta * delta, 0.0))) / math.sqrt(n)
    return delta if delta <= psi else float("nan")


@lru_cache(maxsize=512)
def _discordant_mdd(n: int, discordant_items: int, level: float, power: float) -> float:
    psi = discordant_items / n
    if n > EXACT_POWER_MAX_N:
        return _connor_mdd(n, psi, level, power)
    if mcnemar_power(n, psi, psi, level) < power:
        return float("nan")  # even a difference on every discordant item is not found
    lo, hi = 0.0, psi
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mcnemar_power(n, psi, mid, level) < power else (lo, mid)
    return hi


def discordant_mdd(
    n: int, discordant_items: int, family: int = 1, alpha: float = ALPHA, power: float = POWER
) -> float:
    """The MDD of a mean difference that takes only −1, 0 and 1, over ``n`` items of which
    ``discordant_items`` differ, at level ``alpha / family`` (see the module docstring). NaN
    when no item differs or when even a difference of the whole discordant share would be found
    with less than ``power``."""
    if n < 1 or discordant_items < 1:
        return float("nan")
    return _discordant_mdd(n, discordant_items, alpha / max(1, family), power)
