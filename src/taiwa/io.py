"""Reading and writing records: JSONL, CSV and Parquet.

Every reader validates each row against a pydantic model and raises :class:`InputError` that
names the file, the line (or row) and the field, and says what was expected. Every writer is
atomic: it writes a temporary file in the target directory and renames it into place, so a
crash never leaves a half-written output. Text is UTF-8 with ``ensure_ascii=False``.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from taiwa.errors import InputError

T = TypeVar("T", bound=BaseModel)

__all__ = [
    "InputError",
    "atomic_open",
    "dumps",
    "index_by_id",
    "iter_rows",
    "read_records",
    "write_csv",
    "write_json",
    "write_jsonl",
    "write_parquet",
]


# ---------------------------------------------------------------------------- reading


def iter_rows(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_or_row_number, raw mapping)`` for every record of a JSONL, CSV or Parquet file.

    Blank JSONL lines are skipped. Raises :class:`InputError` for missing files, broken JSON
    and lines that are not JSON objects.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(str(p), None, None, "an existing file", "no such file")
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        yield from _iter_jsonl(p)
    elif suffix == ".csv":
        yield from _iter_csv(p)
    elif suffix == ".parquet":
        yield from _iter_parquet(p)
    else:
        raise InputError(str(p), None, None, "a .jsonl, .csv or .parquet file", f"'{suffix}'")


def _iter_jsonl(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with p.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(
                    str(p),
                    number,
                    None,
                    "one JSON object per line",
                    f"{exc.msg} at column {exc.colno}",
                ) from None
            if not isinstance(obj, dict):
                raise InputError(str(p), number, None, "a JSON object", type(obj).__name__)
            yield number, obj


def _iter_csv(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with p.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        for row in reader:
            yield reader.line_num, {k: _csv_cell(v) for k, v in row.items() if k is not None}


def _csv_cell(value: str | None) -> Any:
    """CSV cells holding JSON lists/objects (e.g. ``steps``) are decoded; empty means missing."""
    if value is None or value == "":
        return None
    if value[:1] in "[{":
        with contextlib.suppress(json.JSONDecodeError):
            return json.loads(value)
    return value


def _iter_parquet(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    import pyarrow.parquet as pq

    yield from enumerate(pq.read_table(p).to_pylist(), start=1)


def read_records(
    path: str | Path, model: type[T], *, context: Mapping[str, Any] | None = None
) -> list[tuple[int, T]]:
    """Every record of ``path`` validated as ``model``, with its line (or row) number.

    ``context`` is passed to pydantic validators (e.g. ``{"taxonomy": taxonomy}`` to reject
    acts outside a taxonomy).
    """
    out: list[tuple[int, T]] = []
    for number, raw in iter_rows(path):
        try:
            out.append((number, model.model_validate(raw, context=dict(context or {}))))
        except ValidationError as exc:
            raise InputError.from_validation(str(path), number, exc) from None
    return out


def index_by_id(path: str | Path, records: list[tuple[int, T]]) -> dict[str, tuple[int, T]]:
    """Records keyed by their ``id``; a repeated id is an error naming both lines."""
    out: dict[str, tuple[int, T]] = {}
    for number, rec in records:
        rid = str(getattr(rec, "id"))  # noqa: B009 - every keyed model has an id field
        if rid in out:
            raise InputError(
                str(path), number, "id", "unique ids", f"{rid!r} already on line {out[rid][0]}"
            )
        out[rid] = (number, rec)
    return out


# ---------------------------------------------------------------------------- writing


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it is fsynced and renamed to ``path``."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        encoding, newline = (None, None) if "b" in mode else ("utf-8", "")
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _jsonable(record: BaseModel | Mapping[str, Any]) -> Any:
    if isinstance(record, BaseModel):
        return record.model_dump(mode="json", exclude_none=True)
    return record if isinstance(record, dict) else dict(record)


def _finite(value: Any) -> Any:
    """NaN/inf become ``null`` so that the output is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def dumps(obj: Any, *, indent: int | None = None) -> str:
    """JSON text of ``obj`` with Japanese kept as UTF-8 and NaN written as ``null``."""
    try:  # the common case, no NaN: no walk over the whole value first
        return json.dumps(obj, ensure_ascii=False, indent=indent, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(obj), ensure_ascii=False, indent=indent, allow_nan=False)


def write_jsonl(path: str | Path, records: Iterable[BaseModel | Mapping[str, Any]]) -> None:
    """Write one JSON object per line, atomically."""
    with atomic_open(path) as fh:
        for rec in records:
            fh.write(dumps(_jsonable(rec)) + "\n")


def write_json(path: str | Path, obj: Any) -> None:
    """Write one JSON document (indented), atomically."""
    with atomic_open(path) as fh:
        fh.write(dumps(obj, indent=2) + "\n")


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
