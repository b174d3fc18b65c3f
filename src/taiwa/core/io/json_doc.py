"""One JSON document (a run's ``summary.json`` / ``config.json``, a build's record): read as
strict UTF-8 from a regular file, parsed, checked to be an object. Every problem is an
:class:`~taiwa.core.errors.InputError` naming the file and the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io.text import (
    MAX_DEPTH,
    decoded_lines,
    json_problem,
    json_type,
    path_kind,
    shown_path,
)

_NESTING = f"JSON nested at most {MAX_DEPTH} deep"


def read_json_object(
    path: Path, what: str = "a file written by taiwa"
) -> tuple[dict[str, Any], str]:
    """The JSON object in ``path`` and its text. A path that is not a regular file (missing, a
    directory, a FIFO or a device: refused before opening), text that is not UTF-8, broken
    JSON, nesting deeper than :data:`MAX_DEPTH` and a document that is not an object are each
    one :class:`InputError`."""
    kind = path_kind(path)
    if kind != "file":
        got = {"missing": "no such file", "directory": "a directory"}.get(kind, "not a file")
        raise InputError(shown_path(path), None, None, what, got)
    text = "".join(decoded_lines(path))
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " (is the file truncated?)" if exc.pos >= len(text.rstrip()) else ""
        got, line = json_problem(exc, text)
        raise InputError(str(path), line, None, "valid JSON", got + cut) from None
    except RecursionError:
        raise InputError(
            str(path), None, None, f"JSON nested at most {MAX_DEPTH} deep", "deeper"
        ) from None
    if not isinstance(obj, dict):
        raise InputError(str(path), 1, None, "a JSON object", json_type(obj))
    if _depth(obj) > MAX_DEPTH:
        raise InputError(str(path), None, None, _NESTING, "deeper")
    return obj, text


def _depth(obj: Any) -> int:
    """How deeply ``obj``'s lists and objects nest (iteratively: no recursion limit)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items if isinstance(v, dict | list))
    return deepest
