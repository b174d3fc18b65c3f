"""Web 1T n-gram counting inside DuckDB (seed 003 §2.2: ``h`` from 1-grams, ``g`` from 7-grams).

Same semantics as :class:`~taiwa.resources.cooccurrence.counts.LineCounter` on ``ngrams``
input, so both engines give the same table: Python reads the files in blocks of lines
(:func:`~taiwa.resources.cooccurrence.duckdb_text.line_blocks`); DuckDB splits each
``w1 w2 ... wn<TAB>count`` line, finds the first malformed line or n-gram of another order (which
becomes the same :class:`~taiwa.core.errors.InputError`, with file and line, as on the Python path),
lists the distinct tokens, and Python decides once per distinct token whether it is a content
word (:func:`~taiwa.resources.cooccurrence.counts.content_filter`). Then ``h(v)`` sums the counts
of ``v``'s 1-gram lines and ``g(v, w)`` the counts of the n-grams holding both, by the same
integer-id self-join as sentences (:func:`~taiwa.resources.cooccurrence.duckdb_text.count_pairs`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from taiwa.core.errors import InputError
from taiwa.resources.cooccurrence.config import MinerConfig
from taiwa.resources.cooccurrence.counts import NGRAM_FORMAT, LineError, content_filter, parse_ngram
from taiwa.resources.cooccurrence.duckdb_text import (
    VOCAB_SQL,
    WHITESPACE,
    count_pairs,
    ingest_lines,
    line_blocks,
    timed,
)

_BLANK = "^[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE)
_BLANK += "]*$"
"""RE2: a line that ``str.strip()`` empties."""

_PARSED = (
    "SELECT uid, parts, toks, len(parts) = 2 AND regexp_full_match(parts[2], '[0-9]{1,18}') "
    "AND len(toks) > 0 AS valid FROM (SELECT uid, parts, "
    "list_filter(string_split(parts[1], ' '), lambda x: x <> '') AS toks "
    "FROM (SELECT uid, string_split(line, chr(9)) AS parts "
    "FROM (SELECT uid, rtrim(line, chr(13)) AS line FROM lines) AS trimmed "
    f"WHERE NOT regexp_full_match(line, '{_BLANK}')) AS split) AS tokenised"
)
"""Every non-blank line: its tab-separated parts, its words, and whether it is well formed."""

FETCH_ROWS = 100_000
"""Distinct tokens checked per batch."""


def _where(starts: list[tuple[str, int]], uid: int) -> tuple[str, int]:
    """File and 1-based line number of line ``uid``."""
    path, first = next((p, f) for p, f in reversed(starts) if f <= uid)
    return path, uid - first + 1


def _first_problem(con: Any, starts: list[tuple[str, int]]) -> InputError | None:
    """The error for the earliest malformed line or n-gram of another order, if any."""
    bad = con.execute(
        f"SELECT p.uid, l.line FROM ({_PARSED}) AS p JOIN lines AS l ON p.uid = l.uid "
        "WHERE NOT p.valid ORDER BY p.uid LIMIT 1"
    ).fetchone()
    first = con.execute(
        "SELECT uid, len(toks) FROM grams WHERE len(toks) > 1 ORDER BY uid LIMIT 1"
    ).fetchone()
    other = None
    if first is not None:
        other = con.execute(
            "SELECT uid, len(toks) FROM grams WHERE len(toks) > 1 AND len(toks) <> ? "
            "ORDER BY uid LIMIT 1",
            [first[1]],
        ).fetchone()
    if bad is not None and (other is None or bad[0] < other[0]):
        path, line = _where(starts, bad[0])
        error = parse_ngram(bad[1].rstrip("\r\n"))
        if not isinstance(error, LineError):  # SQL and parse_ngram disagree: never expected
            error = LineError(None, NGRAM_FORMAT, repr(bad[1][:40]))
        return error.located(path, line)
    if other is not None:
        path, line = _where(starts, other[0])
        first_path, first_line = _where(starts, first[0])
        expected = f"{first[1]} words like the n-gram at {first_path}:{first_line}"
        return InputError(path, line, "ngram", expected, f"{other[1]}")
    return None


def _content_words(con: Any, config: MinerConfig) -> None:
    """``vocab(w, id)``: the distinct tokens that are content words, checked once each."""
    import pyarrow as pa

    is_content = content_filter(config.stopword_set(), config.check_content)
    con.execute("CREATE TABLE content (w VARCHAR)")
    cursor = con.cursor()
    reader = cursor.sql("SELECT DISTINCT unnest(toks) AS w FROM grams").to_arrow_reader(FETCH_ROWS)
    for batch in reader:
        kept = [w for w in batch.column(0).to_pylist() if is_content(w)]
        con.register("batch", pa.table({"w": pa.array(kept, pa.string())}))
        con.execute("INSERT INTO content SELECT w FROM batch")
        con.unregister("batch")
    cursor.close()
    timed(con, VOCAB_SQL.format(words="SELECT w FROM content"))
    con.execute("DROP TABLE content")


def count_ngrams_in_duckdb(con: Any, paths: Sequence[str], config: MinerConfig) -> Counter[str]:
    """Fill ``word_totals`` and ``pair_totals`` from Web 1T files; returns stats.

    Raises :class:`InputError` naming file and line for the earliest malformed line or n-gram
    whose order differs from the first n-gram's.
    """
    starts = ingest_lines(con, line_blocks(paths, normalise=False))
    timed(
        con,
        "CREATE TABLE grams AS SELECT uid, toks, TRY_CAST(parts[2] AS BIGINT) AS c "
        f"FROM ({_PARSED}) AS parsed WHERE valid",
    )
    problem = _first_problem(con, starts)
    if problem is not None:
        raise problem
    con.execute("DROP TABLE lines")
    row = con.execute(
        "SELECT COUNT(*), COUNT(*) FILTER (WHERE len(toks) = 1), "
        "COUNT(*) FILTER (WHERE len(toks) > 1), MIN(len(toks)) FILTER (WHERE len(toks) > 1) "
        "FROM grams"
    ).fetchone()
    stats: Counter[str] = Counter(
        lines=int(row[0]), unigram_lines=int(row[1]), ngram_lines=int(row[2])
    )
    if row[3] is not None:
        stats[f"order:{int(row[3])}"] = 1
    _content_words(con, config)
    for sql in (
        "CREATE TABLE word_totals AS SELECT v.w, SUM(g.c) AS h FROM grams AS g "
        "JOIN vocab AS v ON g.toks[1] = v.w WHERE len(g.toks) = 1 "
        "GROUP BY v.w HAVING SUM(g.c) > 0",
        "CREATE TABLE toks AS SELECT t.uid, v.id, t.c FROM (SELECT uid, c, "
        "unnest(list_distinct(toks)) AS w FROM grams WHERE len(toks) > 1 AND c > 0) AS t "
        "JOIN vocab AS v ON t.w = v.w",
        "DROP TABLE grams",
    ):
        timed(con, sql)
    stats["pairs"] = count_pairs(con, config, "c")
    return stats
