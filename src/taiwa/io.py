"""Reading and writing records: JSONL, CSV and Parquet.

Every reader validates each row against a pydantic model and raises :class:`InputError` that
names the file, the line (or row) and the field, and says what was expected. Every writer is
atomic: it writes a temporary file in the target directory and renames it into place, so a
crash never leaves a half-written output. Text is UTF-8 with ``ensure_ascii=False``.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import errno
import functools
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel, ValidationError

from taiwa.errors import InputError
from taiwa.errors import _short as shown
from taiwa.schema import MAX_TEXT_CHARS

T = TypeVar("T", bound=BaseModel)

__all__ = [
    "InputError",
    "atomic_open",
    "check_values",
    "check_writable",
    "decoded_lines",
    "dumps",
    "index_by_id",
    "iter_records",
    "iter_rows",
    "parse_yaml",
    "path_kind",
    "read_records",
    "read_yaml",
    "require_file",
    "shown",
    "shown_path",
    "unique_ids",
    "write_csv",
    "write_json",
    "write_jsonl",
    "write_parquet",
]


# ---------------------------------------------------------------------------- reading

MAX_DEPTH = 100
"""How deeply a record's lists and objects may nest; deeper input is an error (JSON nested
thousands deep would otherwise exhaust the interpreter's recursion limit somewhere later)."""

CSV_FIELD_CHARS = 64 * 2**20
"""CSV cells up to this size are read (and then checked against MAX_TEXT_CHARS by field)."""

_SURROGATE = re.compile(r"[\ud800-\udfff]")


def iter_rows(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_or_row_number, raw mapping)`` for every record of a JSONL, CSV or Parquet file.

    Text must be UTF-8 (a leading BOM is skipped, CRLF line ends are fine); blank JSONL lines
    are skipped. Raises :class:`InputError`, naming the file and where possible the line and
    field, for a missing file or a directory, bytes that are not UTF-8 text, broken JSON or
    CSV, a corrupt Parquet file, a line that is not an object, a string longer than
    :data:`~taiwa.schema.MAX_TEXT_CHARS`, a lone surrogate (``"\\ud800"``), nesting deeper than
    :data:`MAX_DEPTH`, and a file without any record.
    """
    p = Path(path)
    require_file(p)
    suffix = p.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        rows = _iter_jsonl(p)
    elif suffix == ".csv":
        rows = _iter_csv(p)
    elif suffix == ".parquet":
        rows = _iter_parquet(p)
    else:
        raise InputError(str(p), None, None, "a .jsonl, .csv or .parquet file", f"'{suffix}'")
    empty = True
    for number, row in rows:
        empty = False
        yield number, row
    if empty:
        raise InputError(str(p), None, None, "at least one record", "no records")


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
    try:
        with p.open("rb") as fh:
            for number, raw in enumerate(fh, start=1):
                if number == 1 and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8) :]
                yield _decoded(p, number, raw)
    except OSError as exc:
        raise InputError(str(p), None, None, "a readable file", exc.strerror or str(exc)) from None


def _decoded(p: Path, number: int, raw: bytes) -> str:
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


def json_type(value: Any) -> str:
    """The JSON name of ``value``'s type (``null``, ``array`` ...), for messages."""
    names = {type(None): "null", bool: "true/false", list: "an array", dict: "an object"}
    found = names.get(type(value))
    if found is None:
        found = "a string" if isinstance(value, str) else "a number"
    return found


def check_values(path: str | Path, line: int | None, obj: Any, *, surrogates: bool = True) -> None:
    """Every string (value or key) in ``obj`` is at most
    :data:`~taiwa.schema.MAX_TEXT_CHARS` long and, with ``surrogates``, holds no lone surrogate
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
            return json.loads(value)
        except json.JSONDecodeError:
            return value
        except RecursionError:
            raise InputError(
                str(p), number, None, f"JSON nested at most {MAX_DEPTH} deep", "deeper"
            ) from None
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


# ---------------------------------------------------------------------------- YAML


def read_yaml(path: str | Path) -> Any:
    """The YAML document in ``path`` (``None`` when it holds none), read as strict UTF-8 and
    parsed by :func:`parse_yaml`."""
    p = Path(path)
    require_file(p, "an existing YAML file")
    return parse_yaml("".join(decoded_lines(p)), str(p))


def parse_yaml(text: str, source: str) -> Any:
    """One YAML document, loaded safely (no Python tags) and strictly: no aliases (``&a`` /
    ``*a``, so no alias bombs), no keys other than strings, nesting at most :data:`MAX_DEPTH`
    deep, strings at most :data:`~taiwa.schema.MAX_TEXT_CHARS` long without lone surrogates.
    Anything else is an :class:`InputError` naming ``source`` and the line."""
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())  # a SafeLoader: no Python objects
    except _YamlRefusal as exc:
        raise InputError(source, exc.line, exc.field, exc.expected, exc.got) from None
    except RecursionError:
        raise InputError(source, None, None, f"YAML nested at most {MAX_DEPTH} deep") from None
    except yaml.YAMLError as exc:
        raise InputError(
            source, _yaml_line(exc, text), None, "valid YAML", _yaml_problem(exc)
        ) from None


class _YamlRefusal(Exception):
    """Something :func:`parse_yaml` does not accept, located."""

    def __init__(self, mark: Any, field: str | None, expected: str, got: str | None) -> None:
        super().__init__(expected)
        self.line = mark.line + 1 if mark is not None else None
        self.field, self.expected, self.got = field, expected, got


def _yaml_line(exc: Any, text: str) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        return int(mark.line) + 1
    position = getattr(exc, "position", None)  # ReaderError: a character YAML does not allow
    return text.count("\n", 0, position) + 1 if isinstance(position, int) else None


def _yaml_problem(exc: Any) -> str:
    problem = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
    return str(problem)[:200]


@functools.cache
def _strict_loader() -> type:
    import yaml

    class StrictLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            event: Any = self.peek_event()  # type: ignore[no-untyped-call]
            if isinstance(event, yaml.AliasEvent):
                raise _YamlRefusal(
                    event.start_mark, None, "no YAML aliases (*name)", f"*{event.anchor}"
                )
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _YamlRefusal(
                    event.start_mark, None, f"nesting at most {MAX_DEPTH} deep", "deeper"
                )
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            for key_node, _ in node.value:
                if key_node.tag != "tag:yaml.org,2002:str":
                    got = (
                        f"{key_node.value!r}"
                        if isinstance(key_node, yaml.ScalarNode)
                        else "a collection"
                    )
                    raise _YamlRefusal(key_node.start_mark, None, "string keys", got[:60])
            return super().construct_mapping(node, deep=deep)

        def construct_scalar(self, node: Any) -> Any:
            value = super().construct_scalar(node)
            if isinstance(value, str):
                try:
                    _check_text("", None, "", value, True)
                except InputError as exc:
                    raise _YamlRefusal(node.start_mark, None, exc.expected, exc.got) from None
            return value

    return StrictLoader


def iter_records(
    path: str | Path, model: type[T], *, context: Mapping[str, Any] | None = None
) -> Iterator[tuple[int, T]]:
    """Each record of ``path`` validated as ``model``, with its line (or row) number, one at
    a time (see :func:`read_records`)."""
    ctx = dict(context or {})
    for number, raw in iter_rows(path):
        try:
            yield number, model.model_validate(raw, context=ctx)
        except ValidationError as exc:
            raise InputError.from_validation(str(path), number, exc) from None


def read_records(
    path: str | Path, model: type[T], *, context: Mapping[str, Any] | None = None
) -> list[tuple[int, T]]:
    """Every record of ``path`` validated as ``model``, with its line (or row) number.

    ``context`` is passed to pydantic validators (e.g. ``{"taxonomy": taxonomy}`` to reject
    acts outside a taxonomy).
    """
    return list(iter_records(path, model, context=context))


def unique_ids(path: str | Path, records: Iterable[tuple[int, T]]) -> Iterator[T]:
    """The records in order, streamed; a repeated ``id`` is an error naming both lines (only the
    ids and their line numbers are kept)."""
    seen: dict[str, int] = {}
    for number, rec in records:
        rid = str(getattr(rec, "id"))  # noqa: B009 - every keyed model has an id field
        if rid in seen:
            raise InputError(
                str(path), number, "id", "unique ids", f"{shown(rid)} already on line {seen[rid]}"
            )
        seen[rid] = number
        yield rec


def index_by_id(path: str | Path, records: list[tuple[int, T]]) -> dict[str, tuple[int, T]]:
    """Records keyed by their ``id``; a repeated id is an error naming both lines."""
    checked = unique_ids(path, records)
    return {str(getattr(rec, "id")): (n, rec) for (n, _), rec in zip(records, checked)}  # noqa: B009,B905


# ---------------------------------------------------------------------------- writing


def _umask() -> int:
    """The process umask (read by setting it, and setting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it is fsynced and renamed to ``path``."""
    target = Path(path)
    fd, tmp = _temp_beside(target)
    try:
        encoding, newline = (None, None) if "b" in mode else ("utf-8", "")
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.chmod(fh.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600: honour the umask
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


def check_writable(path: str | Path, what: str) -> None:
    """An :class:`InputError` unless a file can be written at ``path`` (checked before any work
    is done): it is not a directory, and its nearest existing ancestor is a directory where a
    file can be created (tried with a temporary file, so read-only places are caught for every
    user, root included). Missing directories in between are created when writing."""
    p = Path(path)
    expected = f"a writable file path for {what}"
    kind = path_kind(p)
    if kind == "directory":
        raise InputError(shown_path(p), None, None, expected, "a directory")
    if kind == "other":  # the atomic write would replace a pipe or a device with a file
        raise InputError(shown_path(p), None, None, expected, "a pipe or device, not a file")
    parent = p.parent
    while path_kind(parent) == "missing" and parent != parent.parent:
        parent = parent.parent
    if path_kind(parent) != "directory":
        got = f"{shown_path(parent)} is not a directory"
        raise InputError(shown_path(p), None, None, expected, got)
    try:
        tempfile.TemporaryFile(dir=parent).close()  # a file can be created there
    except OSError as exc:
        raise InputError(shown_path(p), None, None, expected, exc.strerror or str(exc)) from None


def _temp_beside(target: Path) -> tuple[int, str]:
    """A new temporary file in ``target``'s directory (created if missing). A target that is a
    directory, or a place where no file can be made, is an :class:`InputError` naming it."""
    try:
        if target.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        got = exc.strerror or str(exc)
        raise InputError(str(target), None, None, "a writable file path", got) from None
