"""The word-association interface used by the cohesion scorer (seed 003 §2.3).

A resource answers, for the distinct content words of one dialogue, which pairs are associated
(and how strongly). The LLR pair table mined from a corpus (seed 003 §2.2) and the embedded
word-vector default are interchangeable behind it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True, slots=True)
class Word:
    """A content word: its lemma (UniDic orthBase) and its normalised dictionary form."""

    lemma: str
    norm: str


class AssociationResource(Protocol):
    """Which of a dialogue's distinct content words are associated."""

    name: str

    def association_matrix(self, words: Sequence[Word]) -> tuple[np.ndarray, np.ndarray]:
        """``(associated, score)``: two ``len(words)``-square arrays (bool, float).

        The diagonal is not used (reiteration of the same word is the scorer's business).
        """
        ...


class PairListingResource(AssociationResource, Protocol):
    """A resource that can also list its associated pairs directly (the scorer's fast path;
    associations are sparse, so this is much cheaper than a dense matrix)."""

    def associated_pairs(self, words: Sequence[Word]) -> list[tuple[int, int, float]]:
        """``(i, j, score)`` for every ``i != j`` where ``association_matrix(words)`` says
        associated, with that score, sorted by ``i`` then ``j``."""
        ...


def associated_pairs(
    resource: AssociationResource, words: Sequence[Word]
) -> list[tuple[int, int, float]]:
    """The associated pairs of ``words`` (see :meth:`PairListingResource.associated_pairs`),
    from the resource's own listing when it has one, else from its matrix."""
    lister = getattr(resource, "associated_pairs", None)
    if lister is not None:
        pairs: list[tuple[int, int, float]] = lister(words)
        return pairs
    if not words:
        return []
    assoc, score = resource.association_matrix(words)
    iu, iv = np.nonzero(np.asarray(assoc, dtype=bool))
    keep = iu != iv
    iu, iv = iu[keep], iv[keep]
    return list(zip(iu.tolist(), iv.tolist(), np.asarray(score)[iu, iv].tolist(), strict=True))
