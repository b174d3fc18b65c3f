"""JSON Lines and JSON: reading one object per line (checked by :mod:`.text`), writing rows
and documents atomically with Japanese kept as UTF-8 and NaN written as ``null``."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from taiwa.errors import InputError
from taiwa.io.atomic import atomic_open
from taiwa.io.text import MAX_DEPTH, check_values, decoded_lines, json_type
from taiwa.schema import MAX_TEXT_CHARS


def _iter_jsonl(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(decoded_lines(p), start=1):
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
                f"{exc.msg.removesuffix(' at')} at column {exc.colno}",
            ) from None
        except RecursionError:
            raise InputError(
                str(p), number, None, f"JSON nested at most {MAX_DEPTH} deep", "deeper"
            ) from None
        if not isinstance(obj, dict):
            raise InputError(str(p), number, None, "a JSON object", json_type(obj))
        escaped = "\\u" in line
        # Skip the walk when the line itself bounds every string and the nesting (most lines).
        if escaped or len(line) > MAX_TEXT_CHARS or line.count("{") + line.count("[") > MAX_DEPTH:
            check_values(p, number, obj, surrogates=escaped)
        yield number, obj


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


_ROW_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
"""One encoder for every single-line value (``json.dumps`` with options builds one per call,
a third of the cost of a short row)."""


def dumps(obj: Any, *, indent: int | None = None) -> str:
    """JSON text of ``obj`` with Japanese kept as UTF-8 and NaN written as ``null``."""
    try:  # the common case, no NaN: no walk over the whole value first
        if indent is None:
            return _ROW_ENCODER.encode(obj)
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
