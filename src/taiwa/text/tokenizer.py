"""The one-method :class:`Tokenizer` protocol and its default, fugashi + unidic-lite.

The protocol is what ``rouge-score`` expects of a tokenizer (``tokenize(text) -> list[str]``),
so the same object is passed to every pure scorer. :class:`MorphAnalyzer` adds lemmas and
parts of speech for content words (seed 003 §2.2). The MeCab tagger is built once per process.
"""

from __future__ import annotations

import csv
import re
import threading
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol, TypeVar, runtime_checkable

from taiwa.text.normalize import nfkc

T = TypeVar("T")

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


CHUNK_CHARS = 4_096
"""Texts longer than this are handed to MeCab in pieces of at most this many characters, cut
after a sentence end or a line break where there is one (else at this size): MeCab crashes the
process on texts of about a million characters, and a piece of a few thousand costs the same
per character as a whole text."""

_SENTENCE_END = re.compile(r"[。．.！!？?\n]")


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """``text`` cut into pieces of at most ``size`` characters, each ending at the last
    sentence end or line break inside it when there is one; ``"".join`` gives ``text`` back."""
    if len(text) <= size:
        return [text]
    out = []
    start = 0
    while len(text) - start > size:
        window = text[start : start + size]
        ends = [m.end() for m in _SENTENCE_END.finditer(window)]
        cut = ends[-1] if ends else size
        out.append(text[start : start + cut])
        start += cut
    out.append(text[start:])
    return out


_LOCK = threading.RLock()  # a MeCab tagger is not thread-safe; map_many's fn may analyze too


# One line per morpheme: pos1..pos4, surface, orthBase, lemma (UniDic field numbers), each after
# a newline (the BOS format is one). Parsing MeCab's own output is several times faster than
# building fugashi's feature objects.
_FORMAT = (
    r'-O "" -B "\n" -F "%f[0],%f[1],%f[2],%f[3]\t%m\t%f[10]\t%f[7]\n" '
    r'-U "%f[0],%f[1],%f[2],%f[3]\t%m\t\t\n" -E "EOS\n"'
)

# The content-word fast path (FugashiTokenizer.map_many) asks instead for each known morpheme's
# raw feature string (%H) and its surface: MeCab then never splits a feature string into fields
# (most of its formatting time); only the lines kept are split, in Python, once per distinct
# line. Unknown words have no orthBase or lemma: their lines hold pos1..pos4 only.
_FEATURE_FORMAT = r'-O "" -B "\n" -F "%H\t%m\n" -U "%f[0],%f[1],%f[2],%f[3]\t%m\n" -E "EOS\n"'

_CACHE_SIZE = 1 << 18
"""Distinct output lines whose token (or result, in map_many) is kept; a cache is emptied when
full. A line holds everything its token is made of, so the same line always gives the same."""

_tokens: dict[str, Token] = {}
"""Output line of :data:`_FORMAT` → its token."""

_results: dict[Callable[[Token], Any], dict[str, Any]] = {}
"""Per function given to :meth:`FugashiTokenizer.map_many`: output line → its result."""


@cache
def _tagger() -> Any:
    return _mecab(_FORMAT)


@cache
def _feature_tagger() -> Any:
    return _mecab(_FEATURE_FORMAT)


def _mecab(output_format: str) -> Any:
    import fugashi
    import unidic_lite

    return fugashi.GenericTagger(
        f"-d {unidic_lite.DICDIR} -r {unidic_lite.DICDIR}/mecabrc {output_format}"
    )


def _made_token(surface: str, pos_fields: Iterable[str], base: str, lemma_field: str) -> Token:
    pos = tuple(p for p in pos_fields if p and p != "*")
    lemma = base if base and base != "*" else surface
    norm = lemma_field.split("-")[0] if lemma_field and lemma_field != "*" else lemma
    return Token(surface, lemma, pos, norm)


def _token(line: str) -> Token:
    """The token of one line of :data:`_FORMAT` output (cached)."""
    token = _tokens.get(line)
    if token is None:
        pos_field, surface, base, lemma_field = ([*line.split("\t"), "", "", ""])[:4]
        token = _made_token(surface, pos_field.split(","), base, lemma_field)
        if len(_tokens) >= _CACHE_SIZE:
            _tokens.clear()
        _tokens[line] = token
    return token


def _feature_token(line: str) -> Token:
    """The token of one line of :data:`_FEATURE_FORMAT` output: the same as :func:`_token`
    makes of the morpheme's :data:`_FORMAT` line (fields may be quoted, as in CSV)."""
    feature, surface = line.rsplit("\t", 1)
    fields = next(csv.reader([feature])) if '"' in feature else feature.split(",")
    fields += [""] * (11 - len(fields))
    return _made_token(surface, fields[:4], fields[10], fields[7])


def _results_of(fn: Callable[[Token], Any]) -> dict[str, Any]:
    found = _results.get(fn)
    if found is None:
        if len(_results) >= 8:  # a few functions in use at a time; forget the oldest
            del _results[next(iter(_results))]
        found = _results[fn] = {}
    return found


def _same(token: Token) -> Token:
    return token


@cache
def _pos1_lines(pos1: frozenset[str]) -> re.Pattern[str]:
    """Matches a newline and the output line after it when the line's first part of speech
    (the first of its leading fields that is neither empty nor ``*``) is in ``pos1``. Starting
    with a literal newline lets the regex engine jump from line to line."""
    names = "|".join(re.escape(p) for p in sorted(pos1, key=len, reverse=True)) or "(?!)"
    return re.compile(rf"\n(?:\*?,)*(?:{names})(?=[,\t])[^\n]*")  # no group: faster


def _prepared(texts: Iterable[str], normalize: bool) -> list[list[str]]:
    """The texts as :meth:`FugashiTokenizer.analyze` hands them to MeCab: NFKC (unless
    ``normalize`` is false), in :func:`chunks`, newlines as spaces."""
    return [[c.replace("\n", " ") for c in chunks(nfkc(t) if normalize else t)] for t in texts]


def _found(find: Callable[[str], list[str]], tagger: Any, pieces: list[str]) -> list[str]:
    """The matching output lines of every piece of one text, in order."""
    return [line for piece in pieces for line in find(tagger.parse(piece))]


def found_lines(
    texts: Iterable[str], pos1: frozenset[str], normalize: bool = True
) -> list[list[str]]:
    """Per text, MeCab's output lines (each with its leading newline) of the morphemes whose
    first part of speech is in ``pos1``, in order: the tagging half of
    :meth:`FugashiTokenizer.map_many`, plain strings in and out."""
    pieces = _prepared(texts, normalize)
    find = _pos1_lines(pos1).findall
    tagger = _feature_tagger()
    with _LOCK:
        return [
            find(tagger.parse(p[0])) if len(p) == 1 else _found(find, tagger, p) for p in pieces
        ]


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
            parsed = [tagger.parse(c.replace("\n", " ")) for c in chunks(text)]
        return [
            _token(line) for out in parsed for line in out.split("\n") if line and line != "EOS"
        ]

    def analyze_many(
        self, texts: Iterable[str], *, pos1: Collection[str] | None = None
    ) -> list[list[Token]]:
        """:meth:`analyze` of each text, with the tagger taken once for all of them.

        With ``pos1``, only the morphemes whose first part of speech is in it, picked from
        MeCab's output before any token is made: the fast path for content words (seed 003
        §2.2), the same tokens as filtering :meth:`analyze`'s output by ``Token.pos1``.
        """
        if pos1 is None:
            return [self.analyze(t) for t in texts]
        return self.map_many(texts, pos1, _same)

    def map_many(
        self, texts: Iterable[str], pos1: Collection[str], fn: Callable[[Token], T | None]
    ) -> list[list[T]]:
        """For each text, ``fn(token)`` of its morphemes whose first part of speech is in
        ``pos1``, in order, leaving out ``None``: the same as filtering :meth:`analyze`'s
        output, but ``fn`` runs once per distinct morpheme (MeCab output line) and its results
        are kept, per function, so ``fn`` must be pure. One lock and one pattern search per
        text; the other morphemes never become tokens. The two halves are
        :func:`found_lines` (MeCab) and :meth:`map_found`."""
        return self.map_found(found_lines(texts, frozenset(pos1), self.normalize), fn)

    def map_found(self, found: list[list[str]], fn: Callable[[Token], T | None]) -> list[list[T]]:
        """``fn`` of the tokens of :func:`found_lines`' output lines, per text (see
        :meth:`map_many`)."""
        with _LOCK:
            results = _results_of(fn)
            missing = {line for lines in found for line in lines if line not in results}
            if len(results) + len(missing) > _CACHE_SIZE:
                results.clear()
                missing = {line for lines in found for line in lines}
            for line in missing:
                results[line] = fn(_feature_token(line[1:]))  # a match starts with "\n"
            return [[y for line in lines if (y := results[line]) is not None] for lines in found]

    def tokenize(self, text: str) -> list[str]:
        """Surface forms without punctuation and white space."""
        return [t.surface for t in self.analyze(text) if t.pos1 not in SKIPPED_POS and t.surface]


@cache
def default_tokenizer() -> FugashiTokenizer:
    """The process-wide default tokenizer."""
    return FugashiTokenizer()
