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
