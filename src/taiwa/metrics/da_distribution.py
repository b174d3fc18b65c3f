"""Dialogue-act distribution metrics over all of a system's replies (seed 002).

DAE is the entropy of the reply acts and DAMI the mutual information between the act of the
previous utterance and the act of the reply, both in bits (seed 002 §4, App. C; base 2 as
DESIGN.md decides). Distinct-n is the lexical baseline the seed compares against (§1, Table 2).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from taiwa.text.tokenizer import Tokenizer, default_tokenizer


def entropy_bits(counts: Iterable[int] | np.ndarray) -> float:
    """Shannon entropy, in bits, of a distribution given by counts (zero counts contribute 0)."""
    c = np.asarray(list(counts) if not isinstance(counts, np.ndarray) else counts, dtype=float)
    c = c[c > 0]
    if c.size == 0:
        return 0.0
    p = c / c.sum()
    return float(-(p * np.log2(p)).sum()) + 0.0


def dae(acts: Iterable[Hashable]) -> float:
    """Dialogue Act Entropy, seed 002 App. C eq. (1): ``-Σ p(a) log2 p(a)`` over reply acts.

    A system that always uses the same act (e.g. おうむ返し) scores 0. Empty input gives 0.
    """
    return entropy_bits(Counter(acts).values())


def dami(pairs: Iterable[tuple[Hashable, Hashable]]) -> float:
    """Dialogue Act Mutual Information, seed 002 App. C eqs. (2)–(3), in bits.

    ``pairs`` are ``(previous_act, reply_act)``. DAMI = H(reply) − H(reply | previous): how much
    the act of the utterance replied to tells about the act of the reply. Empty input gives 0.
    """
    joint = Counter(pairs)
    if not joint:
        return 0.0
    reply = Counter[Hashable]()
    prev = Counter[Hashable]()
    for (a, b), c in joint.items():
        prev[a] += c
        reply[b] += c
    h_reply = entropy_bits(reply.values())
    total = sum(joint.values())
    h_cond = 0.0
    for a, n_a in prev.items():
        row = [c for (x, _), c in joint.items() if x == a]
        h_cond += n_a / total * entropy_bits(row)
    return max(0.0, h_reply - h_cond)


def distinct(texts: Iterable[str], n: int = 1, *, tokenizer: Tokenizer | None = None) -> float:
    """Distinct-n: distinct n-grams / all n-grams over every reply of a system (Li et al. 2016).

    Japanese is tokenised with ``tokenizer`` (default: fugashi + unidic-lite surface forms).
    Replies shorter than ``n`` tokens contribute nothing; no n-gram at all gives 0.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    tok = tokenizer or default_tokenizer()
    grams: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        tokens = tok.tokenize(text)
        grams.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    total = sum(grams.values())
    return len(grams) / total if total else 0.0


@dataclass(frozen=True)
class TransitionLift:
    """``lift[i, j] = P(next = labels[j] | prev = labels[i]) / P(next = labels[j])``.

    Seed 002 §3.4, Fig. 2: above 1, act ``j`` follows act ``i`` more often than it occurs
    overall. Rows of acts never seen as ``prev`` and columns never seen as ``next`` are NaN.
    """

    labels: tuple[str, ...]
    lift: np.ndarray
    counts: np.ndarray


def transition_lift(
    pairs: Iterable[tuple[str, str]], labels: Sequence[str] | None = None
) -> TransitionLift:
    """Seed 002 §3.4's prior-corrected transition matrix from ``(prev_act, next_act)`` pairs."""
    pairs = list(pairs)
    names = tuple(labels) if labels is not None else tuple(sorted({a for p in pairs for a in p}))
    index = {a: k for k, a in enumerate(names)}
    counts = np.zeros((len(names), len(names)))
    for a, b in pairs:
        if a not in index or b not in index:
            raise ValueError(f"act pair {(a, b)!r} has an act outside labels {names}")
        counts[index[a], index[b]] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        cond = counts / counts.sum(axis=1, keepdims=True)
        prior = counts.sum(axis=0) / counts.sum()
        lift = cond / prior[None, :]
    lift[:, prior == 0] = np.nan
    return TransitionLift(names, lift, counts)


# ------------------------------------------------------------------ vectorised (many batches)


def act_codes(
    columns: Sequence[Sequence[Hashable]], labels: Sequence[Hashable] = ()
) -> tuple[list[np.ndarray], tuple[Hashable, ...]]:
    """Integer codes of acts over one shared vocabulary (``labels`` first, in their order, then
    any other act in order of appearance) and that vocabulary."""
    vocab: dict[Hashable, int] = {a: k for k, a in enumerate(labels)}
    out = [
        np.array([vocab.setdefault(a, len(vocab)) for a in col], dtype=np.int64) for col in columns
    ]
    return out, tuple(vocab)


def batch_counts(codes: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    """Code counts per batch: ``(rows, k)`` from batch indices ``(rows, b)`` into ``codes``."""
    rows = idx.shape[0]
    offset = (np.arange(rows, dtype=np.int64) * k)[:, None]
    return np.bincount((codes[idx] + offset).ravel(), minlength=rows * k).reshape(rows, k)


def entropy_rows(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of each row of counts (``log2 N − Σ c log2 c / N``; an empty row: 0)."""
    c = counts.astype(np.float64)
    total = c.sum(axis=1)
    safe = np.maximum(total, 1.0)
    h = np.log2(safe) - (c * np.log2(np.maximum(c, 1.0))).sum(axis=1) / safe
    return np.asarray(np.where(total > 0, np.maximum(h, 0.0), 0.0), dtype=np.float64)


def mutual_information_rows(joint: np.ndarray) -> np.ndarray:
    """``I(prev; reply) = H(prev) + H(reply) − H(prev, reply)`` in bits for each joint count
    matrix of a ``(rows, k, k)`` stack (prev on axis 1), clipped at 0: :func:`dami` per row."""
    rows, k, _ = joint.shape
    h = entropy_rows(joint.sum(axis=2)) + entropy_rows(joint.sum(axis=1))
    h -= entropy_rows(joint.reshape(rows, k * k))
    return np.asarray(np.maximum(0.0, h), dtype=np.float64)


def resampled_counts(
    codes: np.ndarray, k: int, *, seed: int = 0, n_resamples: int = 2000
) -> np.ndarray:
    """``(n_resamples, k)``: the code counts of each bootstrap resample of ``codes``.

    The resamples are those :func:`taiwa.metrics.stats.bootstrap_ci` draws for as many items and
    ``seed`` (NumPy's bounded-integer stream does not depend on how the draws are blocked), in
    blocks of about a million indices, so memory stays bounded for any n."""
    n = codes.size
    out = np.zeros((n_resamples, k), dtype=np.int64)
    if n == 0:
        return out
    rng = np.random.default_rng(seed)
    step = max(1, 1_000_000 // n)
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        out[start : start + rows] = batch_counts(codes, rng.integers(0, n, size=(rows, n)), k)
    return out
