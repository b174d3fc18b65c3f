"""Lexical cohesion of utterances with their context, seed 003 §2.3 (eqs. 2–4).

An utterance x_i is cohesive when at least one condition holds, each within distance ``d``:

- (a) prior: φ(x_i, p_j) for a prior utterance with i − j ≤ d (eq. 2);
- (b) posterior: φ(x_i, s_k) for a posterior utterance with k − i ≤ d (eq. 3);
- (c) prior × posterior: φ(p_j, s_k) for j < i < k with k − j ≤ d (eq. 4).

φ(x_a, x_b) = 1 when the two utterances share an associated pair of content words and at least
one of them is a human's (never agent–agent, so a fixed script cannot score itself). Besides
associated pairs of distinct words, the same content word in both utterances counts
(reiteration, the first kind of lexical cohesion; DESIGN.md); ``strict=True`` keeps pairs only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from taiwa.resources.association import AssociationResource, Word

HUMAN_ROLES = frozenset({"human", "user"})


@dataclass(frozen=True)
class Link:
    """Why two utterances are cohesive: the words that fired and how."""

    a: int
    b: int
    w1: str
    w2: str
    kind: str  # "reiteration" | "association"
    score: float


@dataclass
class Verdict:
    """The cohesion verdict of one utterance, with the conditions that hold and their evidence."""

    index: int
    role: str
    cohesive: bool
    conditions: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)


def _first_link(
    ia: list[int],
    ib: list[int],
    assoc: np.ndarray,
    score: np.ndarray,
    lemmas: list[str],
    strict: bool,
) -> tuple[str, str, str, float] | None:
    best: tuple[str, str, str, float] | None = None
    for u in ia:
        for v in ib:
            if u == v:
                if not strict:
                    return lemmas[u], lemmas[v], "reiteration", 1.0
            elif assoc[u, v] and (best is None or score[u, v] > best[3]):
                best = (lemmas[u], lemmas[v], "association", float(score[u, v]))
    return best


def cohesive_utterances(
    roles: Sequence[str],
    words: Sequence[Sequence[Word]],
    resource: AssociationResource,
    *,
    d: int = 3,
    strict: bool = False,
) -> list[Verdict]:
    """Per-utterance verdicts for one dialogue (seed 003 §2.3).

    ``roles[i]`` is ``human``/``user`` or ``agent``/``system``; ``words[i]`` are the content words
    of utterance ``i``. Every utterance gets a verdict; the seed evaluates the agent's.
    """
    if len(roles) != len(words):
        raise ValueError(f"{len(roles)} roles but {len(words)} word lists")
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    vocab: dict[str, int] = {}
    forms: list[Word] = []
    index_lists: list[list[int]] = []
    for ws in words:
        idx = []
        for w in ws:
            if w.lemma not in vocab:
                vocab[w.lemma] = len(forms)
                forms.append(w)
            idx.append(vocab[w.lemma])
        index_lists.append(sorted(set(idx)))
    assoc, score = (
        resource.association_matrix(forms) if forms else (np.zeros((0, 0), bool), np.zeros((0, 0)))
    )
    lemmas = [w.lemma for w in forms]
    human = [r in HUMAN_ROLES for r in roles]
    n = len(roles)
    phi: dict[tuple[int, int], Link | None] = {}
    for a in range(n):
        for b in range(a + 1, min(n, a + d + 1)):
            link = None
            if human[a] or human[b]:
                hit = _first_link(index_lists[a], index_lists[b], assoc, score, lemmas, strict)
                if hit is not None:
                    link = Link(a, b, *hit)
            phi[(a, b)] = link
    verdicts = []
    for i in range(n):
        v = Verdict(i, roles[i], False)
        prior = [phi[(j, i)] for j in range(max(0, i - d), i)]
        posterior = [phi[(i, k)] for k in range(i + 1, min(n, i + d + 1))]
        spanning = [
            phi[(j, k)]
            for j in range(max(0, i - d + 1), i)
            for k in range(i + 1, min(n, j + d + 1))
        ]
        for name, links in (("a", prior), ("b", posterior), ("c", spanning)):
            fired = [link for link in links if link is not None]
            if fired:
                v.conditions.append(name)
                v.links.extend(fired)
        v.cohesive = bool(v.conditions)
        verdicts.append(v)
    return verdicts
