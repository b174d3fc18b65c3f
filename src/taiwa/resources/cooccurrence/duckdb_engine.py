"""The DuckDB engine of the co-occurrence miner (seed 003 §2.2), the default.

DuckDB does the counting (:mod:`taiwa.resources.cooccurrence.duckdb_text` for sentences and
windows, :mod:`taiwa.resources.cooccurrence.duckdb_ngrams` for Web 1T files): Python only reads
blocks of lines, tokenises ``text`` input and checks each distinct n-gram token once. The
scoring is shared with Spark (:mod:`taiwa.resources.cooccurrence.sql`): dropping frequent
words, joining ``h`` to ``g``, λ and the filters; the sorted table is written with ``COPY ...
TO`` Parquet into a temporary file that is then renamed into place. The database lives in
memory but under ``memory_limit`` with a ``temp_directory``: tables, aggregations, joins and
sorts beyond the limit are evicted or spilled to disk, so a corpus larger than RAM works (a
test mines a corpus whose pairs need several times its 40 MB limit).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from taiwa.core.errors import TaiwaError
from taiwa.resources.cooccurrence.config import MinerConfig, MiningCounts
from taiwa.resources.cooccurrence.counts import check_totals
from taiwa.resources.cooccurrence.duckdb_ngrams import count_ngrams_in_duckdb
from taiwa.resources.cooccurrence.duckdb_text import count_in_duckdb
from taiwa.resources.cooccurrence.sql import (
    excluded_words_sql,
    kept_words_sql,
    output_sql,
    pair_counts_sql,
    scored_pairs_sql,
)


def engine_version() -> str:
    import duckdb

    return f"duckdb {duckdb.__version__}"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@contextlib.contextmanager
def _workdir(config: MinerConfig, out: Path) -> Iterator[Path]:
    base = config.duckdb.temp_directory
    if base is not None:
        base.mkdir(parents=True, exist_ok=True)
    parent = base if base is not None else out.parent
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.duckdb-", dir=parent))
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _connect(config: MinerConfig, work: Path) -> Any:
    import duckdb

    con = duckdb.connect(":memory:")
    con.execute(f"SET memory_limit = {_quote(config.duckdb.memory_limit)}")
    con.execute(f"SET temp_directory = {_quote(str(work / 'spill'))}")
    con.execute("SET enable_progress_bar = false")  # it would write into our own output
    if config.duckdb.threads is not None:
        con.execute(f"SET threads = {config.duckdb.threads}")
    return con


def _named(con: Any, query: str) -> str:
    """``query`` with its words joined back from ``word_names`` when the counting left integer
    word ids (:mod:`taiwa.resources.cooccurrence.incidence`; code-point order, so the order
    of the rows is the same)."""
    tables = {row[0] for row in con.execute("SHOW TABLES").fetchall()}
    if "word_names" not in tables:
        return query
    return (
        "SELECT a.w AS w1, b.w AS w2, o.g, o.llr "
        f"FROM ({query}) AS o JOIN word_names AS a ON o.w1 = a.id "
        "JOIN word_names AS b ON o.w2 = b.id ORDER BY o.w1, o.w2"
    )


def _count(con: Any, sql: str) -> int:
    return int(con.execute(sql).fetchone()[0])


def run_duckdb(inputs: list[str], out: Path, config: MinerConfig) -> tuple[int, MiningCounts]:
    """Mine ``inputs`` into the Parquet file ``out``; returns ``F`` and the counts."""
    import duckdb

    with _workdir(config, out) as work:
        con = _connect(config, work)
        try:
            if config.input_kind == "ngrams":
                stats = count_ngrams_in_duckdb(con, inputs, config)
            else:
                stats = count_in_duckdb(con, inputs, config)
            check_totals(config.input_kind, inputs, stats)
            F = config.sentences if config.sentences is not None else stats["units"]
            excluded = excluded_words_sql(config, F)
            if excluded is not None:
                con.execute(f"CREATE TABLE excluded AS {excluded}")
            con.execute(f"CREATE TABLE kept AS {kept_words_sql(config, excluded is not None)}")
            con.execute(f"CREATE TABLE scored AS {scored_pairs_sql(config, F)}")
            row = con.execute(pair_counts_sql(config)).fetchone()
            names = [d[0] for d in con.description]
            orders = sorted(int(k.split(":")[1]) for k in stats if k.startswith("order:"))
            counts = MiningCounts(
                lines=stats["lines"],
                units=stats["units"],
                tokens=stats["tokens"],
                unigram_lines=stats["unigram_lines"],
                ngram_lines=stats["ngram_lines"],
                ngram_order=orders[0] if orders else None,
                words=_count(con, "SELECT COUNT(*) FROM word_totals"),
                words_frequent=_count(con, "SELECT COUNT(*) FROM excluded") if excluded else 0,
                words_kept=_count(con, "SELECT COUNT(*) FROM kept"),
                pairs=stats["pairs"],
                **{name: int(value) for name, value in zip(names, row, strict=True)},
            )
            tmp = out.parent / f".{out.name}.{os.getpid()}.tmp.parquet"
            try:
                con.execute(
                    f"COPY ({_named(con, output_sql(config))}) TO {_quote(str(tmp))} "
                    "(FORMAT parquet, COMPRESSION zstd)"
                )
                os.replace(tmp, out)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
        except duckdb.OutOfMemoryException as exc:
            raise TaiwaError(
                f"DuckDB ran out of memory under memory_limit={config.duckdb.memory_limit} "
                f"({str(exc).splitlines()[0]}); raise the limit (--memory-limit) or give "
                "temp_directory more free disk"
            ) from None
        finally:
            con.close()
    return F, counts
