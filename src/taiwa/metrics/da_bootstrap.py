"""Seed 002's metrics of a system's replies with their n and 95 % bootstrap CIs, vectorised.

One system's replies are resampled with replacement (the resamples of
:func:`taiwa.metrics.stats.bootstrap_ci` for as many items and the seed); from each resample's
act counts come its DAE and the share of every act (Table 1), from its (previous act, act)
counts its DAMI and the transition lift of every cell (§3.4, Fig. 2; App. C). No Python loop
runs per resample: 2,000 resamples of 100,000 replies take a few seconds (the draws
themselves). Distinct-n gets a delete-one jackknife interval instead (see
:func:`distinct_estimate`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from taiwa.metrics.da_distribution import (
    act_codes,
    entropy_rows,
    mutual_information_rows,
    resampled_counts,
)
from taiwa.metrics.stats import N_RESAMPLES, Z95, Estimate, percentile_estimate


@dataclass(frozen=True)
class ActDistribution:
    """DAE, DAMI, act shares and transition lift of one system, each with n and a 95 % CI
    (DAMI's from the jackknife, see :func:`dami_jackknife`).

    ``labels`` are the acts in table order; ``counts[j]`` replies have act ``labels[j]``;
    ``joint[i, j]`` replies with act ``j`` answer an utterance of act ``i``; ``lift`` and its
    interval bounds are ``P(j | i) / P(j)`` per cell (NaN where undefined)."""

    labels: tuple[str, ...]
    dae: Estimate
    dami: Estimate
    shares: tuple[Estimate, ...]
    counts: np.ndarray
    joint: np.ndarray
    lift: np.ndarray
    lift_low: np.ndarray
    lift_high: np.ndarray
    dami_bias: float = float("nan")
    """The jackknife estimate of the plug-in DAMI's upward bias at this n (bits)."""


def _lift(joint: np.ndarray) -> np.ndarray:
    """``P(next | prev) / P(next)`` of each ``(rows, k, k)`` joint count matrix."""
    with np.errstate(invalid="ignore", divide="ignore"):
        total = joint.sum(axis=(1, 2))[:, None, None]
        cond = joint / joint.sum(axis=2, keepdims=True)
        prior = joint.sum(axis=1, keepdims=True) / total
        out = cond / prior
    return np.asarray(out, dtype=np.float64)


def act_distribution(
    acts: Sequence[str],
    previous: Sequence[str | None],
    labels: Sequence[str],
    *,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
) -> ActDistribution:
    """The distribution block of one system: ``acts[i]`` is the act of reply ``i`` and
    ``previous[i]`` the act of the utterance it answers (``None``: unknown, left out of DAMI
    and the transitions). Acts outside ``labels`` are added after them."""
    if len(previous) != len(acts):
        raise ValueError(f"{len(acts)} acts but {len(previous)} previous acts")
    if not acts:
        none = Estimate(float("nan"), float("nan"), float("nan"), 0)
        k0 = len(labels)
        nan = np.full((k0, k0), np.nan)
        zero = np.zeros((k0, k0), dtype=np.int64)
        return ActDistribution(
            tuple(labels), none, none, (none,) * k0, zero[0], zero, nan, nan, nan
        )
    (codes, prev), vocab = act_codes([acts, [p for p in previous if p is not None]], labels)
    k = len(vocab)
    # one resampling of (previous, act) cells; an unknown previous act is row k
    rows = np.full(len(acts), k, dtype=np.int64)
    rows[[i for i, p in enumerate(previous) if p is not None]] = prev
    cells = resampled_counts(rows * k + codes, (k + 1) * k, seed=seed, n_resamples=n_resamples)
    boot_joint = cells.reshape(n_resamples, k + 1, k)
    whole = np.bincount(rows * k + codes, minlength=(k + 1) * k).reshape(k + 1, k)
    counts, joint = whole.sum(axis=0), whole[:k]
    boot, jboot = boot_joint.sum(axis=1), boot_joint[:, :k]
    n = len(acts)
    dae = percentile_estimate(float(entropy_rows(counts[None, :])[0]), entropy_rows(boot), n)
    with np.errstate(invalid="ignore", divide="ignore"):
        share_boot = boot / n
    shares = tuple(
        percentile_estimate(counts[j] / n if n else float("nan"), share_boot[:, j], n)
        for j in range(k)
    )
    dami, dami_bias = dami_jackknife(joint)
    lift = _lift(joint[None].astype(np.float64))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN cells stay NaN
        boot_lift = _lift(jboot.astype(np.float64))
        low, high = np.nanquantile(
            np.where(np.isfinite(boot_lift), boot_lift, np.nan), [0.025, 0.975], axis=0
        )
    return ActDistribution(
        tuple(str(a) for a in vocab), dae, dami, shares, counts, joint, lift, low, high, dami_bias
    )


def dami_jackknife(joint: np.ndarray) -> tuple[Estimate, float]:
    """DAMI of a (previous act × act) count matrix with a 95 % delete-one jackknife interval,
    and the jackknife estimate of its bias.

    The plug-in mutual information the seed defines (App. C) is biased upward by roughly
    ``(k − 1)² / (2 N ln 2)`` bits: about 0.3 bits for 11 acts and 240 replies, 0.01 at the
    seed's 6,000. A bootstrap resample adds the same bias again, so its percentile interval
    can lie wholly above the point. Deleting one reply of cell ``(p, r)`` lowers that cell, row
    ``p``, column ``r`` and N by one; replies of one cell share the deleted value, so the n
    jackknife values come from one computation per non-empty cell."""
    c = np.asarray(joint, dtype=np.float64)
    m = int(c.sum())
    if m == 0:
        return Estimate(float("nan"), float("nan"), float("nan"), 0), float("nan")
    point = float(mutual_information_rows(c[None])[0])
    if m < 2:
        return Estimate(point, float("nan"), float("nan"), m), float("nan")

    def xlogx(x: np.ndarray | float) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        return np.asarray(x * np.log2(np.maximum(x, 1.0)))

    rows, cols = c.sum(axis=1), c.sum(axis=0)
    s_joint, s_rows, s_cols = xlogx(c).sum(), xlogx(rows).sum(), xlogx(cols).sum()
    p, r = np.nonzero(c)
    cell = c[p, r]
    # I = log2 N − (S_rows + S_cols − S_joint) / N, with each sum after the deletion
    sj = s_joint - xlogx(cell) + xlogx(cell - 1)
    sr = s_rows - xlogx(rows[p]) + xlogx(rows[p] - 1)
    sc = s_cols - xlogx(cols[r]) + xlogx(cols[r] - 1)
    n1 = m - 1
    loo = np.maximum(0.0, np.log2(n1) - (sr + sc - sj) / n1)
    mean = float((loo * cell).sum() / m)
    var = float((m - 1) / m * (cell * (loo - mean) ** 2).sum())
    half = Z95 * var**0.5
    bias = (m - 1) * (mean - point)
    return Estimate(point, max(0.0, point - half), point + half, m), float(bias)


DAMI_FLOOR = 50
"""Below this many (previous act, act) pairs DAMI's plug-in estimate is noted as biased
whatever its jackknife bias says (an 11-act matrix has 121 cells)."""

DISTINCT_FLOOR = 20
"""Below this many replies Distinct-n is noted as biased whatever its jackknife bias says."""

PLUG_IN_FLOORS = {"dami": DAMI_FLOOR, "distinct1": DISTINCT_FLOOR, "distinct2": DISTINCT_FLOOR}
"""The plug-in estimates with a known bias, by summary key, and their floors of n."""


def distinct_estimate(tokens: Sequence[Sequence[str]], n: int) -> Estimate:
    """Distinct-n with its jackknife interval (:func:`distinct_with_bias`)."""
    return distinct_with_bias(tokens, n)[0]


def distinct_with_bias(tokens: Sequence[Sequence[str]], n: int) -> tuple[Estimate, float]:
    """Distinct-n (:func:`taiwa.metrics.da_distribution.distinct`) over replies given as token
    lists, with a 95 % delete-one jackknife interval over replies, and the jackknife estimate
    of its bias (NaN under 2 replies).

    Not a bootstrap, unlike every other interval here: a bootstrap resample repeats about a
    third of the replies, and a repeated reply adds n-grams but no new ones, so resampled
    Distinct falls far below the full set's (on 80 replies the whole percentile interval lay
    under the point). Removing reply ``i`` removes its n-grams no other reply holds and its
    length from the total; the jackknife standard error of those n values gives
    ``value ± 1.96 SE`` (clipped to [0, 1])."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    vocab: dict[tuple[str, ...], int] = {}
    holders: list[np.ndarray] = []  # per reply: the ids of its distinct n-grams
    lengths = np.zeros(len(tokens), dtype=np.float64)
    for r, toks in enumerate(tokens):
        grams = [tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)]
        lengths[r] = len(grams)
        holders.append(np.unique([vocab.setdefault(g, len(vocab)) for g in grams]).astype(np.int64))
    total, unique, replies = float(lengths.sum()), len(vocab), len(tokens)
    point = unique / total if total else 0.0
    if replies < 2 or not total:
        return Estimate(point, float("nan"), float("nan"), replies), float("nan")
    owners = np.bincount(np.concatenate(holders), minlength=unique)  # replies holding each
    only = np.array([int((owners[h] == 1).sum()) for h in holders], dtype=np.float64)
    rest = total - lengths
    with np.errstate(invalid="ignore", divide="ignore"):
        loo = np.where(rest > 0, (unique - only) / rest, 0.0)
    se = float(np.sqrt((replies - 1) / replies * ((loo - loo.mean()) ** 2).sum()))
    bias = float((replies - 1) * (loo.mean() - point))  # the jackknife estimate of its bias
    est = Estimate(point, max(0.0, point - Z95 * se), min(1.0, point + Z95 * se), replies)
    return est, bias
