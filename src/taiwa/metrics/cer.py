"""Character error rate of a transcript against the text that was spoken (the ASR stage of a
cascaded speech system, seed 000 §4: the systems hear audio rendered from the input text).

Both texts are NFKC-normalised and stripped of punctuation (brackets and quotes included) and
whitespace before comparison: Whisper punctuates and spaces freely,
and a 「、」 is not a recognition error. CER = (substitutions + deletions + insertions) /
reference characters (Levenshtein distance over characters).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from taiwa.text.normalize import nfkc


def cer_normalise(text: str) -> str:
    """NFKC, then every punctuation (Unicode P*), separator (Z*) and control (Cc) character
    removed."""
    return "".join(
        ch for ch in nfkc(text) if unicodedata.category(ch)[0] not in "PZ" and ch.isprintable()
    )


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance between two strings (unit costs), in O(len(a)·len(b)) time and
    O(min) memory."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


@dataclass(frozen=True)
class CharErrors:
    """Character edits of one transcript and the reference's length (after normalisation)."""

    errors: int
    reference_chars: int

    @property
    def rate(self) -> float:
        """errors / reference characters; an empty reference scores 0 for an empty transcript
        and 1 otherwise."""
        if self.reference_chars == 0:
            return 0.0 if self.errors == 0 else 1.0
        return self.errors / self.reference_chars


def char_errors(hypothesis: str, reference: str) -> CharErrors:
    """The edits turning the normalised ``reference`` into the normalised ``hypothesis``."""
    hyp, ref = cer_normalise(hypothesis), cer_normalise(reference)
    return CharErrors(edit_distance(hyp, ref), len(ref))


def cer(hypothesis: str, reference: str) -> float:
    """Character error rate of ``hypothesis`` against ``reference`` (see :class:`CharErrors`)."""
    return char_errors(hypothesis, reference).rate
