"""Word association pairs mined from a corpus by log-likelihood ratio (seed 003 §2.2).

:func:`mine_cooccurrence` counts ``h(v)``, ``g(v, w)`` and ``F`` in a corpus (raw text,
tokenised text or Web 1T n-gram counts; see :class:`MinerConfig`), scores every pair with λ of
eq. (1) and writes the pairs that pass the filters as a Parquet table ``w1, w2, g, llr``
(``w1 < w2`` by code point, sorted by ``(w1, w2)``) plus ``<out>.meta.json`` (every setting,
``F``, the counts, engine and versions). Two engines produce identical tables: DuckDB
(embedded, out-of-core; the default) and Spark (``local[*]`` or a cluster).
:class:`AssociationPairs` loads a table for O(1) lookups by the cohesion scorer (§2.3).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io import parquet_problem, require_file, shown, write_json
from taiwa.core.schema import MAX_TEXT_CHARS
from taiwa.resources.cooccurrence.config import Engine, MinerConfig, MiningReport
from taiwa.resources.cooccurrence.counts import resolve_inputs

COLUMNS = ("w1", "w2", "g", "llr")
FORMAT = "taiwa.association-pairs/1"


def meta_path(out: str | Path) -> Path:
    """``<out>.meta.json``: where the metadata of the table ``out`` lives."""
    p = Path(out)
    return p.with_name(p.name + ".meta.json")


def mine_cooccurrence(
    inputs: str | Path | Iterable[str | Path],
    out: str | Path,
    config: MinerConfig | None = None,
    engine: Engine = "duckdb",
) -> MiningReport:
    """Mine association pairs from ``inputs`` into the Parquet file ``out`` (seed 003 §2.2).

    ``inputs`` are files (plain or ``.gz``) or directories of files, read in order. Raises
    :class:`InputError` naming file, line and field for a missing or malformed input; the
    output and its metadata are written atomically, so nothing half-written is left behind.
    """
    from taiwa import __version__

    config = config or MinerConfig()
    paths = resolve_inputs(inputs, allow_uri=engine == "spark")
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if engine == "duckdb":
        from taiwa.resources.cooccurrence import duckdb_engine as duck

        version = duck.engine_version()
        F, counts = duck.run_duckdb(paths, target, config)
    elif engine == "spark":
        from taiwa.resources.cooccurrence import spark_engine as spark

        version = spark.engine_version()
        F, counts = spark.run_spark(paths, target, config)
    else:
        raise ValueError(f"engine must be 'duckdb' or 'spark', got {engine!r}")
    seconds = time.perf_counter() - started
    report = MiningReport(
        out=target,
        meta=meta_path(target),
        engine=engine,
        engine_version=version,
        F=F,
        counts=counts,
        seconds=seconds,
        config=config,
    )
    settings = config.model_dump(mode="json")
    settings["stopwords"] = sorted(config.stopword_set())
    write_json(
        report.meta,
        {
            "format": FORMAT,
            "spec": "seed 003 §2.2 eq. (1): log-likelihood ratio (Dunning's G², natural log)",
            "columns": {
                "w1": "content word, w1 < w2 by code point",
                "w2": "content word",
                "g": "co-occurrence count g(w1, w2)",
                "llr": "λ of eq. (1)",
            },
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "taiwa_version": __version__,
            "engine": engine,
            "engine_version": version,
            "inputs": paths,
            "F": F,
            "counts": counts.model_dump(mode="json"),
            "config": settings,
            "seconds": round(seconds, 3),
        },
    )
    return report


def _read_meta(meta: Path) -> dict[str, Any]:
    """The ``.meta.json`` beside a pair table: a JSON object, else an :class:`InputError`."""
    from taiwa.core.io import read_json_object

    data, _ = read_json_object(meta, "the table's JSON metadata")
    return data


def _key(v: str, w: str) -> tuple[str, str]:
    return (v, w) if v < w else (w, v)


class AssociationPairs:
    """An association table in memory: unordered pair → λ, for O(1) lookups (seed 003 §2.3).

    ``source`` is a Parquet table from :func:`mine_cooccurrence` (its ``.meta.json``, if
    present, is read into :attr:`meta`) or a mapping ``{(v, w): λ}``. ``min_llr`` keeps only
    pairs with λ ≥ it (e.g. a stricter threshold than the table was mined with).
    """

    def __init__(
        self,
        source: str | Path | Mapping[tuple[str, str], float],
        *,
        min_llr: float | None = None,
    ) -> None:
        self.meta: dict[str, Any] | None = None
        if isinstance(source, Mapping):
            items: Iterable[tuple[tuple[str, str], float]] = source.items()
            self.name = "<mapping>"
        else:
            items = self._read(Path(source))
            self.name = str(source)
        self._llr = {
            _key(v, w): float(x)
            for (v, w), x in items
            if v != w and (min_llr is None or x >= min_llr)
        }
        self._partners: dict[str, frozenset[str]] | None = None

    def _read(self, path: Path) -> Iterator[tuple[tuple[str, str], float]]:
        import pyarrow.parquet as pq

        require_file(path, "an existing Parquet pair table")
        try:
            table = pq.read_table(path)
        except Exception as exc:  # pyarrow raises several types for a bad file
            problem = parquet_problem(path, exc)
            raise InputError(str(path), None, None, "a Parquet pair table", problem) from None
        for column in ("w1", "w2", "llr"):
            if column not in table.column_names:
                got = ", ".join(table.column_names) or "no columns"
                raise InputError(str(path), None, column, f"columns {', '.join(COLUMNS)}", got)
        meta = meta_path(path)
        if meta.is_file():
            self.meta = _read_meta(meta)
        if table.num_rows == 0:
            raise InputError(str(path), None, None, "at least one word pair", "no rows")
        w1, w2 = table.column("w1").to_pylist(), table.column("w2").to_pylist()
        llrs = table.column("llr").to_pylist()
        for row, (v, w, x) in enumerate(zip(w1, w2, llrs, strict=True), start=1):
            for name, word in (("w1", v), ("w2", w)):
                if not isinstance(word, str) or not word.strip() or len(word) > MAX_TEXT_CHARS:
                    raise InputError(str(path), row, name, "a word", shown(word))
            if not isinstance(x, int | float) or isinstance(x, bool) or not math.isfinite(x):
                raise InputError(str(path), row, "llr", "a finite number", shown(x))
            yield (v, w), x

    def associated(self, v: str, w: str) -> bool:
        """Whether ``v`` and ``w`` (in either order) form an association pair."""
        return _key(v, w) in self._llr

    def llr(self, v: str, w: str) -> float | None:
        """λ of the pair, or ``None`` when it is not in the table."""
        return self._llr.get(_key(v, w))

    def partners(self, v: str) -> frozenset[str]:
        """Every word associated with ``v``."""
        if self._partners is None:
            index: dict[str, set[str]] = {}
            for a, b in self._llr:
                index.setdefault(a, set()).add(b)
                index.setdefault(b, set()).add(a)
            self._partners = {k: frozenset(s) for k, s in index.items()}
        return self._partners.get(v, frozenset())

    def __len__(self) -> int:
        return len(self._llr)

    def __contains__(self, pair: object) -> bool:
        return (
            isinstance(pair, tuple)
            and len(pair) == 2
            and all(isinstance(x, str) for x in pair)
            and self.associated(pair[0], pair[1])
        )

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(sorted(self._llr))

    def __repr__(self) -> str:
        return f"AssociationPairs({self.name!r}, {len(self)} pairs)"
