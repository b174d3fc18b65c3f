"""Reading text files safely: what is at a path, strict UTF-8 lines, and the limits every
record's values keep (string length, no lone surrogates, nesting depth). Each problem is an
:class:`~taiwa.core.errors.InputError` naming the file, the line and the field."""

from __future__ import annotations

import codecs
import json
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.schema import MAX_TEXT_CHARS

MAX_DEPTH = 100
"""How deeply a record's lists and objects may nest; deeper input is an error (JSON nested
thousands deep would otherwise exhaust the interpreter's recursion limit somewhere later)."""

MAX_NUMBER = 2**63
"""Numbers in a JSON or YAML input are finite and smaller than this in magnitude (what fits a
64-bit integer): a 400-digit integer or ``1e400`` is an error where it is read, not an
overflow in whatever computes with it later."""

NUMBER_LIMIT = "a finite number of magnitude below 2**63"
"""How :data:`MAX_NUMBER` is worded in errors."""

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def path_kind(p: Path) -> str:
    """What is at ``p``: ``file``, ``directory``, ``other`` (a device, a pipe) or ``missing``.
    A path the system cannot look up at all (a name too long, no permission) is an
    :class:`InputError`."""
    try:
        mode = p.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        raise InputError(shown_path(p), None, None, "a usable path", exc.strerror) from None
    if stat.S_ISREG(mode):
        return "file"
    return "directory" if stat.S_ISDIR(mode) else "other"


def shown_path(p: str | Path, limit: int = 1000) -> str:
    """``p`` for a message, cut in the middle when it is absurdly long."""
    text = str(p)
    return text if len(text) <= limit else text[: limit // 2] + "…" + text[-limit // 2 :]


def shown_name(text: str, limit: int = 200) -> str:
    """A name the user typed (a system, a SPEC) for a message: as typed when it is short and
    printable, else quoted and cut (an empty name shows as ``''``)."""
    if text.strip() and text.isprintable() and len(text) <= limit:
        return text
    from taiwa.core.errors import _short

    return _short(text, limit)


def require_file(p: Path, what: str = "an existing file") -> None:
    """An :class:`InputError` unless ``p`` is a regular file (saying what it is instead)."""
    kind = path_kind(p)
    if kind != "file":
        got = {"missing": "no such file", "directory": "a directory"}.get(kind, "not a file")
        raise InputError(shown_path(p), None, None, what, got)


def decoded_lines(p: Path) -> Iterator[str]:
    """The lines of ``p`` as text (line ends kept), read as strict UTF-8 one line at a time;
    a leading BOM is dropped. Bytes that are not UTF-8, and NUL bytes (UTF-16 or binary
    data), are an :class:`InputError` naming the line and column."""
    for number, raw in raw_lines(p):
        yield decoded(p, number, raw)


def raw_lines(p: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of every line of ``p`` (line ends kept), a leading UTF-8 BOM
    dropped; :func:`decoded` checks and decodes one. An unreadable file is an
    :class:`InputError`."""
    try:
        with p.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if number == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8) :]
                yield number, raw
    except OSError as exc:
        raise InputError(str(p), None, None, "a readable file", exc.strerror or str(exc)) from None


def decoded(p: Path, number: int, raw: bytes) -> str:
    """Line ``number`` of ``p`` as strict UTF-8 text, or the :class:`InputError` naming
    what is wrong with its bytes."""
    if number == 1 and raw[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        raise InputError(str(p), number, None, "UTF-8 text", "a UTF-16 byte order mark")
    nul = raw.find(b"\x00")
    if nul >= 0:
        got = f"a NUL byte at column {nul + 1}: UTF-16 or binary data?"
        raise InputError(str(p), number, None, "UTF-8 text", got)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        got = f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"
        if exc.reason == "unexpected end of data" and not raw.endswith(b"\n"):
            got = f"a character cut off at column {exc.start + 1}: is the file truncated?"
        raise InputError(str(p), number, None, "UTF-8 text", got) from None


def json_problem(exc: json.JSONDecodeError, text: str) -> tuple[str, int]:
    """What a JSON parse error of ``text`` says, with its column (``Expecting ',' delimiter at
    column 12``) and the line it is on. A string whose closing quote is missing runs into the
    line's end, which Python's parser reports as the line break: "Invalid control character";
    that case is said as what it is, "unterminated string starting at column N"."""
    if exc.msg.startswith("Invalid control character") and text[exc.pos : exc.pos + 1] in (
        "\n",
        "\r",
    ):
        try:
            json.loads(text[: exc.pos])
        except json.JSONDecodeError as inner:
            if inner.msg.startswith("Unterminated string"):
                return (
                    f"unterminated string starting at column {inner.colno}: its closing quote "
                    "is missing",
                    inner.lineno,
                )
    return f"{exc.msg.removesuffix(' at')} at column {exc.colno}", exc.lineno


def json_type(value: Any) -> str:
    """The JSON name of ``value``'s type (``null``, ``array`` ...), for messages."""
    names = {type(None): "null", bool: "true/false", list: "an array", dict: "an object"}
    found = names.get(type(value))
    if found is None:
        found = "a string" if isinstance(value, str) else "a number"
    return found


def check_values(path: str | Path, line: int | None, obj: Any, *, surrogates: bool = True) -> None:
    """Every string (value or key) in ``obj`` is at most
    :data:`~taiwa.core.schema.MAX_TEXT_CHARS` long and, with ``surrogates``, holds no lone surrogate
    (text that cannot be written as UTF-8); lists and objects nest at most :data:`MAX_DEPTH`
    deep. Raises :class:`InputError` naming the field."""
    stack: list[tuple[str, Any, int]] = [("", obj, 0)]
    while stack:
        where, value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(path, line, where, value, surrogates)
        elif isinstance(value, dict | list):
            if depth >= MAX_DEPTH:
                raise InputError(
                    str(path), line, where or None, f"nesting at most {MAX_DEPTH} deep", "deeper"
                )
            if isinstance(value, list):
                stack.extend((f"{where}[{i}]", v, depth + 1) for i, v in enumerate(value))
                continue
            for key, v in value.items():
                name = f"{where}.{key}" if where else str(key)
                if isinstance(key, str):
                    _check_text(path, line, name, key, surrogates)
                stack.append((name, v, depth + 1))


def _check_text(
    path: str | Path, line: int | None, where: str, text: str, surrogates: bool
) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(
            str(path),
            line,
            _short_name(where) or None,
            f"at most {MAX_TEXT_CHARS:,} characters",
            f"{len(text):,}",
        )
    if surrogates and _SURROGATE.search(text):
        raise InputError(
            str(path),
            line,
            _short_name(where) or None,
            "text that can be written as UTF-8",
            "a lone surrogate such as \\ud800",
        )


def _short_name(where: str, limit: int = 80) -> str:
    return where if len(where) <= limit else where[: limit - 1] + "…"
