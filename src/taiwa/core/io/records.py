"""Records: the rows of a JSONL, CSV or Parquet file (chosen by suffix), each validated
against a pydantic model; ids checked unique while streaming."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from taiwa.core.errors import InputError
from taiwa.core.errors import _short as shown
from taiwa.core.io.jsonl import JSONL_SUFFIXES, _iter_jsonl, _iter_jsonl_validated
from taiwa.core.io.seen_ids import SeenIds
from taiwa.core.io.tabular import _iter_csv, _iter_parquet
from taiwa.core.io.text import require_file
from taiwa.core.schema import MAX_ID_CHARS

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


def iter_rows(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_or_row_number, raw mapping)`` for every record of a JSONL, CSV or Parquet file.

    Text must be UTF-8 (a leading BOM is skipped, CRLF line ends are fine); blank JSONL lines
    are skipped. Raises :class:`InputError`, naming the file and where possible the line and
    field, for a missing file or a directory, bytes that are not UTF-8 text, broken JSON or
    CSV, a corrupt Parquet file, a line that is not an object, a string longer than
    :data:`~taiwa.core.schema.MAX_TEXT_CHARS`, a lone surrogate (``"\\ud800"``), nesting deeper than
    :data:`MAX_DEPTH`, and a file without any record.
    """
    p = Path(path)
    require_file(p)
    suffix = p.suffix.lower()
    if suffix in JSONL_SUFFIXES:
        rows = _iter_jsonl(p)
    elif suffix == ".csv":
        rows = _iter_csv(p)
    elif suffix == ".parquet":
        rows = _iter_parquet(p)
    else:
        raise InputError(str(p), None, None, "a .jsonl, .csv or .parquet file", f"'{suffix}'")
    return _some(p, rows)


def _some(p: Path, rows: Iterator[tuple[int, R]]) -> Iterator[tuple[int, R]]:
    """``rows``, or an :class:`InputError` for a file without any record."""
    empty = True
    for number, row in rows:
        empty = False
        yield number, row
    if empty:
        raise InputError(str(p), None, None, "at least one record", "no records")


def iter_records(
    path: str | Path, model: type[T], *, context: Mapping[str, Any] | None = None
) -> Iterator[tuple[int, T]]:
    """Each record of ``path`` validated as ``model``, with its line (or row) number, one at
    a time (see :func:`read_records`). JSONL lines are validated in one step where they can
    be (:func:`~taiwa.core.io.jsonl._iter_jsonl_validated`); the errors are the same."""
    ctx = dict(context or {})
    p = Path(path)
    rows: Iterator[tuple[int, T | dict[str, Any]]]
    if p.suffix.lower() in JSONL_SUFFIXES:
        require_file(p)
        rows = _some(p, _iter_jsonl_validated(p, model, ctx))
    else:
        rows = iter_rows(p)
    for number, raw in rows:
        if isinstance(raw, model):
            yield number, raw
            continue
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


_IDS_CHECKED: ContextVar[bool] = ContextVar("taiwa_ids_checked", default=False)
"""Set while a dataset whose ids were checked is read again (:func:`ids_checked`)."""


@contextmanager
def ids_checked() -> Iterator[None]:
    """Within it, :func:`unique_ids` called on a dataset read again after a pass that checked
    its ids (the runner reading its later chunks, :mod:`taiwa.harness.samples`) passes the
    records through: the ids are not gathered a second time while the run goes on."""
    token = _IDS_CHECKED.set(True)
    try:
        yield
    finally:
        _IDS_CHECKED.reset(token)


def unique_ids(path: str | Path, records: Iterable[tuple[int, T]]) -> Iterator[T]:
    """The records in order, streamed; a repeated ``id`` is an error naming both lines. Only
    the ids' digests and lines are kept, about 24 bytes an id (:class:`SeenIds`): a repeat of
    an id read more than :data:`~taiwa.core.io.seen_ids.RECENT` records before is reported
    within that many records of its line, and always before the stream ends. Inside
    :func:`ids_checked` (a second read) the records pass unchecked."""
    if _IDS_CHECKED.get():
        return (rec for _, rec in records)
    return _unique(path, records)


def _unique(path: str | Path, records: Iterable[tuple[int, T]]) -> Iterator[T]:
    seen = SeenIds()
    for number, rec in records:
        check_id(path, number, getattr(rec, "id"), seen)  # noqa: B009 - keyed models have ids
        if seen.repeated is not None:
            _repeated(path, seen.repeated)
        yield rec
    seen.finish()
    if seen.repeated is not None:
        _repeated(path, seen.repeated)


def _repeated(path: str | Path, repeat: tuple[str, int, int]) -> None:
    rid, first, number = repeat
    raise InputError(str(path), number, "id", "unique ids", f"{shown(rid)} already on line {first}")


class _Seen(Protocol):
    def setdefault(self, rid: str, line: int, /) -> int: ...


def check_id(path: str | Path, number: int, rid: Any, seen: _Seen) -> None:
    """``rid`` (the id on line ``number``) is a non-blank string of at most
    :data:`~taiwa.core.schema.MAX_ID_CHARS` characters not in ``seen`` (ids already read, with
    their lines: a dict, or a :class:`SeenIds`), which it is added to; otherwise an
    :class:`InputError` naming the line (and the line of the first use of a repeated id)."""
    if not isinstance(rid, str) or not rid.strip():
        raise InputError(str(path), number, "id", "a non-blank string", shown(rid))
    if len(rid) > MAX_ID_CHARS:
        got = f"{len(rid):,} characters"
        raise InputError(str(path), number, "id", f"at most {MAX_ID_CHARS:,} characters", got)
    first = seen.setdefault(rid, number)
    if first != number:
        _repeated(path, (rid, first, number))


def index_by_id(path: str | Path, records: list[tuple[int, T]]) -> dict[str, tuple[int, T]]:
    """Records keyed by their ``id``; a repeated id is an error naming both lines."""
    checked = unique_ids(path, records)
    return {str(getattr(rec, "id")): (n, rec) for (n, _), rec in zip(records, checked)}  # noqa: B009,B905
