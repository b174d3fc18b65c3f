"""The Spark engine of the co-occurrence miner (seed 003 §2.2), for web-scale corpora.

Spark reads the input itself (``spark.read.text``: plain or ``.gz``, local, HDFS, S3 ...);
each partition runs the same line counter as the DuckDB engine
(:mod:`taiwa.resources.cooccurrence.counts`, via ``mapPartitions``, so fugashi tokenises on
the executors) and emits partially summed ``(kind, w1, w2, count)`` rows; a ``groupBy`` sums
them, and the scoring queries shared with DuckDB (:mod:`taiwa.resources.cooccurrence.sql`)
run on Spark SQL. The sorted result streams to the driver (``toLocalIterator``) into one
Parquet file written atomically, so both engines produce the same file layout.

Local (``local[*]``)::

    python -m taiwa.resources.cooccurrence.spark_submit --kind text --out pairs.parquet c.txt.gz

On a cluster, in client mode (the output file is written by the driver), with taiwa, fugashi
and unidic-lite installed on every node (or shipped with ``--py-files`` / an archived venv)
and ``PYSPARK_PYTHON`` naming that Python::

    PYSPARK_PYTHON=/opt/taiwa-venv/bin/python \\
    spark-submit --master yarn --deploy-mode client --driver-memory 8g \\
      "$(python -c 'import taiwa.resources.cooccurrence.spark_submit as m; print(m.__file__)')" \\
      --kind ngrams --sentences 20000000000 --llr-threshold 10000 --exclude-top-k 100 \\
      --out web1t-pairs.parquet hdfs:///web1t/1gms/vocab.gz hdfs:///web1t/7gms/

An active SparkSession (as under ``spark-submit``) is reused and left running; a session the
miner creates itself is stopped at the end.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from taiwa.core.errors import InputError
from taiwa.core.io import atomic_open
from taiwa.resources.cooccurrence.config import MinerConfig, MiningCounts, SparkSettings
from taiwa.resources.cooccurrence.counts import (
    CountingOptions,
    LineCounter,
    LineError,
    check_totals,
    parse_ngram,
)
from taiwa.resources.cooccurrence.sql import (
    excluded_words_sql,
    kept_words_sql,
    output_sql,
    pair_counts_sql,
    scored_pairs_sql,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

WORD, PAIR, STAT, ERROR, ORDER = range(5)
ROW_SCHEMA = "kind INT, w1 STRING, w2 STRING, c BIGINT"


def engine_version() -> str:
    import pyspark

    return f"pyspark {pyspark.__version__}"


def spark_session(settings: SparkSettings) -> tuple[SparkSession, bool]:
    """The active session (``created=False``) or a new one from ``settings`` (``True``)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    builder = SparkSession.builder.appName(settings.app_name)
    if settings.master is not None:
        builder = builder.master(settings.master)
    local = settings.master is None or settings.master.startswith("local")
    conf = {"spark.ui.showConsoleProgress": "false", "spark.ui.enabled": "false"}
    if local:
        # Python workers must be this interpreter (the one with taiwa and fugashi); PySpark
        # reads the variable when the context starts, and defaults to ``python3`` on PATH.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        conf["spark.sql.shuffle.partitions"] = str(max(4, 2 * (os.cpu_count() or 1)))
    for key, value in {**conf, **settings.conf}.items():
        builder = builder.config(key, value)
    try:
        return builder.getOrCreate(), True
    except Exception as exc:  # py4j and Spark raise many types: a master that cannot start
        from taiwa.core.errors import TaiwaError

        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise TaiwaError(f"--master {settings.master!r}: no Spark session: {first}") from None


def _drain(counter: LineCounter) -> Iterator[tuple[int, str, str | None, int]]:
    words, pairs, stats = counter.take()
    for w, c in words.items():
        yield WORD, w, None, c
    for (a, b), c in pairs.items():
        yield PAIR, a, b, c
    for key, c in stats.items():
        yield STAT, key, None, c


def partition_rows(
    options: CountingOptions, chunk_lines: int, rows: Iterable[Sequence[str]]
) -> Iterator[tuple[int, str, str | None, int]]:
    """Count one partition's ``(line, source file)`` rows; emits summed rows every chunk."""
    counter = LineCounter(options)
    errors: Counter[tuple[str, str]] = Counter()
    orders: Counter[tuple[str, int]] = Counter()
    for n, (line, source) in enumerate(rows, start=1):
        result = counter.add(line.rstrip("\r\n"))  # like iter_lines: CRLF ends a line too
        if isinstance(result, LineError):
            errors[(source, result.field or "")] += 1
        elif result is not None and result > 1:
            orders[(source, result)] += 1
        if n % chunk_lines == 0:
            yield from _drain(counter)
    yield from _drain(counter)
    for (source, what), c in errors.items():
        yield ERROR, source, what, c
    for (source, order), c in orders.items():
        yield ORDER, source, str(order), c


def _display(source: str, inputs: Sequence[str]) -> str:
    """The user's spelling of the input file Spark calls ``source`` (a URI)."""
    local = unquote(urlparse(source).path) if source.startswith("file:") else source
    for given in inputs:
        if given == source or os.path.abspath(given) == local:
            return given
    return local


def _first_source(sources: Iterable[str], inputs: Sequence[str]) -> str:
    """Of ``sources``, the one given first in ``inputs``."""
    order = {given: i for i, given in enumerate(inputs)}
    return min(sources, key=lambda s: (order.get(_display(s, inputs), len(order)), s))


def _first_line(spark: SparkSession, source: str, test: Any) -> tuple[int, str] | None:
    """Line number and text of the first line of ``source`` where ``test(line)`` holds."""
    lines = spark.read.text(source, lineSep="\n").rdd.map(lambda row: row.value.rstrip("\r\n"))
    found = lines.zipWithIndex().filter(lambda p: test(p[0]))
    hits = found.take(1)
    return (int(hits[0][1]) + 1, str(hits[0][0])) if hits else None


def _is_malformed(line: str) -> bool:
    return isinstance(parse_ngram(line), LineError)


def _has_order(order: int, line: str) -> bool:
    parsed = parse_ngram(line)
    return isinstance(parsed, tuple) and len(parsed[0]) == order


def _raise_input_errors(
    spark: SparkSession, side: list[Any], inputs: Sequence[str]
) -> Counter[str]:
    """Stats from the side rows, after raising :class:`InputError` for any bad line."""
    stats: Counter[str] = Counter()
    orders: Counter[int] = Counter()
    bad_sources: list[str] = []
    order_sources: dict[int, list[str]] = {}
    for kind, w1, w2, c in side:
        if kind == STAT:
            stats[w1] += c
        elif kind == ERROR:
            bad_sources.append(w1)
        elif kind == ORDER:
            orders[int(w2)] += c
            order_sources.setdefault(int(w2), []).append(w1)
    if bad_sources:
        source = _first_source(bad_sources, inputs)
        hit = _first_line(spark, source, _is_malformed)
        error = parse_ngram(hit[1]) if hit else None
        if hit is None or not isinstance(error, LineError):  # pragma: no cover - defensive
            raise InputError(_display(source, inputs), None, None, "well-formed n-gram lines")
        raise error.located(_display(source, inputs), hit[0])
    if len(orders) > 1:
        usual = orders.most_common(1)[0][0]
        odd = min(o for o in orders if o != usual)
        source = _first_source(order_sources[odd], inputs)
        hit = _first_line(spark, source, partial(_has_order, odd))
        raise InputError(
            _display(source, inputs),
            hit[0] if hit else None,
            "ngram",
            f"{usual} words like the other n-grams",
            str(odd),
        )
    for order in orders:
        stats[f"order:{order}"] = 1
    return stats


def run_spark(inputs: list[str], out: Path, config: MinerConfig) -> tuple[int, MiningCounts]:
    """Mine ``inputs`` into the Parquet file ``out``; returns ``F`` and the counts."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as sf

    base, created = spark_session(config.spark)
    spark = base.newSession()  # own temp views and SQL settings
    if config.spark.shuffle_partitions is not None:
        spark.conf.set("spark.sql.shuffle.partitions", str(config.spark.shuffle_partitions))
    persisted: list[Any] = []
    try:
        lines = spark.read.text(inputs, lineSep="\n").select(
            sf.regexp_replace("value", "^\ufeff", "").alias("value"),  # a file's byte-order mark
            sf.col("_metadata.file_path"),
        )
        parallelism = spark.sparkContext.defaultParallelism
        if lines.rdd.getNumPartitions() < parallelism:  # e.g. one .gz file: not splittable
            lines = lines.repartition(parallelism)
        options = CountingOptions.of(config)
        rows = lines.rdd.mapPartitions(partial(partition_rows, options, config.chunk_lines))
        totals = (
            spark.createDataFrame(rows, ROW_SCHEMA, verifySchema=False)  # halves the time
            .groupBy("kind", "w1", "w2")
            .agg(sf.sum("c").alias("c"))
            .persist(StorageLevel.MEMORY_AND_DISK)
        )
        persisted.append(totals)
        stats = _raise_input_errors(spark, totals.filter("kind >= 2").collect(), inputs)
        check_totals(config.input_kind, inputs, stats)
        F = config.sentences if config.sentences is not None else stats["units"]
        words = totals.filter(f"kind = {WORD} AND c > 0").selectExpr("w1 AS w", "c AS h")
        words.createOrReplaceTempView("word_totals")
        pairs = totals.filter(f"kind = {PAIR} AND c > 0").selectExpr("w1", "w2", "c AS g")
        pairs.createOrReplaceTempView("pair_totals")
        excluded = excluded_words_sql(config, F)
        if excluded is not None:
            spark.sql(excluded).createOrReplaceTempView("excluded")
        kept = spark.sql(kept_words_sql(config, excluded is not None))
        kept.createOrReplaceTempView("kept")
        scored = spark.sql(scored_pairs_sql(config, F)).persist(StorageLevel.MEMORY_AND_DISK)
        persisted.append(scored)
        scored.createOrReplaceTempView("scored")
        pair_counts = spark.sql(pair_counts_sql(config)).collect()[0].asDict()
        orders = sorted(int(k.split(":")[1]) for k in stats if k.startswith("order:"))
        counts = MiningCounts(
            lines=stats["lines"],
            units=stats["units"],
            tokens=stats["tokens"],
            unigram_lines=stats["unigram_lines"],
            ngram_lines=stats["ngram_lines"],
            ngram_order=orders[0] if orders else None,
            words=words.count(),
            words_frequent=spark.table("excluded").count() if excluded else 0,
            words_kept=kept.count(),
            pairs=pairs.count(),
            **{k: int(v) for k, v in pair_counts.items()},
        )
        _write_parquet(spark.sql(output_sql(config)).toLocalIterator(), out)
        return F, counts
    finally:
        for frame in persisted:
            frame.unpersist()
        if created:
            base.stop()


def _write_parquet(rows: Iterator[Any], out: Path, batch: int = 100_000) -> None:
    """Stream sorted rows into one Parquet file (zstd), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = (pa.string(), pa.string(), pa.int64(), pa.float64())
    schema = pa.schema(
        [
            pa.field(n, t, nullable=False)
            for n, t in zip(("w1", "w2", "g", "llr"), types, strict=True)
        ]
    )
    with atomic_open(out, "wb") as fh, pq.ParquetWriter(fh, schema, compression="zstd") as w:
        buffer: list[Any] = []
        for row in rows:
            buffer.append(row)
            if len(buffer) >= batch:
                w.write_batch(_batch(buffer, schema))
                buffer = []
        w.write_batch(_batch(buffer, schema))


def _batch(rows: list[Any], schema: Any) -> Any:
    import pyarrow as pa

    cols: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [[], [], [], []]
    return pa.record_batch([pa.array(c, f.type) for c, f in zip(cols, schema, strict=True)], schema)
