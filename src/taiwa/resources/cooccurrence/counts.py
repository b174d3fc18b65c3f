"""Line-level counting rules of the co-occurrence miner (seed 003 §2.2), and input files.

:class:`LineCounter` is the reference for what a line contributes: it tokenises (``text``),
splits (``tokens``) or parses (``ngrams``) the line and adds to three counters, ``words``
(contributions to ``h(v)``), ``pairs`` (to ``g(v, w)``, keyed ``(w1, w2)`` with ``w1 < w2`` by
code point) and ``stats``. The Spark engine runs it on every partition; the DuckDB engine runs
the same rules as SQL (:mod:`taiwa.resources.cooccurrence.duckdb_text`,
:mod:`taiwa.resources.cooccurrence.duckdb_ngrams`), and the tests hold both to the same tables.
Also here: resolving and opening input files, and the checks every engine makes.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from taiwa.core.errors import InputError
from taiwa.resources.cooccurrence.config import InputKind, MinerConfig
from taiwa.text.content_words import content_words

WEB1T_MARKERS = frozenset({"<S>", "</S>", "<UNK>"})
"""Sentence-boundary and unknown-word tokens of the Web 1T format; never content words."""

NGRAM_FORMAT = "'w1 w2 ... wn<TAB>count' (Web 1T n-gram format)"
_COUNT = re.compile(r"[0-9]{1,18}")


@dataclass(frozen=True, slots=True)
class CountingOptions:
    """The part of :class:`MinerConfig` a line counter needs (small and picklable)."""

    kind: InputKind
    window: int | None
    stopwords: frozenset[str]
    check_content: bool

    @classmethod
    def of(cls, config: MinerConfig) -> CountingOptions:
        return cls(config.input_kind, config.window, config.stopword_set(), config.check_content)


@dataclass(frozen=True, slots=True)
class LineError:
    """Why one line is malformed (located by the caller, who knows file and line)."""

    field: str | None
    expected: str
    got: str | None

    def located(self, file: str, line: int | None) -> InputError:
        return InputError(file, line, self.field, self.expected, self.got)


class ContentFilter:
    """Whether an n-gram token is a content word, decided once per distinct token."""

    def __init__(self, stopwords: frozenset[str], check: bool) -> None:
        self.stopwords, self.check = stopwords, check
        self._cache: dict[str, bool] = {}

    def __call__(self, token: str) -> bool:
        hit = self._cache.get(token)
        if hit is None:
            hit = token not in WEB1T_MARKERS and token not in self.stopwords
            if hit and self.check:
                hit = bool(content_words(token, stopwords=self.stopwords))
            self._cache[token] = hit
        return hit


_FILTERS: dict[tuple[frozenset[str], bool], ContentFilter] = {}


def content_filter(stopwords: frozenset[str], check: bool) -> ContentFilter:
    """The process-wide filter for these settings (its cache outlives one chunk or partition)."""
    key = (stopwords, check)
    if key not in _FILTERS:
        _FILTERS[key] = ContentFilter(stopwords, check)
    return _FILTERS[key]


def parse_ngram(line: str) -> tuple[list[str], int] | LineError | None:
    """``(tokens, count)`` of one Web 1T line, ``None`` for a blank line, or what is wrong."""
    if not line.strip():
        return None
    parts = line.split("\t")
    if len(parts) != 2:
        got = "no tab" if len(parts) == 1 else f"{len(parts) - 1} tabs"
        return LineError(None, NGRAM_FORMAT, got)
    words, count = parts
    if not _COUNT.fullmatch(count):
        return LineError("count", "a non-negative integer below 10^18", repr(count[:40]))
    tokens = [t for t in words.split(" ") if t]
    if not tokens:
        return LineError("ngram", "at least one word before the tab", repr(words[:40]))
    return tokens, int(count)


@dataclass
class LineCounter:
    """Counts of a stretch of lines; see the module docstring."""

    options: CountingOptions
    words: Counter[str] = field(default_factory=Counter)
    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)
    stats: Counter[str] = field(default_factory=Counter)

    def add(self, line: str) -> LineError | int | None:
        """Count one line; returns a :class:`LineError`, the n-gram order, or ``None``."""
        kind = self.options.kind
        if kind == "ngrams":
            return self._add_ngram(line)
        if kind == "text":
            if not line.strip():
                return None
            found = content_words(line, stopwords=self.options.stopwords)
        else:
            found = [w for w in line.split() if w not in self.options.stopwords]
        self.stats["lines"] += 1
        self.stats["tokens"] += len(found)
        k = self.options.window
        if k is None or len(found) <= k:
            self._add_unit(found)
        else:
            for i in range(len(found) - k + 1):
                self._add_unit(found[i : i + k])
        return None

    def _add_unit(self, found: Sequence[str]) -> None:
        distinct = sorted(set(found))
        self.stats["units"] += 1
        self.words.update(distinct)
        if len(distinct) > 1:
            self.pairs.update(combinations(distinct, 2))

    def _add_ngram(self, line: str) -> LineError | int | None:
        parsed = parse_ngram(line)
        if parsed is None or isinstance(parsed, LineError):
            return parsed
        tokens, count = parsed
        self.stats["lines"] += 1
        is_content = content_filter(self.options.stopwords, self.options.check_content)
        if len(tokens) == 1:
            self.stats["unigram_lines"] += 1
            if count and is_content(tokens[0]):
                self.words[tokens[0]] += count
            return 1
        self.stats["ngram_lines"] += 1
        distinct = sorted({t for t in tokens if is_content(t)})
        if len(distinct) > 1 and count:
            pairs = self.pairs
            for pair in combinations(distinct, 2):
                pairs[pair] += count
        return len(tokens)

    def pending(self) -> int:
        """Entries held (what bounds memory)."""
        return len(self.pairs) + len(self.words)

    def take(self) -> tuple[Counter[str], Counter[tuple[str, str]], Counter[str]]:
        """The counts so far; the counter starts afresh."""
        out = (self.words, self.pairs, self.stats)
        self.words, self.pairs, self.stats = Counter(), Counter(), Counter()
        return out


# ---------------------------------------------------------------------------- local files


def resolve_inputs(
    inputs: str | Path | Iterable[str | Path], *, allow_uri: bool = False
) -> list[str]:
    """Input files in order; a directory stands for the files in it and in its directories
    (hidden ones left out), sorted by path.

    Raises :class:`InputError` for a missing path. With ``allow_uri`` (Spark), paths with a
    scheme such as ``hdfs://`` are passed through unchecked.
    """
    items = [inputs] if isinstance(inputs, str | Path) else list(inputs)
    if not items:
        raise InputError("<inputs>", None, None, "at least one input file", "none")
    out: list[str] = []
    for item in items:
        text = str(item)
        if allow_uri and "://" in text:
            out.append(text)
            continue
        p = Path(text)
        if p.is_dir():
            files = sorted(
                f
                for f in p.rglob("*")
                if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
            )
            if not files:
                raise InputError(text, None, None, "a directory with input files", "none in it")
            out.extend(str(f) for f in files)
        elif p.is_file():
            out.append(text)
        else:
            got = "no such file or directory"
            raise InputError(text, None, None, "an existing file or directory of files", got)
    return out


def open_input(path: str) -> gzip.GzipFile | io.BufferedReader:
    """A local input file for binary reading, decompressed when it ends in ``.gz``."""
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def iter_lines(path: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a UTF-8 file (plain or ``.gz``), without line ends or a
    leading byte-order mark."""
    try:
        with open_input(path) as fh:
            for number, raw in enumerate(fh, start=1):
                try:
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    got = f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"
                    raise InputError(path, number, None, "UTF-8 text", got) from None
                yield number, line.rstrip("\r\n")
    except (OSError, EOFError, zlib.error) as exc:  # e.g. a truncated or fake .gz
        raise InputError(path, None, None, "a readable plain or gzip file", str(exc)) from None


def line_chunks(paths: Sequence[str], size: int) -> Iterator[tuple[str, int, list[str]]]:
    """``(file, first line number, lines)`` in runs of at most ``size`` lines, files in order."""
    for path in paths:
        lines: list[str] = []
        first = 1
        for number, line in iter_lines(path):
            if not lines:
                first = number
            lines.append(line)
            if len(lines) >= size:
                yield path, first, lines
                lines = []
        if lines:
            yield path, first, lines


def check_totals(kind: InputKind, paths: Sequence[str], stats: Counter[str]) -> None:
    """Text must hold a sentence and a word; n-grams both 1-grams (for ``h``) and n-grams
    (for ``g``)."""
    where = paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    if kind != "ngrams":
        if not stats["units"]:
            raise InputError(where, None, None, "at least one sentence", "none")
        if not stats["tokens"]:  # blank lines (or stop words) only: nothing to mine
            what = "at least one content word" if kind == "text" else "at least one token"
            raise InputError(where, None, None, what, "none in any line")
        return
    if not stats["unigram_lines"]:
        raise InputError(where, None, None, "1-gram lines (the 1gms files) to count h(v)", "none")
    if not stats["ngram_lines"]:
        raise InputError(where, None, None, "n-gram lines (e.g. the 7gms files) for g", "none")
