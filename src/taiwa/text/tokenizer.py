"""The one-method :class:`Tokenizer` protocol and its default, fugashi + unidic-lite.

The protocol is what ``rouge-score`` expects of a tokenizer (``tokenize(text) -> list[str]``),
so the same object is passed to every pure scorer. :class:`MorphAnalyzer` adds lemmas and
parts of speech for content words (seed 003 §2.2). The MeCab tagger is built once per process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, runtime_checkable

from taiwa.text.normalize import nfkc

SKIPPED_POS = frozenset({"補助記号", "空白", "記号"})
"""Parts of speech that :meth:`FugashiTokenizer.tokenize` leaves out (punctuation, spaces)."""


@dataclass(frozen=True, slots=True)
class Token:
    """One morpheme: surface form, lemma (UniDic ``orthBase``, else the surface), POS, and
    ``norm``: UniDic's ``lemma`` without its English gloss (りんご → 林檎, タイマー-timer →
    タイマー), the closest UniDic has to Sudachi's normalized form."""

    surface: str
    lemma: str
    pos: tuple[str, ...]
    norm: str = ""

    @property
    def pos1(self) -> str:
        return self.pos[0] if self.pos else ""


@runtime_checkable
class Tokenizer(Protocol):
    """Anything that splits text into tokens (the interface rouge-score uses)."""

    def tokenize(self, text: str) -> list[str]: ...


@runtime_checkable
class MorphAnalyzer(Tokenizer, Protocol):
    """A tokenizer that also gives lemmas and parts of speech."""

    def analyze(self, text: str) -> list[Token]: ...


_LOCK = threading.Lock()


@cache
def _tagger() -> Any:
    import fugashi
    import unidic_lite

    return fugashi.Tagger(f"-d {unidic_lite.DICDIR}")


class FugashiTokenizer:
    """MeCab (fugashi) with unidic-lite; NFKC-normalises first unless ``normalize=False``.

    ``tokenize`` returns surface forms without punctuation and white space; ``analyze``
    returns every morpheme with its lemma and POS. The lemma is UniDic's ``orthBase``
    (its ``lemma`` field carries English glosses on loanwords, e.g. ``タイマー-timer``).
    """

    def __init__(self, *, normalize: bool = True) -> None:
        self.normalize = normalize

    def analyze(self, text: str) -> list[Token]:
        if self.normalize:
            text = nfkc(text)
        tagger = _tagger()
        with _LOCK:
            words = tagger(text)
            out = []
            for w in words:
                f = w.feature
                pos = tuple(p for p in (f.pos1, f.pos2, f.pos3, f.pos4) if p and p != "*")
                base = f.orthBase
                lemma = base if base and base != "*" else w.surface
                norm = f.lemma.split("-")[0] if f.lemma and f.lemma != "*" else lemma
                out.append(Token(w.surface, lemma, pos, norm))
        return out

    def tokenize(self, text: str) -> list[str]:
        return [t.surface for t in self.analyze(text) if t.pos1 not in SKIPPED_POS and t.surface]


@cache
def default_tokenizer() -> FugashiTokenizer:
    """The process-wide default tokenizer."""
    return FugashiTokenizer()
