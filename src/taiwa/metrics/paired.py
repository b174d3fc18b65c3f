"""Is system A better than system B on the same items? Paired differences with CIs, p-values
and the minimum detectable difference (issue 27; the question seed 002 §5.1 asks of paired
batches and seed 004 §3.2 of how many items make a ranking stable).

Two systems scored on the same items are compared item by item: only items both scored count
(:func:`align` says how many each side had alone), and the difference's uncertainty comes from
the spread of the per-item differences, which is much smaller than either system's own CI when
the items vary more than the systems do.

- Item means (:func:`paired_difference`, :func:`difference_tests` for many at once): the mean
  paired difference ``mean(a − b)``; its 95 % percentile-bootstrap CI from exactly the resamples
  :func:`taiwa.metrics.stats.bootstrap_ci` draws for the differences (same ``n``, same
  ``seed``, so the CI equals ``bootstrap_ci(a − b, seed=seed)``); a two-sided p-value from a
  paired sign-flip permutation test; and the minimum detectable difference.
- Any other statistic (DAE, DAMI over pairs of acts, correlations; :class:`ActEntropy` and
  :class:`ActMutualInformation` are vectorised):
  :func:`paired_statistic_difference` resamples item indices jointly for both systems and
  recomputes the statistic on each side.
- :func:`holm` corrects a family of p-values (Holm's step-down, family-wise error ≤ α).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Protocol, runtime_checkable

import numpy as np

from taiwa.metrics.da_distribution import (
    act_codes,
    batch_counts,
    entropy_rows,
    mutual_information_rows,
)
from taiwa.metrics.exact_tail import exchange_floor
from taiwa.metrics.stats import N_RESAMPLES, Estimate, percentile_estimate

N_PERMUTATIONS = 5_000
"""Random sign-flip patterns of the Monte Carlo permutation test (above :data:`EXACT_MAX_N`
items): the p-value's Monte Carlo standard error at p = 0.05 is 0.003, the smallest p is
1/5,001 (Holm still reaches 0.05 with 250 comparisons in the family)."""

EXACT_MAX_N = 16
"""Up to this many items the sign-flip test enumerates all ``2**n`` patterns (65,536 at most)."""

ALPHA = 0.05
POWER = 0.8

_BLOCK_DRAW = 1_000_000
"""Random indices or signs handled at a time (bounded memory for any n)."""

_SIGN_STREAM = 27
"""Sign flips draw from ``default_rng((seed, 27))``: the bootstrap's draws stay bootstrap_ci's."""


@dataclass(frozen=True)
class PairCounts:
    """Items both systems scored, and the items only one of them did (left out of the pair)."""

    shared: int
    only_a: int
    only_b: int


def _usable(v: Any) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def align(
    a: Mapping[Any, Any] | Sequence[Any], b: Mapping[Any, Any] | Sequence[Any]
) -> tuple[list[Any], list[Any], list[Any], PairCounts]:
    """The shared item ids (in ``a``'s order), each side's values on them, and the counts.

    ``a`` and ``b`` map item id → value, or are aligned sequences (the position is the id, so
    they must be equally long). ``None`` or NaN is no value: that item is counted as scored by
    the other side only (a failed reply is left out of the pair, never silently)."""
    if not isinstance(a, Mapping) or not isinstance(b, Mapping):
        if isinstance(a, Mapping) or isinstance(b, Mapping) or len(a) != len(b):
            raise ValueError("align: give two mappings, or two sequences of the same length")
        a, b = dict(enumerate(a)), dict(enumerate(b))
    ids = [k for k, v in a.items() if _usable(v) and _usable(b.get(k))]
    n_a = sum(1 for v in a.values() if _usable(v))
    n_b = sum(1 for v in b.values() if _usable(v))
    counts = PairCounts(len(ids), n_a - len(ids), n_b - len(ids))
    return ids, [a[k] for k in ids], [b[k] for k in ids], counts


@dataclass(frozen=True)
class PairedDifference:
    """``a − b`` over the shared items: the estimate (value, CI, n = shared items), the
    two-sided p-value, how it was computed, the minimum detectable difference and the SD of the
    per-item differences (or of the bootstrap differences, for a statistic)."""

    difference: Estimate
    p: float
    test: str
    mdd: float
    sd: float
    counts: PairCounts

    def as_dict(self) -> dict[str, Any]:
        return {
            "difference": self.difference.as_dict(),
            "p": self.p,
            "test": self.test,
            "mdd": self.mdd,
            "sd": self.sd,
            "shared": self.counts.shared,
            "only_a": self.counts.only_a,
            "only_b": self.counts.only_b,
        }


def minimum_detectable(se: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest true difference a two-sided level-``alpha`` test finds with probability
    ``power``, given the standard error ``se`` of the estimated difference:

        MDD = (z(1 − alpha/2) + z(power)) · se        (= 2.80 · se at 0.05 and 0.8)

    For an item mean ``se = sd(a − b) / √n`` (normal approximation of the paired test), so a
    non-significant difference with an MDD far above it reads "n too small", one with a small
    MDD "really similar". It is stated at the nominal α, before any multiplicity correction,
    and is NaN when ``se`` is 0 (no item differs: a variance estimated as 0 says nothing)."""
    z = NormalDist()
    return (z.inv_cdf(1 - alpha / 2) + z.inv_cdf(power)) * se if se > 0 else float("nan")


_COUNT_BLOCK = 100_000
"""Resampled indices counted at a time: the counts stay in the CPU cache."""


def resampled_means(
    values: np.ndarray, n_resamples: int = N_RESAMPLES, seed: int = 0
) -> np.ndarray:
    """``(n_resamples, m)``: the mean of each column of ``values`` (n items × m) in each
    bootstrap resample of the items.

    The resamples are those :func:`taiwa.metrics.stats.bootstrap_ci` draws for ``n`` items and
    ``seed`` (NumPy's bounded-integer stream does not depend on how draws are blocked), so
    ``percentile_estimate(mean, out[:, j], n)`` is ``bootstrap_ci(values[:, j], seed=seed)``
    (to rounding). Each block of resamples becomes item counts, and all m columns cost one
    matrix product: many metrics (or systems) over the same items share one draw."""
    values = np.asarray(values, dtype=float)
    n, m = values.shape
    out = np.empty((n_resamples, m))
    rng = np.random.default_rng(seed)
    step = max(1, _COUNT_BLOCK // n)
    offset = (np.arange(step, dtype=np.int64) * n)[:, None]
    for start in range(0, n_resamples, step):
        k = min(step, n_resamples - start)
        idx = rng.integers(0, n, size=(k, n))
        idx += offset[:k]
        counts = np.bincount(idx.ravel(), minlength=k * n).reshape(k, n)
        out[start : start + k] = counts.astype(float) @ values
    out /= n
    return out


def _sign_flip_p(d: np.ndarray, n_permutations: int, seed: int) -> tuple[np.ndarray, str]:
    """Two-sided p-values of ``H0: mean difference 0`` for each column of ``d`` (n × m).

    Under H0 each item's difference is as likely ``+d`` as ``−d``; the statistic is
    ``|Σ s_i d_i|`` over sign patterns ``s``. Up to :data:`EXACT_MAX_N` items every pattern is
    enumerated (``p`` = share of patterns at least as extreme, the observed one included);
    beyond, ``n_permutations`` random patterns (shared by all columns) give
    ``p = (1 + #{at least as extreme}) / (1 + n_permutations)``, a valid p-value. The random
    patterns are summed in single precision (one matrix product per block); "at least as
    extreme" allows for its rounding (10⁻⁴ of the statistic's SD ``√Σd²``), which can only
    raise p, by about 10⁻⁴ at most."""
    n, m = d.shape
    observed = np.abs(d.sum(axis=0))
    total = d.sum(axis=0)
    if n <= EXACT_MAX_N:
        tol = 1e-9 * np.abs(d).sum(axis=0)
        bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        flipped = np.abs(2 * (bits.astype(float) @ d) - total)
        hits = (flipped >= observed - tol).sum(axis=0)
        return hits / 2**n, f"sign-flip, exact ({2**n:,} patterns)"
    tol = 1e-4 * np.sqrt((d * d).sum(axis=0))
    rng = np.random.default_rng((seed, _SIGN_STREAM))
    hits = np.zeros(m, dtype=np.int64)
    step = max(1, _BLOCK_DRAW // n)
    width = (n + 7) // 8
    d32 = d.astype(np.float32)
    for start in range(0, n_permutations, step):
        k = min(step, n_permutations - start)
        raw = np.frombuffer(rng.bytes(k * width), dtype=np.uint8).reshape(k, width)
        bits = np.unpackbits(raw, axis=1, count=n).astype(np.float32)
        flipped = np.abs(2 * (bits @ d32).astype(float) - total)
        hits += (flipped >= observed - tol).sum(axis=0)
    return (1 + hits) / (1 + n_permutations), f"sign-flip, {n_permutations:,} random patterns"


def difference_tests(
    d: np.ndarray,
    counts: Sequence[PairCounts] | None = None,
    *,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    n_permutations: int = N_PERMUTATIONS,
    confidence: float = 0.95,
    known: Sequence[np.ndarray | None] | None = None,
) -> list[PairedDifference]:
    """:func:`paired_difference` for each column of ``d`` (n shared items × m comparisons of
    per-item differences ``a − b``), with one set of bootstrap resamples and sign flips for all
    columns: each column's result is what it would get alone. ``counts`` (one per column) say
    how many items each side scored alone (default: none). ``known[j]``: column j's resampled
    means when already at hand (the difference of two remembered ones,
    :mod:`taiwa.metrics.resample_memo`); only the other columns are resampled."""
    d = np.asarray(d, dtype=float)
    if d.ndim != 2:
        raise ValueError(f"difference_tests: d must be items × comparisons, got shape {d.shape}")
    n, m = d.shape
    counts = list(counts) if counts is not None else [PairCounts(n, 0, 0)] * m
    if n == 0:
        nan = float("nan")
        return [
            PairedDifference(Estimate(nan, nan, nan, 0), nan, "no shared items", nan, nan, c)
            for c in counts
        ]
    means = d.mean(axis=0)
    sd = d.std(axis=0, ddof=1) if n > 1 else np.full(m, np.nan)
    todo = [j for j in range(m) if known is None or known[j] is None]
    stats = np.empty((n_resamples, m))
    if todo:
        stats[:, todo] = resampled_means(d[:, todo], n_resamples, seed)
    for j in set(range(m)) - set(todo):
        stats[:, j] = known[j]  # type: ignore[index]
    p, test = _sign_flip_p(d, n_permutations, seed)
    return [
        PairedDifference(
            percentile_estimate(float(means[j]), stats[:, j], n, confidence),
            float(p[j]),
            test,
            minimum_detectable(float(sd[j]) / math.sqrt(n)),  # NaN for n = 1: sd is NaN
            float(sd[j]),
            counts[j],
        )
        for j in range(m)
    ]


def paired_difference(
    a: Mapping[Any, float | None] | Sequence[float | None],
    b: Mapping[Any, float | None] | Sequence[float | None],
    *,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    n_permutations: int = N_PERMUTATIONS,
    confidence: float = 0.95,
) -> PairedDifference:
    """Mean of ``a − b`` over the items both scored (see :func:`align`), with its paired
    bootstrap CI (the resamples of ``bootstrap_ci(a − b, seed=seed)``), a two-sided sign-flip
    permutation p-value (exact up to :data:`EXACT_MAX_N` items, else ``n_permutations`` random
    patterns) and the minimum detectable difference ``2.80 · sd(a − b) / √n``
    (:func:`minimum_detectable`)."""
    _, va, vb, counts = align(a, b)
    d = (np.asarray(va, dtype=float) - np.asarray(vb, dtype=float)).reshape(-1, 1)
    return difference_tests(
        d,
        [counts],
        seed=seed,
        n_resamples=n_resamples,
        n_permutations=n_permutations,
        confidence=confidence,
    )[0]


class Statistic(Protocol):
    """A statistic of one system's per-item records (e.g. the entropy of its acts)."""

    def __call__(self, records: Sequence[Any]) -> float: ...


@runtime_checkable
class ResampledStatistic(Protocol):
    """A statistic that also computes itself on a block of resamples at once: ``prepare`` turns
    the records into arrays once, ``resampled(prepared, idx)`` gives one value per row of
    ``idx`` (resamples × n item indices)."""

    def __call__(self, records: Sequence[Any]) -> float: ...
    def prepare(self, records: Sequence[Any]) -> Any: ...
    def resampled(self, prepared: Any, idx: np.ndarray) -> np.ndarray: ...


class ActEntropy:
    """DAE (seed 002 App. C eq. (1)): the entropy in bits of a system's dialogue acts, one
    act per item."""

    def __call__(self, records: Sequence[Any]) -> float:
        return float(self.resampled(self.prepare(records), np.arange(len(records))[None])[0])

    def prepare(self, records: Sequence[Any]) -> tuple[np.ndarray, int]:
        (codes,), vocab = act_codes([records])
        return codes, max(1, len(vocab))

    def resampled(self, prepared: tuple[np.ndarray, int], idx: np.ndarray) -> np.ndarray:
        codes, k = prepared
        return entropy_rows(batch_counts(codes, idx, k))


class ActMutualInformation:
    """DAMI (seed 002 App. C eqs. (2)–(3)): the mutual information in bits between the act
    of the utterance a reply answers and the reply's act; one ``(previous act, act)`` pair
    per item."""

    def __call__(self, records: Sequence[Any]) -> float:
        return float(self.resampled(self.prepare(records), np.arange(len(records))[None])[0])

    def prepare(self, records: Sequence[Any]) -> tuple[np.ndarray, int]:
        (prev, act), vocab = act_codes([[p for p, _ in records], [a for _, a in records]])
        k = max(1, len(vocab))
        return prev * k + act, k

    def resampled(self, prepared: tuple[np.ndarray, int], idx: np.ndarray) -> np.ndarray:
        codes, k = prepared
        return mutual_information_rows(batch_counts(codes, idx, k * k).reshape(-1, k, k))


RESAMPLED_NOTE = (
    "items resampled with replacement, the same items for both systems; "
    "the statistic recomputed on each side"
)


def paired_statistic_difference(
    a: Mapping[Any, Any] | Sequence[Any],
    b: Mapping[Any, Any] | Sequence[Any],
    statistic: Statistic,
    *,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
    confidence: float = 0.95,
) -> PairedDifference:
    """``statistic(a) − statistic(b)`` over the items both have (see :func:`align`), with a
    paired bootstrap: each resample draws item indices with replacement (the draws of
    ``bootstrap_ci`` for n items and ``seed``) and takes the same items from both systems.

    CI: percentile interval of the resampled differences Δ*. p (two-sided, percentile
    bootstrap): ``min(1, 2 · min(1 + #{Δ* ≤ 0}, 1 + #{Δ* ≥ 0}) / (1 + B))`` over the B finite
    resamples, i.e. the smallest level at which the percentile CI leaves out 0. MDD:
    :func:`minimum_detectable` with the SD of Δ* as the standard error. A statistic with
    ``prepare`` / ``resampled`` (:class:`ResampledStatistic`, e.g. :class:`ActEntropy`) is
    computed a block of resamples at a time; any other callable once per resample."""
    _, ra, rb, counts = align(a, b)
    n = counts.shared
    nan = float("nan")
    if n == 0:
        return PairedDifference(
            Estimate(nan, nan, nan, 0), nan, "no shared items", nan, nan, counts
        )
    point = float(statistic(ra)) - float(statistic(rb))
    diffs = np.empty(n_resamples)
    rng = np.random.default_rng(seed)
    step = max(1, _BLOCK_DRAW // n)
    vectorised = statistic if isinstance(statistic, ResampledStatistic) else None
    prepared = (vectorised.prepare(ra), vectorised.prepare(rb)) if vectorised else None
    for start in range(0, n_resamples, step):
        k = min(step, n_resamples - start)
        idx = rng.integers(0, n, size=(k, n))
        if vectorised is not None and prepared is not None:
            on_a = vectorised.resampled(prepared[0], idx)
            diffs[start : start + k] = on_a - vectorised.resampled(prepared[1], idx)
            continue
        for r, row in enumerate(idx):
            one = float(statistic([ra[i] for i in row]))
            diffs[start + r] = one - float(statistic([rb[i] for i in row]))
    est = percentile_estimate(point, diffs, n, confidence)
    finite = diffs[np.isfinite(diffs)]
    if finite.size == 0:
        return PairedDifference(est, nan, "paired bootstrap", nan, nan, counts)
    tail = min(int((finite <= 0).sum()), int((finite >= 0).sum()))
    p = min(1.0, 2 * (1 + tail) / (1 + finite.size))
    test = f"paired bootstrap, {finite.size:,} resamples"
    floor = exchange_floor(n)
    if p < floor:  # a few items all on one side: the bootstrap alone would say p ≈ 1/B
        p = floor
        test += f"; p at its floor for {n} paired items, 2/2^{n}"
    se = float(finite.std(ddof=1)) if finite.size > 1 else nan
    return PairedDifference(est, p, test, minimum_detectable(se), se, counts)


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
