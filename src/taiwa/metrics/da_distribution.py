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
