"""Is the ordering of two systems by DAE (or DAMI) consistent across test sets? Seed 002 §5.1
"評価に一貫性はあるか", Fig. 3.

Two systems answer the same contexts. Batches of ``b`` items are drawn from the set (without
replacement), *paired*: the same items for both systems. Each batch's DAE of the two systems
(or their DAMI with the contexts' previous acts) is compared, and the share of batches whose
ordering agrees with the ordering on the full set is reported per ``b`` (seed 002: 20,000
repetitions, b = 500, 1,000, 1,500, 2,000 of 6,000 utterances; 2,000 was enough for a
consistent result). A tie on a batch counts as a disagreement.

Sampling contract (what makes results independent of block sizes, and what the tests'
plain-Python reference re-implements): one ``numpy.random.default_rng(seed)``; for each batch
size in the order given, for each repetition in turn, ``n`` uniform keys are drawn and the
batch is the ``b`` items with the smallest keys.

Vectorised: acts become integer codes; per block of repetitions (at most
:data:`BLOCK_ELEMENTS` keys at a time, so memory is bounded) the batch indices come from one
``argpartition``, act counts per batch from one ``bincount`` of the codes offset by the row,
and entropies from the count matrix. DAE of a batch equals
:func:`taiwa.metrics.da_distribution.dae` of its acts.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from taiwa.metrics.da_distribution import (
    act_codes,
    batch_counts,
    dae,
    dami,
    entropy_rows,
    mutual_information_rows,
)
from taiwa.metrics.stats import Z95, Estimate

BATCH_SIZES = (500, 1000, 1500, 2000)
"""Seed 002 §5.1's batch sizes."""

REPETITIONS = 20_000
"""Seed 002 §5.1's repetitions per batch size."""

BLOCK_ELEMENTS = 2_000_000
"""Random keys drawn at a time (16 MB, plus as many batch indices and codes)."""

TIE = 1e-12
"""Scores closer than this (bits) are a tie."""

Metric = Literal["dae", "dami"]


@dataclass(frozen=True)
class ConsistencyPoint:
    """One batch size: the share of batches ordering the systems as the full set does."""

    batch_size: int
    agreement: Estimate
    """Share of agreeing batches, with a 95 % Wilson interval; ``n`` = repetitions."""
    ties: int
    """Batches on which the two systems scored the same (counted as disagreeing)."""


@dataclass(frozen=True)
class Consistency:
    """Seed 002 Fig. 3 for one pair of systems."""

    metric: Metric
    n_items: int
    full_a: float
    full_b: float
    repetitions: int
    seed: int
    points: tuple[ConsistencyPoint, ...]


def consistency(
    acts_a: Sequence[Hashable],
    acts_b: Sequence[Hashable],
    *,
    previous: Sequence[Hashable] | None = None,
    metric: Metric = "dae",
    batch_sizes: Sequence[int] = BATCH_SIZES,
    repetitions: int = REPETITIONS,
    seed: int = 0,
) -> Consistency:
    """How often paired batches of each size order systems A and B as the full set does.

    ``acts_a[i]`` and ``acts_b[i]`` are the acts of the two systems' replies to context ``i``;
    ``previous[i]`` its previous utterance's act (needed for ``metric="dami"``). Raises
    ``ValueError`` for sets of different lengths, a batch size outside 1..n, or systems that
    tie on the full set (there is no ordering to agree with).
    """
    n = len(acts_a)
    if len(acts_b) != n or (previous is not None and len(previous) != n):
        lens = [len(acts_a), len(acts_b)] + ([len(previous)] if previous is not None else [])
        raise ValueError(f"the systems must answer the same contexts: lengths {lens}")
    if n == 0:
        raise ValueError("no items")
    if metric == "dami" and previous is None:
        raise ValueError("metric 'dami' needs the contexts' previous acts (previous=...)")
    if metric not in ("dae", "dami"):
        raise ValueError(f"metric must be 'dae' or 'dami', got {metric!r}")
    if repetitions < 1:
        raise ValueError(f"repetitions must be >= 1, got {repetitions}")
    for b in batch_sizes:
        if b > n:
            raise ValueError(f"batch size {b} is larger than the {n} items of the set")
        if b < 1:
            raise ValueError(f"batch sizes must be >= 1, got {b}")
    if metric == "dae":
        full_a, full_b = dae(acts_a), dae(acts_b)
    else:
        assert previous is not None
        full_a = dami(zip(previous, acts_a, strict=True))
        full_b = dami(zip(previous, acts_b, strict=True))
    if abs(full_a - full_b) <= TIE:
        raise ValueError(f"the systems tie on the full set ({metric} {full_a:.6f} bits)")
    sign = 1.0 if full_a > full_b else -1.0
    columns = (
        [acts_a, acts_b] if previous is None or metric == "dae" else [acts_a, acts_b, previous]
    )
    codes, vocab = act_codes(columns)
    k = len(vocab)
    rng = np.random.default_rng(seed)
    points = []
    for b in batch_sizes:
        agree = ties = 0
        step = max(1, BLOCK_ELEMENTS // n)
        for start in range(0, repetitions, step):
            rows = min(step, repetitions - start)
            idx = np.argpartition(rng.random((rows, n)), b - 1, axis=1)[:, :b]
            if metric == "dae":
                sa = entropy_rows(batch_counts(codes[0], idx, k))
                sb = entropy_rows(batch_counts(codes[1], idx, k))
            else:
                sa = _mutual_information(codes[2], codes[0], idx, k)
                sb = _mutual_information(codes[2], codes[1], idx, k)
            diff = sa - sb
            tie = np.abs(diff) <= TIE
            ties += int(tie.sum())
            agree += int((~tie & (np.sign(diff) == sign)).sum())
        points.append(ConsistencyPoint(b, _wilson(agree, repetitions), ties))
    return Consistency(metric, n, full_a, full_b, repetitions, seed, tuple(points))


def _mutual_information(prev: np.ndarray, reply: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """I(prev; reply) per batch of indices ``idx``."""
    return mutual_information_rows(batch_counts(prev * k + reply, idx, k * k).reshape(-1, k, k))


def _wilson(successes: int, n: int, z: float = Z95) -> Estimate:
    """A proportion with its Wilson score interval: a Monte-Carlo share of n draws, where the
    percentile bootstrap would collapse to [1, 1] at full agreement."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Estimate(p, max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)), n)
