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

The maximum-likelihood shares are the estimate; an entropy or mutual information computed
from them is biased at small n (shares the data cannot tell from 0 end at 0): its
bias-corrected value and interval are :mod:`taiwa.metrics.corrected_estimates`'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

SMOOTHING = 0.01
"""Pseudo-count added to every cell of the confusion counts: keeps a prediction no true label
produced in the validation set from having likelihood 0 (negligible beside real counts)."""

MAX_ITERATIONS = 2000
TOLERANCE = 1e-7
"""The EM iterations stop when no share moves by more than this (or after MAX_ITERATIONS
accelerated steps): the entropy is then within about 1e-4 bits of the maximum-likelihood
one."""


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


def _em_step(p: np.ndarray, m: np.ndarray, q: np.ndarray) -> np.ndarray:
    """One EM update of the true shares ``p`` (``(r, k)``) given the predicted shares ``q``
    and one matrix per row (``(r, k, k)``): ``p_i ← p_i Σ_j M_ij q_j / (pM)_j``."""
    implied = (p[:, None, :] @ m)[:, 0]
    ratio = np.divide(q, implied, out=np.zeros_like(q), where=implied > 0)
    return np.asarray(p * (m @ ratio[:, :, None])[:, :, 0], dtype=np.float64)


def _log_likelihood(p: np.ndarray, m: np.ndarray, q: np.ndarray) -> np.ndarray:
    implied = (p[:, None, :] @ m)[:, 0]
    return np.asarray((q * np.log(np.maximum(implied, 1e-300))).sum(axis=1), dtype=np.float64)


def maximum_likelihood_shares(q: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The shares on the simplex maximising ``Σ_j q_j log (pM)_j`` for each row of ``q``
    (``(r, k)`` predicted shares, each summing to 1) and its matrix (``(r, k, k)``).

    EM (Saerens et al. 2002) accelerated by SQUAREM (Varadhan & Roland 2008: two EM steps
    extrapolated, then one more; the plain double step kept whenever the extrapolation would
    lower the likelihood or leave the simplex), started from the unconstrained solution
    ``q M⁻¹`` clipped into the simplex (where that is a distribution it is the fixed point at
    once). Plain EM needs hundreds of steps for the shares that end on the boundary, which at
    small n with a confused tagger is most rows."""
    k = q.shape[1]
    # q = p M  ⇔  Mᵀ pᵀ = qᵀ, nudged off singular (two acts tagged alike): only a start, and a
    # batched solve costs a fifteenth of a pseudo-inverse
    start = np.linalg.solve(m.transpose(0, 2, 1) + 1e-6 * np.eye(k), q[:, :, None])[:, :, 0]
    p = np.maximum(np.nan_to_num(start, nan=0.0, posinf=0.0, neginf=0.0), 1e-3 / k)
    p /= p.sum(axis=1, keepdims=True)
    active = np.arange(q.shape[0])
    for _ in range(MAX_ITERATIONS):
        if active.size == 0:
            break
        p0, ma, qa = p[active], m[active], q[active]
        p1 = _em_step(p0, ma, qa)
        p2 = _em_step(p1, ma, qa)
        r, v = p1 - p0, p2 - 2 * p1 + p0
        r_norm, v_norm = np.sqrt((r * r).sum(axis=1)), np.sqrt((v * v).sum(axis=1))
        step = np.divide(r_norm, v_norm, out=np.ones_like(r_norm), where=v_norm > 0)
        step = np.maximum(step, 1.0)[:, None]
        jump = p0 + 2 * step * r + step**2 * v
        jump = np.where((jump >= 0).all(axis=1, keepdims=True), jump, p2)
        jump = _em_step(jump / jump.sum(axis=1, keepdims=True), ma, qa)
        worse = _log_likelihood(jump, ma, qa) < _log_likelihood(p2, ma, qa)
        jump[worse] = p2[worse]
        p[active] = jump
        active = active[np.abs(jump - p0).max(axis=1) >= TOLERANCE]
    return np.asarray(p, dtype=np.float64)


def adjusted_shares(predicted: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The true-label shares ``p`` (``(..., k)``) whose predictions ``p M`` best explain the
    predicted counts (``(..., k)``) by maximum likelihood (:func:`maximum_likelihood_shares`);
    ``m`` is ``(k, k)`` or one matrix per leading index (``(r, k, k)``, shared by the middle
    axes). A row without counts gives zeros."""
    shape = predicted.shape
    k = shape[-1]
    q = predicted.astype(np.float64).reshape(-1, k)
    total = q.sum(axis=1, keepdims=True)
    q = np.divide(q, total, out=np.zeros_like(q), where=total > 0)
    mats = m.reshape(-1, k, k)
    # which matrix each flattened row uses: the same one, or one per leading index
    which = np.repeat(np.arange(mats.shape[0]), q.shape[0] // mats.shape[0])
    p = np.zeros_like(q)
    rows = np.flatnonzero(total[:, 0] > 0)
    if rows.size:
        p[rows] = maximum_likelihood_shares(q[rows], mats[which[rows]])
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
