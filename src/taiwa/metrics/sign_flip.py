"""The paired sign-flip test of a mean difference and the interval that inverts it (issue 27,
issue 39; the paired batches of seed 002 §5.1).

Under ``H0: mean difference δ`` each item's centred difference ``d_i − δ`` is as likely
positive as negative; the statistic is ``|Σ s_i (d_i − δ)|`` over sign patterns ``s``. At
``δ = 0`` this is the p-value :mod:`taiwa.metrics.paired` prints: up to :data:`EXACT_MAX_N`
items every pattern is enumerated, beyond that :data:`N_PERMUTATIONS` random ones. (Sign flips
leave ``Σ d_i²`` unchanged, so the sum and the t statistic order the patterns alike: this is
also the studentized permutation test.)

The 95 % interval is every δ the same test does not reject at 5 % (:func:`flip_interval`), so
interval and p agree by construction: 0 lies in the interval exactly when p ≥ 0.05. It needs no
search: a pattern counts as "at least as extreme" at δ above the mean exactly while δ stays
below the larger of the means of ``d`` over the items it flips up and over those it flips down
(and mirrored below the mean), so the interval's ends are order statistics of these subset
means (Hartigan's subsample means, 1969).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

N_PERMUTATIONS = 5_000
"""Random sign-flip patterns of the Monte Carlo test (above :data:`EXACT_MAX_N` items): the
p-value's Monte Carlo standard error at p = 0.05 is 0.003, the smallest p is 1/5,001 (Holm
still reaches 0.05 with 250 comparisons in the family)."""

EXACT_MAX_N = 16
"""Up to this many items the sign-flip test enumerates all ``2**n`` patterns (65,536 at most)."""

_BLOCK_DRAW = 1_000_000
"""Random signs handled at a time (bounded memory for any n)."""

_SIGN_STREAM = 27
"""Sign flips draw from ``default_rng((seed, 27))``: the bootstrap's draws stay bootstrap_ci's."""


@dataclass(frozen=True)
class Flips:
    """The sign-flip test of each column of ``d`` (n items × m comparisons) at δ = 0: its
    two-sided ``p`` (m,), how it was computed (``test``), and for :func:`flip_interval` the
    upper and lower subset means of every pattern (patterns × m; ±inf for the patterns that
    flip no item or every item)."""

    p: np.ndarray
    test: str
    upper: np.ndarray
    lower: np.ndarray
    exact: bool


def _subset_means(x: np.ndarray, c: np.ndarray, total: np.ndarray, n: int) -> tuple[Any, Any]:
    """For patterns whose flipped-up items number ``c`` (k,) and sum ``x`` (k × m): the larger
    and the smaller of the mean over those items and the mean over the rest."""
    c = c[:, None].astype(float)
    inner = np.divide(x, c, out=np.full(x.shape, np.nan), where=c > 0)
    outer = np.divide(total - x, n - c, out=np.full(x.shape, np.nan), where=c < n)
    whole = (c == 0) | (c == n)  # the observed pattern or its mirror: always as extreme
    up = np.where(whole, np.inf, np.fmax(inner, outer))
    down = np.where(whole, -np.inf, np.fmin(inner, outer))
    return up, down


def sign_flips(d: np.ndarray, n_permutations: int = N_PERMUTATIONS, seed: int = 0) -> Flips:
    """Two-sided p-values of ``H0: mean difference 0`` for each column of ``d`` (n × m).

    Up to :data:`EXACT_MAX_N` items ``p`` is the share of the ``2**n`` patterns at least as
    extreme as the observed one (itself included); beyond, ``n_permutations`` random patterns
    (shared by all columns) give ``p = (1 + #{at least as extreme}) / (1 + n_permutations)``, a
    valid p-value. The random patterns are summed in single precision (one matrix product per
    block); "at least as extreme" allows for its rounding (10⁻⁴ of the statistic's SD
    ``√Σd²``), which can only raise p, by about 10⁻⁴ at most."""
    n, m = d.shape
    observed = np.abs(d.sum(axis=0))
    total = d.sum(axis=0)
    if n <= EXACT_MAX_N:
        tol = 1e-9 * np.abs(d).sum(axis=0)
        bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        x = bits.astype(float) @ d
        hits = (np.abs(2 * x - total) >= observed - tol).sum(axis=0)
        up, down = _subset_means(x, bits.sum(axis=1), total, n)
        return Flips(hits / 2**n, f"sign-flip, exact ({2**n:,} patterns)", up, down, True)
    tol = 1e-4 * np.sqrt((d * d).sum(axis=0))
    rng = np.random.default_rng((seed, _SIGN_STREAM))
    hits = np.zeros(m, dtype=np.int64)
    up = np.empty((n_permutations, m))
    down = np.empty((n_permutations, m))
    step = max(1, _BLOCK_DRAW // n)
    width = (n + 7) // 8
    d32 = d.astype(np.float32)
    for start in range(0, n_permutations, step):
        k = min(step, n_permutations - start)
        raw = np.frombuffer(rng.bytes(k * width), dtype=np.uint8).reshape(k, width)
        bits = np.unpackbits(raw, axis=1, count=n).astype(np.float32)
        x = (bits @ d32).astype(float)
        hits += (np.abs(2 * x - total) >= observed - tol).sum(axis=0)
        up[start : start + k], down[start : start + k] = _subset_means(
            x, bits.sum(axis=1), total, n
        )
    p = (1 + hits) / (1 + n_permutations)
    return Flips(p, f"sign-flip, {n_permutations:,} random patterns", up, down, False)


def flip_interval(flips: Flips, means: np.ndarray, confidence: float = 0.95) -> np.ndarray:
    """``(m, 2)``: for each column the δ the sign-flip test of ``d − δ`` does not reject at
    ``1 − confidence`` (see the module docstring); ±inf where even the most extreme pattern
    cannot reach that level (5 items or fewer at 95 %). A column whose p and interval disagree
    at the rounding of the p (0 on the interval's edge) gets the edge set by the p, so that 0 is
    in the interval exactly when ``p ≥ 1 − confidence``."""
    alpha = 1 - confidence
    k = flips.upper.shape[0]
    # accepted at δ while the count of patterns at least as extreme reaches h
    h = math.ceil(alpha * k - 1e-9) if flips.exact else math.ceil(alpha * (1 + k) - 1 - 1e-9)
    h = min(max(h, 1), k)
    high = -np.partition(-flips.upper, h - 1, axis=0)[h - 1]
    low = np.partition(flips.lower, h - 1, axis=0)[h - 1]
    out = np.column_stack([low, high])
    keep = flips.p >= alpha
    holds = (out[:, 0] <= 0) & (out[:, 1] >= 0)
    for j in np.flatnonzero(keep & ~holds):
        out[j] = (min(out[j, 0], 0.0), max(out[j, 1], 0.0))
    for j in np.flatnonzero(~keep & holds):  # 0 on an edge within rounding: the p decides
        side = 0 if means[j] > 0 else 1
        out[j, side] = np.nextafter(0.0, 1.0 if means[j] > 0 else -1.0)
    return out
