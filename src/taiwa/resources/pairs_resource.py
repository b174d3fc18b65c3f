"""An LLR pair table (``taiwa build cooccurrence`` output) as an association resource."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from taiwa.resources.association import Word


class PairTableResource:
    """Two content words are associated when their (unordered) lemma pair is in the table."""

    def __init__(self, path: str | Path) -> None:
        from taiwa.resources.cooccurrence.table import AssociationPairs

        self.pairs = AssociationPairs(path)
        self.name = f"llr-pairs:{Path(path).name}"

    def association_matrix(self, words: Sequence[Word]) -> tuple[np.ndarray, np.ndarray]:
        n = len(words)
        score = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                value = self.pairs.llr(words[i].lemma, words[j].lemma)
                if value is not None:
                    score[i, j] = score[j, i] = value
        return score > 0, score

    def associated_pairs(self, words: Sequence[Word]) -> list[tuple[int, int, float]]:
        """``(i, j, λ)`` for every ``i != j`` whose lemmas form a pair with λ > 0, sorted by
        ``i`` then ``j`` (the associated entries of :meth:`association_matrix`)."""
        where: dict[str, list[int]] = {}
        for i, w in enumerate(words):
            where.setdefault(w.lemma, []).append(i)
        out: list[tuple[int, int, float]] = []
        for i, w in enumerate(words):
            found: list[tuple[int, float]] = []
            partners = self.pairs.partners(w.lemma)
            for partner in partners if len(partners) <= len(where) else where:
                js = where.get(partner) if partner in partners else None
                if js:
                    llr = self.pairs.llr(w.lemma, partner)
                    if llr is not None and llr > 0:
                        found.extend((j, llr) for j in js)
            found.sort()
            out.extend((i, j, s) for j, s in found)
        return out
