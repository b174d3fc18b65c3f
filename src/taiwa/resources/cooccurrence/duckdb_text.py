"""Reading ``text`` and ``tokens`` input for the DuckDB engine (seed 003 §2.2), and the pieces
the n-gram path shares.

The generic path (:mod:`taiwa.resources.cooccurrence.counts`) counts every line in Python,
which for ``tokens`` input is the whole cost. Here Python only moves bytes: it reads a file in
blocks of whole lines, checks UTF-8 (naming file and line on failure), and hands each block to
Arrow, which maps every whitespace character ``str.split()`` knows to a space and splits the
block into lines. (``text`` input is tokenised first, in ``workers`` processes, into one line of
tab-separated content words per non-blank line.) The counting, with the same semantics as
:class:`~taiwa.resources.cooccurrence.counts.LineCounter`, is
:mod:`taiwa.resources.cooccurrence.incidence` (sparse products over integer word ids).

For Web 1T input (:mod:`taiwa.resources.cooccurrence.duckdb_ngrams`): the lines go into
DuckDB (:func:`ingest_lines`) and ``g`` is a self-join of ``(unit, word id)`` on the unit
(:func:`count_pairs`).
"""

from __future__ import annotations

import logging
import time
import zlib
from collections import Counter, deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from multiprocessing import get_context
from typing import Any

from taiwa.core.errors import InputError
from taiwa.resources.cooccurrence.config import MinerConfig
from taiwa.resources.cooccurrence.counts import line_chunks, open_input
from taiwa.text.content_words import content_words

log = logging.getLogger(__name__)

BLOCK_BYTES = 2 << 20
"""Bytes read per block (extended to the end of the line): small enough that the sparse
products of a block of ``tokens`` stay in the CPU caches (a third faster than 8 MB)."""

WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Every character ``str.isspace()`` holds true for (a test checks it against all of Unicode;
spelled out, because scanning 1.1 M code points costs each run a few tenths of a second)."""

_OTHER_WHITESPACE = "".join(c for c in WHITESPACE if c not in " \n")
WHITESPACE_RE2 = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in _OTHER_WHITESPACE) + "]"
"""Every character ``str.split()`` splits on, except space and newline, as an RE2 class."""

_SHIFT = 1 << 32
"""Pair key ``id1 · 2³² + id2`` (ids are INTEGER, so below 2³¹)."""

TEXT_SEPARATOR = "\t"
"""Joins the content words of a tokenised ``text`` line (a lemma never holds a tab)."""


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _decode(block: bytes, path: str, first_line: int) -> str:
    """A block of UTF-8 lines; the file's first block loses a leading byte-order mark."""
    try:
        return block.decode("utf-8-sig" if first_line == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + block.count(b"\n", 0, exc.start)
        column = exc.start - (block.rfind(b"\n", 0, exc.start) + 1) + 1
        got = f"byte 0x{block[exc.start]:02x} at column {column}"
        raise InputError(path, line, None, "UTF-8 text", got) from None


def line_blocks(paths: Sequence[str], *, normalise: bool) -> Iterator[tuple[str, Any]]:
    """``(file, lines)`` per block: every line of every file as an Arrow string array, in order
    and without line ends or a leading byte-order mark; with ``normalise``, every white space
    ``str.split()`` knows becomes a plain space (for ``tokens`` input)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for path in paths:
        line = 1
        try:
            with open_input(path) as fh:
                while block := fh.read(BLOCK_BYTES):
                    block += fh.readline()
                    text = _decode(block, path, line)
                    if not text:  # the file holds only a byte-order mark: no line at all
                        continue
                    line += block.count(b"\n")
                    if text.endswith("\n"):
                        text = text[:-1]
                    cells = pa.array([text])
                    if normalise:
                        cells = pc.replace_substring_regex(cells, WHITESPACE_RE2, " ")
                    yield path, pc.split_pattern(cells, "\n").flatten()
        except (OSError, EOFError, zlib.error) as exc:  # e.g. a truncated or fake .gz
            raise InputError(path, None, None, "a readable plain or gzip file", str(exc)) from None


def _tokenise(stopwords: frozenset[str], lines: list[str]) -> list[str]:
    return [
        TEXT_SEPARATOR.join(content_words(line, stopwords=stopwords))
        for line in lines
        if line.strip()
    ]


def text_line_blocks(paths: Sequence[str], config: MinerConfig) -> Iterator[tuple[str, Any]]:
    """``text`` files tokenised (``config.duckdb.workers`` processes): ``(file, lines)`` blocks
    of tab-joined content words, one line per non-blank input line."""
    import pyarrow as pa

    tokenise = partial(_tokenise, config.stopword_set())
    chunks = ((path, lines) for path, _, lines in line_chunks(paths, config.chunk_lines))
    workers = config.duckdb.workers
    if workers == 1:
        for path, lines in chunks:
            yield path, pa.array(tokenise(lines), pa.string())
        return
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
        queue: deque[tuple[str, Future[list[str]]]] = deque()  # bounded, unlike Executor.map
        try:
            for path, lines in chunks:
                queue.append((path, pool.submit(tokenise, lines)))
                if len(queue) >= 2 * workers:
                    done, future = queue.popleft()
                    yield done, pa.array(future.result(), pa.string())
            while queue:
                done, future = queue.popleft()
                yield done, pa.array(future.result(), pa.string())
        finally:
            for _, future in queue:
                future.cancel()


def timed(con: Any, sql: str) -> None:
    """Execute ``sql``, logging how long it took (``--debug`` / logging at DEBUG)."""
    started = time.perf_counter()
    con.execute(sql)
    log.debug("%.2f s: %s", time.perf_counter() - started, sql[:60])


def ingest_lines(con: Any, blocks: Iterator[tuple[str, Any]]) -> list[tuple[str, int]]:
    """``lines(uid, line)``: every line, numbered from 0 in input order; returns each file with
    the uid of its first line (so a uid can be named as file and line)."""
    import numpy as np
    import pyarrow as pa

    started, offset = time.perf_counter(), 0
    starts: list[tuple[str, int]] = []
    con.execute("CREATE TABLE lines (uid BIGINT, line VARCHAR)")
    for path, array in blocks:
        if not starts or starts[-1][0] != path:
            starts.append((path, offset))
        uid = pa.array(np.arange(offset, offset + len(array), dtype=np.int64))
        offset += len(array)
        con.register("block", pa.table({"uid": uid, "line": array}))
        con.execute("INSERT INTO lines SELECT uid, line FROM block")
        con.unregister("block")
    log.debug("%.2f s: read and split the lines", time.perf_counter() - started)
    return starts


def count_pairs(con: Any, config: MinerConfig, weight: str) -> int:
    """``pair_totals(w1, w2, g)`` from ``toks(uid, id, …)`` and ``vocab(w, id)``: ``g`` sums
    ``weight`` (``1`` or a column of ``toks``) over the units holding both words. Pairs below
    ``min_pair_count`` are left out. Returns the number of distinct pairs (``g ≥ 1``)."""
    weight = "COUNT(*)" if weight == "1" else f"SUM(a.{weight})"
    # one BIGINT key per pair hashes faster than two columns
    timed(
        con,
        f"CREATE TABLE pair_ids AS SELECT CAST(a.id AS BIGINT) * {_SHIFT} + b.id AS k, "
        f"{weight} AS g FROM toks AS a JOIN toks AS b ON a.uid = b.uid AND a.id < b.id "
        "GROUP BY k",
    )
    con.execute("DROP TABLE toks")
    pairs = int(con.execute("SELECT COUNT(*) FROM pair_ids").fetchone()[0])
    timed(
        con,
        "CREATE TABLE pair_totals AS SELECT v1.w AS w1, v2.w AS w2, p.g FROM pair_ids AS p "
        f"JOIN vocab AS v1 ON CAST(p.k // {_SHIFT} AS INTEGER) = v1.id "
        f"JOIN vocab AS v2 ON CAST(p.k % {_SHIFT} AS INTEGER) = v2.id "
        f"WHERE p.g >= {config.min_pair_count}",
    )
    con.execute("DROP TABLE pair_ids")
    con.execute("DROP TABLE vocab")
    return pairs


VOCAB_SQL = (
    "CREATE TABLE vocab AS SELECT w, CAST(row_number() OVER (ORDER BY w) AS INTEGER) AS id "
    "FROM ({words}) AS words"
)
"""Word ids in code-point order, so that ``id1 < id2`` exactly when ``w1 < w2``."""


def count_in_duckdb(con: Any, paths: Sequence[str], config: MinerConfig) -> Counter[str]:
    """Fill ``word_totals``, ``pair_totals`` and ``word_names`` from ``text``/``tokens`` files
    (:func:`taiwa.resources.cooccurrence.incidence.count_incidence`); returns stats."""
    from taiwa.resources.cooccurrence.incidence import count_incidence

    if config.input_kind == "text":
        return count_incidence(con, text_line_blocks(paths, config), config, TEXT_SEPARATOR)
    return count_incidence(con, line_blocks(paths, normalise=True), config, " ")
