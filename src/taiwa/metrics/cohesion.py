"""Lexical cohesion of utterances with their context, seed 003 §2.3 (eqs. 2–4).

An utterance x_i is cohesive when at least one condition holds, each within distance ``d``:

- (a) prior: φ(x_i, p_j) for a prior utterance with i − j ≤ d (eq. 2);
- (b) posterior: φ(x_i, s_k) for a posterior utterance with k − i ≤ d (eq. 3);
- (c) prior × posterior: φ(p_j, s_k) for j < i < k with k − j ≤ d (eq. 4).

φ(x_a, x_b) = 1 when the two utterances share an associated pair of content words and at least
one of them is a human's (never agent–agent, so a fixed script cannot score itself). Besides
associated pairs of distinct words, the same content word in both utterances counts
(reiteration, the first kind of lexical cohesion; DESIGN.md); ``strict=True`` keeps pairs only.

The seed counts an utterance cohesive when any of (a)–(c) holds; ``conditions`` selects a subset
(the verdict still lists every condition that holds, so per-condition shares can be reported).

φ is worked out once per dialogue for every pair of utterances within ``d`` (seed 003 Fig. 1),
word by word: each lemma links the utterances it occurs in, and each associated pair of the
dialogue's distinct content words (listed by the resource, or read off its matrix) links the
utterances of its two words; associations are sparse, so this is much cheaper than a loop over
pairs of utterances and their pairs of words.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from taiwa.resources.association import AssociationResource, Word, associated_pairs

HUMAN_ROLES = frozenset({"human", "user"})

CONDITIONS = ("a", "b", "c")
"""The seed's three conditions (§2.3): (a) prior, (b) posterior, (c) prior × posterior."""


@dataclass(frozen=True, slots=True)
class Link:
    """Why two utterances are cohesive: the words that fired and how."""

    a: int
    b: int
    w1: str
    w2: str
    kind: str  # "reiteration" | "association"
    score: float


@dataclass(slots=True)
class Verdict:
    """The cohesion verdict of one utterance, with the conditions that hold and their evidence.

    ``conditions`` lists every condition that holds (in the order a, b, c) and ``links`` their
    evidence in the same order; ``cohesive`` is whether one of the *selected* conditions holds.
    """

    index: int
    role: str
    cohesive: bool
    conditions: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)


def check_conditions(conditions: Collection[str]) -> frozenset[str]:
    """The selected conditions as a set; a non-empty subset of a, b, c (seed 003 §2.3)."""
    if isinstance(conditions, str):
        conditions = list(conditions)
    chosen = frozenset(conditions)
    unknown = sorted(chosen - set(CONDITIONS))
    if unknown or not chosen:
        raise ValueError(
            f"conditions must be a non-empty subset of a, b, c; got {sorted(conditions)!r}"
        )
    return chosen


def _vocabulary(words: Sequence[Sequence[Word]]) -> tuple[list[Word], list[list[int]]]:
    """Distinct lemmas in order of first appearance (their first form), and for each the
    utterances it occurs in (ascending)."""
    vocab: dict[str, int] = {}
    forms: list[Word] = []
    places: list[list[int]] = []
    for i, ws in enumerate(words):
        for w in ws:
            k = vocab.get(w.lemma)
            if k is None:
                vocab[w.lemma] = len(forms)
                forms.append(w)
                places.append([i])
            elif places[k][-1] != i:
                places[k].append(i)
    return forms, places


def links_within(
    roles: Sequence[str],
    words: Sequence[Sequence[Word]],
    resource: AssociationResource,
    *,
    d: int = 3,
    strict: bool = False,
) -> dict[tuple[int, int], Link]:
    """φ of seed 003 §2.3 for every pair of utterances ``a < b`` with ``b − a ≤ d``: the pairs
    where φ = 1 (at least one of the two is a human's), in order, each with its evidence.

    The evidence is the first shared lemma (lemmas in order of first appearance in the dialogue)
    when reiteration counts, else the associated pair with the highest score, ties going to the
    first in that order (by the word of ``a``, then by the word of ``b``). Worked out word by
    word: a lemma links the utterances it occurs in, an associated pair those of its two words.
    """
    if len(roles) != len(words):
        raise ValueError(f"{len(roles)} roles but {len(words)} word lists")
    if d < 1:
        raise ValueError(f"d must be >= 1, got {d}")
    forms, places = _vocabulary(words)
    if not forms:
        return {}
    human = [r in HUMAN_ROLES for r in roles]
    lemmas = [w.lemma for w in forms]
    fired: dict[tuple[int, int], Link] = {}
    if not strict:
        for u, at in enumerate(places):  # in order of u: the first shared lemma wins
            for x in range(len(at) - 1):
                a = at[x]
                for b in at[x + 1 :]:
                    if b - a > d:
                        break
                    if (human[a] or human[b]) and (a, b) not in fired:
                        fired[(a, b)] = Link(a, b, lemmas[u], lemmas[u], "reiteration", 1.0)
    best: dict[tuple[int, int], tuple[int, int, float]] = {}
    for u, v, s in associated_pairs(resource, forms):  # sorted by u, then v
        for a in places[u]:
            for b in places[v]:
                if a < b <= a + d and (human[a] or human[b]) and (a, b) not in fired:
                    seen = best.get((a, b))
                    if seen is None or s > seen[2]:
                        best[(a, b)] = (u, v, s)
    for (a, b), (u, v, s) in best.items():
        fired[(a, b)] = Link(a, b, lemmas[u], lemmas[v], "association", float(s))
    return dict(sorted(fired.items()))


def cohesive_utterances(
    roles: Sequence[str],
    words: Sequence[Sequence[Word]],
    resource: AssociationResource,
    *,
    d: int = 3,
    strict: bool = False,
    conditions: Collection[str] = CONDITIONS,
) -> list[Verdict]:
    """Per-utterance verdicts for one dialogue (seed 003 §2.3, eqs. 2–4).

    ``roles[i]`` is ``human``/``user`` or ``agent``/``system``; ``words[i]`` are the content words
    of utterance ``i``. Every utterance gets a verdict; the seed evaluates the agent's. An
    utterance is ``cohesive`` when one of the selected ``conditions`` holds (the seed: any).
    """
    selected = check_conditions(conditions)
    fired = links_within(roles, words, resource, d=d, strict=strict)
    n = len(roles)
    # φ(x_a, x_b) = 1 (a < b) is evidence for (a) of b, (b) of a and (c) of every utterance
    # strictly between them; visiting the pairs by a, then b, keeps each list in the order of
    # eqs. 2–4 (prior j ascending; posterior k ascending; spanning j, then k ascending)
    prior: dict[int, list[Link]] = {}
    posterior: dict[int, list[Link]] = {}
    spanning: dict[int, list[Link]] = {}
    for (a, b), link in fired.items():
        prior.setdefault(b, []).append(link)
        posterior.setdefault(a, []).append(link)
        for i in range(a + 1, b):
            spanning.setdefault(i, []).append(link)
    none: list[Link] = []
    verdicts = []
    for i in range(n):
        p, q, r = prior.get(i, none), posterior.get(i, none), spanning.get(i, none)
        if not (p or q or r):
            verdicts.append(Verdict(i, roles[i], False, [], []))
            continue
        names: list[str] = []
        if p:
            names.append("a")
        if q:
            names.append("b")
        if r:
            names.append("c")
        verdicts.append(Verdict(i, roles[i], not selected.isdisjoint(names), names, p + q + r))
    return verdicts
