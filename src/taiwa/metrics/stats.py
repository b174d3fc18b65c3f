"""Statistics for reported numbers: bootstrap CIs, correlations, vote aggregation, P/R/F1.

Every aggregate taiwa reports carries its n and a seeded 95 % percentile-bootstrap CI
(DESIGN.md). Vote aggregation follows seed 002 §3.3 and seed 004 §2.3.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, TypeVar

import numpy as np

from taiwa.metrics.resample_memo import recall, remember

T = TypeVar("T")
H = TypeVar("H", bound=Hashable)

N_RESAMPLES = 2000
"""Default number of bootstrap resamples."""

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95 % interval."""


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95 % (by default) bootstrap CI and sample size."""

    value: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict[str, float | int]:
        return {"value": self.value, "ci_low": self.low, "ci_high": self.high, "n": self.n}

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}] (n={self.n})"


def bootstrap_ci(
    values: Sequence[T],
    statistic: Callable[[Sequence[T]], float] | None = None,
    *,
    n_resamples: int = N_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> Estimate:
    """``statistic`` of ``values`` (default: the mean) with a seeded percentile-bootstrap CI.

    Resamples the items with replacement ``n_resamples`` times. With no items the estimate is
    NaN; with one item the interval collapses to the value.
    """
    n = len(values)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0)
    rng = np.random.default_rng(seed)
    if statistic is None:
        arr = np.asarray(values, dtype=float)
        point = float(arr.mean())
        known = recall(arr, n_resamples, seed)  # the same values bootstrapped before
        if known is not None:
            stats = known
        else:
            if n * n_resamples <= _SHARED_DRAW:
                stats = arr[_resample_indices(n, n_resamples, seed)].mean(axis=1)
            else:
                stats = _block_means(arr, n_resamples, rng)
            remember(arr, n_resamples, seed, stats)
    else:
        point = float(statistic(values))
        stats = np.array(
            [statistic([values[i] for i in rng.integers(0, n, size=n)]) for _ in range(n_resamples)]
        )
    return percentile_estimate(point, stats, n, confidence)


def percentile_estimate(
    point: float, stats: np.ndarray, n: int, confidence: float = 0.95
) -> Estimate:
    """The percentile-bootstrap estimate from a statistic's resampled values ``stats``.

    Non-finite resamples (degenerate ones, e.g. a constant resample's correlation) are left
    out; with none finite the interval is NaN."""
    alpha = (1 - confidence) / 2
    finite = stats[np.isfinite(stats)]
    if finite.size == 0:
        return Estimate(point, float("nan"), float("nan"), n)
    low, high = np.quantile(finite, [alpha, 1 - alpha])
    return Estimate(point, float(low), float(high), n)


_SHARED_DRAW = 4_000_000
"""Resampled indices drawn at once (and kept for the next mean of as many items)."""

_BLOCK_DRAW = 1_000_000
"""Resampled indices drawn at a time for more items than that (8 MB of indices and 8 MB of
values at a time, so a large run's bootstrap costs no more memory than a small run's)."""


def _block_means(arr: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The resampled means of ``arr`` drawn :data:`_BLOCK_DRAW` indices at a time, in the
    order of one sequential draw from ``rng`` (the same numbers as drawing them all at once
    in blocks). The next block is drawn on a second thread while this one is gathered and
    averaged: numpy lets the GIL go for both, so on two cores a CI of 10,000 items takes about
    half the time (120 → 60-70 ms; three of them after a 10,000-item intent run's last reply)."""
    from concurrent.futures import ThreadPoolExecutor

    n = len(arr)
    stats = np.empty(n_resamples)
    step = max(1, _BLOCK_DRAW // n)
    blocks = [(start, min(step, n_resamples - start)) for start in range(0, n_resamples, step)]
    with ThreadPoolExecutor(1, thread_name_prefix="taiwa-draw") as drawer:
        coming = drawer.submit(rng.integers, 0, n, (blocks[0][1], n))
        for i, (start, k) in enumerate(blocks):
            idx = coming.result()
            if i + 1 < len(blocks):
                coming = drawer.submit(rng.integers, 0, n, (blocks[i + 1][1], n))
            stats[start : start + k] = arr[idx].mean(axis=1)
    return stats


@lru_cache(maxsize=2)
def _resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """The indices :func:`bootstrap_ci` resamples a mean with: the same for every metric of the
    same ``n`` items and seed, so a table of metrics over one set of rows draws them once."""
    idx = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    idx.flags.writeable = False
    return idx


def prepare_means(n: int, seed: int, n_resamples: int = N_RESAMPLES) -> None:
    """Draw and keep the indices :func:`bootstrap_ci` will resample a mean of ``n`` items
    with (seed ``seed``), and load what its percentiles need (``np.quantile`` imports
    ``numpy.ma``: ~10 ms), so that a summary of ``n`` items spends neither in its aggregate.
    numpy draws with the GIL let go (27 ms for 1,000 items), so a thread can do this while a
    run's requests are in flight (:mod:`taiwa.harness.warm_up`). Nothing is drawn for more
    items than one shared draw holds."""
    import numpy.ma  # noqa: F401 - imported by np.quantile on first use

    if n > 0 and n * n_resamples <= _SHARED_DRAW:
        _resample_indices(n, n_resamples, seed)


def mean_estimate(values: Sequence[float], seed: int = 0) -> dict[str, float | int]:
    """Mean with its 95 % bootstrap CI and n, plus the standard deviation (seed 000 Table 1)."""
    est: dict[str, float | int] = bootstrap_ci(list(values), seed=seed).as_dict()
    est["sd"] = statistics.stdev(values) if len(values) > 1 else 0.0
    return est


def paired_bootstrap_ci(
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    statistic: Callable[[np.ndarray, np.ndarray], float],
    *,
    n_resamples: int = N_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> Estimate:
    """A statistic of paired samples (e.g. a correlation) with a bootstrap CI over the pairs."""
    if len(x) != len(y):
        raise ValueError(f"paired samples differ in length: {len(x)} vs {len(y)}")
    pairs = list(zip(np.asarray(x, float), np.asarray(y, float), strict=True))

    def stat(ps: Sequence[tuple[float, float]]) -> float:
        a = np.array([p[0] for p in ps])
        b = np.array([p[1] for p in ps])
        return statistic(a, b)

    return bootstrap_ci(pairs, stat, n_resamples=n_resamples, confidence=confidence, seed=seed)


Method = Literal["spearman", "pearson", "kendall"]


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient, its two-sided p-value, n and a bootstrap CI."""

    method: Method
    r: float
    p: float
    n: int
    low: float
    high: float


def _coef(method: Method, a: Any, b: Any) -> tuple[float, float]:
    from scipy import stats as sps  # imported here: scipy costs ~0.3 s at start-up

    fn = {"spearman": sps.spearmanr, "pearson": sps.pearsonr, "kendall": sps.kendalltau}[method]
    res = fn(a, b)
    return float(res[0]), float(res[1])


RANK_P_MIN_N = 4
"""Below this many pairs a rank correlation has no p-value: of the 3! = 6 orders of 3 items,
the two most extreme are 2 of 6, so no two-sided p can be below 1/3."""

EXACT_RANK_MAX_N = 8
"""Up to this many pairs Spearman's p enumerates every order (8! = 40,320); up to
:data:`PERMUTED_RANK_MAX_N`, :data:`RANK_PERMUTATIONS` random ones; beyond, scipy's t
approximation, which is good there (and too small below: ρ = 1 over 3 pairs gives p = 0)."""

PERMUTED_RANK_MAX_N = 12
RANK_PERMUTATIONS = 20_000


def spearman_permutation_p(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, seed: int = 0
) -> float:
    """The two-sided permutation p-value of Spearman's ρ: the share of orders of ``y`` against
    ``x`` whose |ρ| is at least the observed one (average ranks for ties), every order up to
    :data:`EXACT_RANK_MAX_N` pairs, else ``(1 + hits) / (1 + RANK_PERMUTATIONS)`` over seeded
    random orders. NaN below :data:`RANK_P_MIN_N` pairs or for a constant side."""
    from itertools import permutations

    from scipy.stats import rankdata

    n = len(x)
    if n < RANK_P_MIN_N:
        return float("nan")
    u = rankdata(np.asarray(x, float))
    v = rankdata(np.asarray(y, float))
    u, v = u - u.mean(), v - v.mean()
    scale = math.sqrt(float((u * u).sum() * (v * v).sum()))
    if scale == 0:
        return float("nan")
    observed = abs(float(u @ v)) / scale
    if n <= EXACT_RANK_MAX_N:
        orders = np.array(list(permutations(range(n))))
        rho = np.abs(v[orders] @ u) / scale
        return float((rho >= observed - 1e-12).sum() / len(orders))
    rng = np.random.default_rng(seed)
    orders = rng.permuted(np.tile(np.arange(n), (RANK_PERMUTATIONS, 1)), axis=1)
    rho = np.abs(v[orders] @ u) / scale
    return float((1 + (rho >= observed - 1e-12).sum()) / (1 + RANK_PERMUTATIONS))


def spearman_with_p(a: np.ndarray, b: np.ndarray, seed: int = 0) -> tuple[float, float]:
    """Spearman ρ of two non-constant arrays (3 pairs or more) and its p-value: none (NaN)
    below :data:`RANK_P_MIN_N` pairs, the permutation p up to :data:`PERMUTED_RANK_MAX_N`,
    scipy's beyond."""
    r, p = _coef("spearman", a, b)
    if len(a) < RANK_P_MIN_N:
        return r, float("nan")
    return r, spearman_permutation_p(a, b, seed) if len(a) <= PERMUTED_RANK_MAX_N else p


def correlation(
    x: Sequence[float], y: Sequence[float], method: Method = "spearman", *, seed: int = 0
) -> Correlation:
    """Spearman ρ, Pearson r or Kendall τ with its p-value and a seeded bootstrap CI.

    The p-value is scipy's, except for Spearman over up to :data:`PERMUTED_RANK_MAX_N` pairs,
    where it is the permutation p (:func:`spearman_permutation_p`; exact up to
    :data:`EXACT_RANK_MAX_N`), and for a rank correlation (Spearman, Kendall) over fewer than
    :data:`RANK_P_MIN_N` pairs, which gets none (NaN). Needs at least 3 pairs; constant input
    gives NaN (the coefficient is undefined).
    """
    if len(x) != len(y):
        raise ValueError(f"x and y differ in length: {len(x)} vs {len(y)}")
    if len(x) < 3:
        raise ValueError(f"a correlation needs at least 3 pairs, got {len(x)}")
    a, b = np.asarray(x, float), np.asarray(y, float)
    if np.all(a == a[0]) or np.all(b == b[0]):
        nan = float("nan")
        return Correlation(method, nan, nan, len(a), nan, nan)
    if method == "spearman":
        r, p = spearman_with_p(a, b, seed)
    else:
        r, p = _coef(method, a, b)
        p = float("nan") if method == "kendall" and len(a) < RANK_P_MIN_N else p
    if method == "kendall":

        def stat(u: np.ndarray, v: np.ndarray) -> float:
            if np.all(u == u[0]) or np.all(v == v[0]):
                return float("nan")
            return _coef(method, u, v)[0]

        ci = paired_bootstrap_ci(a, b, stat, n_resamples=CORRELATION_RESAMPLES, seed=seed)
        return Correlation(method, r, p, len(a), ci.low, ci.high)
    ci = percentile_estimate(r, _resampled_coefficients(method, a, b, seed), len(a))
    return Correlation(method, r, p, len(a), ci.low, ci.high)


CORRELATION_RESAMPLES = 1000
"""Bootstrap resamples of a correlation's CI."""


def _resampled_coefficients(
    method: Literal["spearman", "pearson"], a: np.ndarray, b: np.ndarray, seed: int
) -> np.ndarray:
    """Spearman ρ or Pearson r of every bootstrap resample of the pairs, a block of resamples
    at a time (the draws :func:`paired_bootstrap_ci` makes, in the same order; Spearman is
    Pearson on average ranks, as scipy computes it). A constant resample gives NaN."""
    from scipy.stats import rankdata

    n = len(a)
    rng = np.random.default_rng(seed)
    out = np.empty(CORRELATION_RESAMPLES)
    step = max(1, _BLOCK_DRAW // n)
    for start in range(0, CORRELATION_RESAMPLES, step):
        k = min(step, CORRELATION_RESAMPLES - start)
        idx = rng.integers(0, n, size=(k, n))
        u, v = a[idx], b[idx]
        if method == "spearman":
            u, v = rankdata(u, axis=1), rankdata(v, axis=1)
        u = u - u.mean(axis=1, keepdims=True)
        v = v - v.mean(axis=1, keepdims=True)
        den = np.sqrt((u * u).sum(axis=1) * (v * v).sum(axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            coef = (u * v).sum(axis=1) / den
        constant = (np.ptp(a[idx], axis=1) == 0) | (np.ptp(b[idx], axis=1) == 0)
        out[start : start + k] = np.where(constant, np.nan, np.clip(coef, -1.0, 1.0))
    return out


def majority_vote(
    ballots: Iterable[H | Collection[H]],
    *,
    min_votes: int = 2,
    ties: Literal["random", "exclude"] = "random",
    seed: int | str = 0,
) -> H | None:
    """The label chosen by annotators, or ``None`` when there is none.

    Each ballot is one annotator's choice: a single label, or a collection of labels when
    annotators may select several (seed 002 §3.3 asks for every act that applies; a label
    counts once per ballot). A label is adopted when it has at least ``min_votes`` votes and
    the most votes. When several labels tie, ``ties="random"`` picks one with an RNG seeded by
    ``seed`` (seed 002 §3.3: 5 annotators, ``min_votes=2``), ``ties="exclude"`` gives ``None``.
    Seed 004 §2.3 (3 annotators, adopted when 2 agree, else excluded) is
    ``majority_vote(votes, min_votes=2, ties="exclude")``.
    """
    counts: Counter[H] = Counter()
    for ballot in ballots:
        if isinstance(ballot, str) or not isinstance(ballot, Collection):
            counts[ballot] += 1
        else:
            counts.update(set(ballot))
    if not counts:
        return None
    top = max(counts.values())
    if top < min_votes:
        return None
    winners = sorted((lab for lab, c in counts.items() if c == top), key=repr)
    if len(winners) == 1:
        return winners[0]
    if ties == "exclude":
        return None
    return random.Random(seed).choice(winners)


@dataclass(frozen=True)
class ClassScores:
    """Precision, recall and F1 of one class, with its support (gold count)."""

    precision: float
    recall: float
    f1: float
    support: int


def precision_recall_f1(
    gold: Sequence[H], pred: Sequence[H], labels: Sequence[H] | None = None
) -> dict[H, ClassScores]:
    """Per-class precision, recall and F1 (0 where undefined), e.g. seed 002 Table 5."""
    if len(gold) != len(pred):
        raise ValueError(f"gold and pred differ in length: {len(gold)} vs {len(pred)}")
    names = list(labels) if labels is not None else sorted(set(gold) | set(pred), key=repr)
    out: dict[H, ClassScores] = {}
    for lab in names:
        tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == lab and p == lab)
        n_pred = sum(1 for p in pred if p == lab)
        n_gold = sum(1 for g in gold if g == lab)
        prec = tp / n_pred if n_pred else 0.0
        rec = tp / n_gold if n_gold else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        out[lab] = ClassScores(prec, rec, f1, n_gold)
    return out
