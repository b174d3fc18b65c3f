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
