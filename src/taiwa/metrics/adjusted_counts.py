"""Adjusted classify-and-count: a label distribution corrected for the tagger's known errors.

A tagger validated on gold labels has a confusion matrix ``M[i, j] = P(predicted j | true i)``.
Over a set of items whose true labels are distributed as ``p``, its predictions are
distributed as ``q = p M``; the raw shares ``q`` (classify and count) are biased towards the
tagger's favourite labels, and so is any entropy computed from them (seed 002's DAE, §4).
The corrected shares solve ``q = p M`` for ``p`` on the simplex: here by maximum likelihood
(EM on the multinomial mixture, as Saerens et al. 2002 do for priors), which needs no
inversion, stays non-negative, sums to 1 and equals the inverse solution whenever that one
is a distribution. The same correction per previous label corrects the (previous label,
label) table behind DAMI (App. C), the previous labels taken as given.

Uncertainty: :func:`adjusted_estimates` resamples the validation pairs (so ``M`` is
re-estimated) jointly with the items, and gives percentile 95 % intervals (the basic interval
for the mutual information, see :func:`basic_estimate`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from taiwa.metrics.da_distribution import resampled_counts
from taiwa.metrics.stats import N_RESAMPLES, Estimate, percentile_estimate

SMOOTHING = 0.01
"""Pseudo-count added to every cell of the confusion counts: keeps a prediction no true label
produced in the validation set from having likelihood 0 (negligible beside real counts)."""

MAX_ITERATIONS = 1000
TOLERANCE = 1e-6
"""EM stops when no share moves by more than this (or after MAX_ITERATIONS)."""


def confusion_counts(
    gold: Sequence[str], predicted: Sequence[str | None], labels: Sequence[str]
) -> np.ndarray:
    """``k × k`` counts, rows the gold label, columns the prediction (pairs with a label
    outside ``labels`` or a failed prediction are left out)."""
    code = {a: j for j, a in enumerate(labels)}
    out = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for g, p in zip(gold, predicted, strict=True):
        if g in code and p in code:
            out[code[g], code[p]] += 1
    return out


def confusion_from_table(
    table: Mapping[str, Mapping[str, int]], labels: Sequence[str]
) -> np.ndarray:
    """Counts from a nested ``{gold: {predicted: count}}`` table (a ``taiwa validate`` report's
    ``confusion``), labels outside ``labels`` left out."""
    out = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for i, g in enumerate(labels):
        row = table.get(g, {})
        for j, p in enumerate(labels):
            out[i, j] = int(row.get(p, 0))
    return out


def misclassification(counts: np.ndarray, smoothing: float = SMOOTHING) -> np.ndarray:
    """``P(predicted | true)`` from confusion counts (``(..., k, k)``); a true label the
    validation set lacks gets the identity row (no evidence of error for it)."""
    c = counts.astype(np.float64) + smoothing
    k = counts.shape[-1]
    total = counts.sum(axis=-1, keepdims=True)
    m = c / c.sum(axis=-1, keepdims=True)
    return np.asarray(np.where(total > 0, m, np.eye(k)), dtype=np.float64)


def adjusted_shares(predicted: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The true-label shares ``p`` (``(..., k)``) whose predictions ``p M`` best explain the
    predicted counts (``(..., k)``) by maximum likelihood; ``m`` is ``(k, k)`` or one matrix
    per leading index (``(r, k, k)``, shared by the middle axes). A row without counts gives
    zeros."""
    shape = predicted.shape
    k = shape[-1]
    q = predicted.astype(np.float64).reshape(-1, k)
    total = q.sum(axis=1, keepdims=True)
    q = np.divide(q, total, out=np.zeros_like(q), where=total > 0)
    mats = m.reshape(-1, k, k)
    # which matrix each flattened row uses: the same one, or one per leading index
    which = np.repeat(np.arange(mats.shape[0]), q.shape[0] // mats.shape[0])
    # start from the unconstrained solution q M⁺, clipped into the simplex: where that is a
    # distribution it is already the fixed point, and EM only finishes the boundary cases
    p = np.maximum(np.einsum("ni,nij->nj", q, np.linalg.pinv(mats)[which]), 1e-4)
    p = np.where(total > 0, p / p.sum(axis=1, keepdims=True), 0.0)
    active = np.flatnonzero(total[:, 0] > 0)
    for _ in range(MAX_ITERATIONS):
        if active.size == 0:
            break
        mm, pa, qa = mats[which[active]], p[active], q[active]
        implied = np.einsum("ni,nij->nj", pa, mm)
        ratio = np.divide(qa, implied, out=np.zeros_like(qa), where=implied > 0)
        new = pa * np.einsum("nij,nj->ni", mm, ratio)
        p[active] = new
        active = active[np.abs(new - pa).max(axis=1) >= TOLERANCE]
    return np.asarray(p.reshape(shape), dtype=np.float64)


def entropy_bits(p: np.ndarray) -> np.ndarray:
    """Entropy in bits of each distribution on the last axis."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(p), 0.0)
    return np.asarray(terms.sum(axis=-1), dtype=np.float64)


def mutual_information_bits(joint: np.ndarray) -> np.ndarray:
    """``I(row; column)`` in bits of each (possibly fractional) ``(..., k, k)`` joint table."""
    total = joint.sum(axis=(-2, -1), keepdims=True)
    p = np.divide(joint, total, out=np.zeros_like(joint), where=total > 0)
    h = entropy_bits(p.sum(axis=-1)) + entropy_bits(p.sum(axis=-2))
    h -= entropy_bits(p.reshape(*p.shape[:-2], -1))
    return np.asarray(np.maximum(h, 0.0), dtype=np.float64)


def adjusted_joint(joint: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The (previous, true) table: each previous label's row of predicted counts corrected
    (:func:`adjusted_shares`), scaled back to its count."""
    rows = joint.sum(axis=-1, keepdims=True).astype(np.float64)
    return np.asarray(adjusted_shares(joint, m) * rows, dtype=np.float64)


def basic_estimate(point: float, stats: np.ndarray, n: int) -> Estimate:
    """Bootstrap bias correction for a plug-in mutual information: the value
    ``2θ − median(θ*)`` and the basic interval ``[2θ − q97.5, 2θ − q2.5]``, clipped at 0.

    The plug-in MI of a corrected table sits above the truth by a bias the correction
    amplifies, and its resamples sit above it by about as much again, so the percentile
    interval can miss both the estimate and the truth; the basic interval and the
    bias-corrected value are centred where the truth is."""
    finite = stats[np.isfinite(stats)]
    if finite.size == 0:
        return Estimate(point, float("nan"), float("nan"), n)
    low_q, mid, high_q = np.quantile(finite, [0.025, 0.5, 0.975])
    return Estimate(
        max(0.0, 2 * point - float(mid)),
        max(0.0, 2 * point - float(high_q)),
        max(0.0, 2 * point - float(low_q)),
        n,
    )


@dataclass(frozen=True)
class Adjusted:
    """Corrected shares, entropy and (when pairs were given) mutual information, each with
    n and a 95 % CI; ``n_validation`` gold/predicted pairs estimated ``M``."""

    shares: tuple[Estimate, ...]
    entropy: Estimate
    mutual_information: Estimate | None
    n_validation: int
    mutual_information_plug_in: float | None = None
    """The plug-in MI of the corrected table, before the bootstrap bias correction."""


def adjusted_estimates(
    predicted: Sequence[int],
    confusion: np.ndarray,
    pairs: Sequence[tuple[int, int]] | None = None,
    *,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
) -> Adjusted:
    """Corrected estimates from the predicted label codes of the items (``0..k-1``), the
    validation's ``k × k`` confusion counts and optionally ``(previous code, predicted code)``
    pairs. Each bootstrap resample redraws the items, the pairs and the validation pairs
    (a multinomial over the confusion cells), re-estimates ``M`` and corrects again."""
    k = confusion.shape[0]
    codes = np.asarray(predicted, dtype=np.int64)
    n = codes.size
    m = misclassification(confusion)
    counts = np.bincount(codes, minlength=k)[None, :]
    cells = np.repeat(np.arange(k * k), confusion.ravel())
    m_b = misclassification(
        resampled_counts(cells, k * k, seed=seed + 1, n_resamples=n_resamples).reshape(-1, k, k)
    )
    counts_b = resampled_counts(codes, k, seed=seed, n_resamples=n_resamples)
    p = adjusted_shares(counts, m)[0]
    p_b = adjusted_shares(counts_b, m_b)
    shares = tuple(percentile_estimate(float(p[j]), p_b[:, j], n) for j in range(k))
    h = percentile_estimate(float(entropy_bits(p)), entropy_bits(p_b), n)
    mi, plug_in = None, None
    if pairs:
        pc = np.asarray([a * k + b for a, b in pairs], dtype=np.int64)
        joint = np.bincount(pc, minlength=k * k).reshape(1, k, k)
        joint_b = resampled_counts(pc, k * k, seed=seed, n_resamples=n_resamples).reshape(-1, k, k)
        plug_in = float(mutual_information_bits(adjusted_joint(joint, m))[0])
        resampled = mutual_information_bits(adjusted_joint(joint_b, m_b))
        mi = basic_estimate(plug_in, resampled, pc.size)
    return Adjusted(shares, h, mi, int(confusion.sum()), plug_in)
