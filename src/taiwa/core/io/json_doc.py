"""JSON text, bounded: :func:`loads` is the one parser of every JSON taiwa reads from a file
(a run's ``summary.json`` / ``config.json`` and stage files, JSONL records, a prices file, a
tagger's validation report, a resource's metadata): nesting at most :data:`MAX_DEPTH` deep,
numbers finite and below :data:`MAX_NUMBER` in magnitude, no ``NaN`` / ``Infinity``; every
problem an :class:`~taiwa.core.errors.InputError` naming the file and the line.
:func:`read_json_object` reads one JSON document (strict UTF-8 from a regular file) that
must be an object."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io.text import (
    MAX_DEPTH,
    MAX_NUMBER,
    NUMBER_LIMIT,
    decoded_lines,
    json_problem,
    json_type,
    path_kind,
    shown_path,
)

NESTING = f"JSON nested at most {MAX_DEPTH} deep"

SUSPECT_DIGITS = re.compile(r"\d{19}")
SUSPECT_EXPONENT = re.compile(r"e\+?\d\d", re.IGNORECASE)
"""What every number beyond the bounds contains: 19 digits in a row, an exponent of two or
more digits (or ``NaN`` / ``Infinity``, looked for as substrings); text without any is parsed
without the checks. (Two simple patterns: Python's ``re`` runs them faster than one with an
alternation, and a digit class faster as ``\\d`` than as ``[0-9]``.)"""

_DIGITS_BYTES = re.compile(rb"\d{19}")
_EXPONENT_BYTES = re.compile(rb"e\+?\d\d", re.IGNORECASE)


def suspect(text: str) -> bool:
    """Whether ``text`` may hold a number beyond the bounds."""
    return (
        "NaN" in text
        or "Infinity" in text
        or SUSPECT_DIGITS.search(text) is not None
        or SUSPECT_EXPONENT.search(text) is not None
    )


def suspect_bytes(raw: bytes) -> bool:
    """:func:`suspect` of a line's bytes."""
    return (
        b"NaN" in raw
        or b"Infinity" in raw
        or _DIGITS_BYTES.search(raw) is not None
        or _EXPONENT_BYTES.search(raw) is not None
    )


class JSONSyntaxError(InputError):
    """Text that is not JSON at all (raised by :func:`loads`; a CSV cell that merely starts
    with ``[`` is then kept as text)."""


class _Unbounded:
    """A number outside the bounds, left in the parsed value by the parser's hooks so that
    :func:`loads` can name where it is (``steps[0].importance``)."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal


def _int(text: str) -> int | _Unbounded:
    if len(text) > 20:  # no int() of a 100,000-digit literal
        return _Unbounded(text)
    value = int(text)
    return _Unbounded(text) if abs(value) >= MAX_NUMBER else value


def _float(text: str) -> float | _Unbounded:
    value = float(text)
    return _Unbounded(text) if not math.isfinite(value) or abs(value) >= MAX_NUMBER else value


def loads(
    text: str,
    source: str,
    line: int | None = None,
    *,
    expected: str = "valid JSON",
    check_depth: bool = True,
) -> Any:
    """``text`` parsed as JSON, within the bounds (see the module's docstring). ``source``
    (the file) and ``line`` (when ``text`` is one line of it) locate the errors; ``expected``
    words a syntax error. With ``check_depth`` the nesting is measured after parsing (JSON
    nested beyond the interpreter's recursion limit is refused while parsing either way)."""
    flagged = suspect(text)
    try:
        if flagged:
            obj = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_Unbounded)
        else:
            obj = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " (is the file truncated?)" if exc.pos >= len(text.rstrip()) else ""
        problem, lineno = json_problem(exc, text)
        got = problem + cut
        at = lineno if line is None else line
        raise JSONSyntaxError(source, at, None, expected, got) from None
    except RecursionError:
        raise InputError(source, line, None, NESTING, "deeper") from None
    if check_depth and text.count("[") + text.count("{") > MAX_DEPTH and depth(obj) > MAX_DEPTH:
        raise InputError(source, line, None, NESTING, "deeper")
    if flagged:
        _refuse_unbounded(obj, text, source, line)
    return obj


def _refuse_unbounded(obj: Any, text: str, source: str, line: int | None) -> None:
    """The :class:`InputError` naming the first number of ``obj`` outside the bounds (its
    path and, in a document, its line), if there is one."""
    stack: list[tuple[str, Any]] = [("", obj)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, _Unbounded):
            literal = value.literal
            at = line
            if at is None:
                at = text.count("\n", 0, max(text.find(literal), 0)) + 1
            shown = (
                literal if len(literal) <= 24 else f"{literal[:12]}… ({len(literal):,} characters)"
            )
            raise InputError(source, at, where or None, NUMBER_LIMIT, shown)
        if isinstance(value, dict):
            items = [(f"{where}.{k}" if where else str(k), v) for k, v in value.items()]
            stack += reversed(items)
        elif isinstance(value, list):
            stack += reversed([(f"{where}[{k}]", v) for k, v in enumerate(value)])


def read_json_object(
    path: Path, what: str = "a file written by taiwa"
) -> tuple[dict[str, Any], str]:
    """The JSON object in ``path`` and its text. A path that is not a regular file (missing, a
    directory, a FIFO or a device: refused before opening), text that is not UTF-8, broken
    JSON, JSON beyond :func:`loads`'s bounds and a document that is not an object are each
    one :class:`InputError`."""
    kind = path_kind(path)
    if kind != "file":
        got = {"missing": "no such file", "directory": "a directory"}.get(kind, "not a file")
        raise InputError(shown_path(path), None, None, what, got)
    text = "".join(decoded_lines(path))
    obj = loads(text, str(path))
    if not isinstance(obj, dict):
        raise InputError(str(path), 1, None, "a JSON object", json_type(obj))
    return obj, text


def depth(obj: Any) -> int:
    """How deeply ``obj``'s lists and objects nest (iteratively: no recursion limit)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, level)
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, level + 1) for v in items if isinstance(v, dict | list))
    return deepest
