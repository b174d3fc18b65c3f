"""Morpheme-level features of an utterance for the dialogue-act classifier (seed 002 §5.2 uses
a pretrained encoder; here the pretrained part is the ja-ginza word vectors, DESIGN.md).

One MeCab pass per text (:meth:`~taiwa.text.tokenizer.FugashiTokenizer.map_many`, each distinct
morpheme looked up once per process) gives both:

- the mean ja-ginza word vector of the utterance's words (punctuation left out; looked up by
  normalised form, then lemma, as cohesion does), L2-normalised: zeros when no word has one;
- morpheme keys (``lemma/POS1-POS2``) for the word block (issue 26): the bag of keys, the last
  key, the last two, and the first. The end of a Japanese utterance carries its act
  (終助詞 か/ね/よ, 助動詞 たい/う, て-form requests, ましょう), and morphemes see it whether or
  not the writer put ？ or 。 after it.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

WORD_POS = frozenset(
    {
        "名詞",
        "代名詞",
        "動詞",
        "形容詞",
        "形状詞",
        "副詞",
        "連体詞",
        "接続詞",
        "感動詞",
        "助詞",
        "助動詞",
        "接頭辞",
        "接尾辞",
    }
)
"""UniDic first parts of speech whose words count (not punctuation, symbols or blanks)."""


class _Morph:
    """Token → ``(vector row or -1, morpheme key)``; one instance, so the tokenizer's
    per-function result cache is reused across calls."""

    def __init__(self) -> None:
        from taiwa.resources.vectors import GinzaVectors

        self.vectors = GinzaVectors()

    def __call__(self, token: Any) -> tuple[int, str]:
        from taiwa.resources.association import Word

        row = self.vectors.row(Word(token.lemma, token.norm))
        return row, f"{token.lemma}/{'-'.join(token.pos[:2])}"


@cache
def _morph() -> _Morph:
    return _Morph()


def analysed(texts: Sequence[str]) -> list[list[tuple[int, str]]]:
    """Per text, ``(vector row or -1, key)`` of each word in order."""
    from taiwa.text.tokenizer import default_tokenizer

    return default_tokenizer().map_many(texts, WORD_POS, _morph())


def unit_vectors() -> np.ndarray:
    """The ja-ginza vectors, each row of unit length."""
    unit: np.ndarray = _morph().vectors.unit_vectors
    return unit


def mean_vector(unit: np.ndarray, rows: Sequence[int]) -> np.ndarray | None:
    """The L2-normalised mean of the vectors at ``rows`` (rows < 0 left out); ``None`` when
    none is left or the sum is zero."""
    found = [r for r in rows if r >= 0]
    if not found:
        return None
    v = unit[found].astype(np.float64).sum(axis=0)
    norm = float(np.sqrt(v @ v))
    return v / norm if norm > 0 else None


def mean_vectors(texts: Sequence[str]) -> np.ndarray:
    """``len(texts) × 300`` float64: each text's mean ja-ginza word vector, L2-normalised
    (zeros when none of its words has a vector)."""
    return vectors_of(analysed(texts))


def vectors_of(words: Sequence[Sequence[tuple[int, str]]]) -> np.ndarray:
    """:func:`mean_vectors` of texts already :func:`analysed`."""
    unit = unit_vectors()
    out = np.zeros((len(words), unit.shape[1]), dtype=np.float64)
    for i, w in enumerate(words):
        v = mean_vector(unit, [r for r, _ in w])
        if v is not None:
            out[i] = v
    return out


def word_columns(words: Sequence[tuple[int, str]], bits: int) -> list[int]:
    """The hashed columns (CRC-32 of the UTF-8 key, masked to ``bits``) of one utterance's
    word block: each key, the last, the last two and the first (distinct, sorted)."""
    mask = (1 << bits) - 1
    keys = [k for _, k in words]
    names = [f"w:{k}" for k in keys]
    if keys:
        names += [f"e1:{keys[-1]}", f"b1:{keys[0]}"]
        names.append(f"e2:{keys[-2] if len(keys) > 1 else '^'}|{keys[-1]}")
    else:
        names.append("empty")
    return sorted({zlib.crc32(n.encode("utf-8")) & mask for n in names})
