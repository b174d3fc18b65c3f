"""CSV and Parquet: rows read with each cell checked (:mod:`.text`; CSV cells holding JSON
lists or objects decoded, an empty cell missing), rows written atomically."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io.atomic import atomic_open
from taiwa.core.io.json_doc import JSONSyntaxError, loads
from taiwa.core.io.jsonl import dumps
from taiwa.core.io.text import check_values, decoded_lines

CSV_FIELD_CHARS = 64 * 2**20
"""CSV cells up to this size are read (and then checked against MAX_TEXT_CHARS by field)."""


def _iter_csv(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_CHARS))
    reader = csv.DictReader(decoded_lines(p))
    try:
        for row in reader:
            number = reader.line_num
            rec = {k: _csv_cell(p, number, v) for k, v in row.items() if k is not None}
            check_values(p, number, rec, surrogates=False)
            yield number, rec
    except csv.Error as exc:
        raise InputError(str(p), reader.line_num, None, "valid CSV", str(exc)) from None


def _csv_cell(p: Path, number: int, value: str | None) -> Any:
    """CSV cells holding JSON lists/objects (e.g. ``steps``) are decoded; empty means missing."""
    if value is None or value == "":
        return None
    if value[:1] in "[{":
        try:
            return loads(value, str(p), number, check_depth=False)  # check_values: the depth
        except JSONSyntaxError:
            return value
    return value


def _iter_parquet(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(p).to_pylist()
    except Exception as exc:  # pyarrow raises several types (ArrowInvalid, OSError ...)
        raise InputError(str(p), None, None, "a Parquet file", parquet_problem(p, exc)) from None
    for number, row in enumerate(rows, start=1):
        check_values(p, number, row)
        yield number, row


def parquet_problem(p: Path, exc: BaseException) -> str:
    """pyarrow's message about a bad file, without the path it repeats."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = text.replace(f"Could not open Parquet input source '{p}': ", "")
    return text if len(text) <= 200 else text[:199] + "…"


def write_csv(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write dict rows as CSV (nested values as JSON), atomically."""
    materialised = [dict(r) for r in rows]
    fields: list[str] = []
    for row in materialised:
        fields.extend(k for k in row if k not in fields)
    with atomic_open(path) as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in materialised:
            writer.writerow(
                {k: dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()}
            )


def write_parquet(path: str | Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """Write dict rows as a Parquet table, atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist([dict(r) for r in rows])
    with atomic_open(path, "wb") as fh:
        pq.write_table(table, fh)
