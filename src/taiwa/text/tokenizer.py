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


# One line per morpheme: surface, pos1..pos4, orthBase, lemma (UniDic field numbers). Parsing
# MeCab's own output is several times faster than building fugashi's feature objects.
_FORMAT = (
    r'-O "" -F "%m\t%f[0],%f[1],%f[2],%f[3]\t%f[10]\t%f[7]\n" '
    r'-U "%m\t%f[0],%f[1],%f[2],%f[3]\t\t\n" -E "EOS\n"'
)


@cache
def _tagger() -> Any:
    import fugashi
    import unidic_lite

    return fugashi.GenericTagger(
        f"-d {unidic_lite.DICDIR} -r {unidic_lite.DICDIR}/mecabrc {_FORMAT}"
    )


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
            parsed = tagger.parse(text.replace("\n", " "))
        out = []
        for line in parsed.split("\n"):
            if not line or line == "EOS":
                continue
            surface, pos_field, base, lemma_field = ([*line.split("\t"), "", "", ""])[:4]
            pos = tuple(p for p in pos_field.split(",") if p and p != "*")
            lemma = base if base and base != "*" else surface
            norm = lemma_field.split("-")[0] if lemma_field and lemma_field != "*" else lemma
            out.append(Token(surface, lemma, pos, norm))
        return out

    def tokenize(self, text: str) -> list[str]:
        return [t.surface for t in self.analyze(text) if t.pos1 not in SKIPPED_POS and t.surface]


@cache
def default_tokenizer() -> FugashiTokenizer:
    """The process-wide default tokenizer."""
    return FugashiTokenizer()
