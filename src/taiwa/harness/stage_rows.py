"""A run's stage files (DESIGN.md, run directories: one JSON object per line, per sample and
system), read and checked: each row an object with its ``id`` (and ``system`` for a stage
run per system), named fields of their kind, numbers finite and at most
:data:`~taiwa.harness.summary_fields.MAX_VALUE` in magnitude, one line per item (and system);
and each file as a whole against the run's ``summary.json`` (:func:`check_stage_files`): as
many rows as samples (per system), the failures it counts, the same items in every file.
Every error names the file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io import decoded_lines, json_type, path_kind, shown_path
from taiwa.core.io import shown as short
from taiwa.core.io.json_doc import loads
from taiwa.harness.summary_fields import MAX_VALUE
from taiwa.harness.summary_schema import kind_ok, kind_text, shown

FAILURE_EXAMPLES = 3
"""Failed rows kept per stage file for the report (all are counted)."""

ROW_FIELDS = {
    "id": "string",
    "system": "string",
    "error": "string",
    "skipped": "bool",
    "cached": "bool",
    "attempts": "count",
    **dict.fromkeys(("tokens_in", "tokens_out", "retries"), "count"),
    **dict.fromkeys(("n", "n_items", "scored", "count"), "count"),
    "text": "string?",
    **dict.fromkeys(("chars", "turns", "n_turns", "deletion", "insertion"), "number?"),
    **dict.fromkeys(("japanese_share", "rouge1", "rouge2", "rougeL", "wlcs", "wed"), "number?"),
    **dict.fromkeys(("substitution", "rating", "choice", "gold"), "number?"),
    **dict.fromkeys(("correct", "dependent", "cut", "extracted"), "bool"),
}
"""Fields of a stage file's row whose name fixes their kind: those the runner writes and the
per-item numbers methods score (the other fields keep one kind through a file: :func:`scan`)."""


@dataclass(frozen=True)
class StageRow:
    """One line of a stage file: where it is, the item and system it belongs to (``system``
    is ``""`` in a stage run once across systems), and the row as written (``values``)."""

    file: str
    line: int
    id: str
    system: str
    values: Mapping[str, Any]

    @property
    def error(self) -> str | None:
        """Why the row failed (or was skipped after an earlier stage failed), else ``None``."""
        err = self.values.get("error")
        return str(err) if err is not None else None

    @property
    def skipped(self) -> bool:
        return bool(self.values.get("skipped"))

    @property
    def ok(self) -> bool:
        return "error" not in self.values


@dataclass
class StageFile:
    """One stage's file as checked: its rows per system (``""``: a stage across systems, or a
    method whose systems come from the data), the rows that failed in this stage, those
    skipped after an earlier failure, and the first :data:`FAILURE_EXAMPLES` failures (line,
    id, system, reason)."""

    stage: str
    file: str
    across: bool
    rows: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    examples: list[tuple[int, str, str, str]] = field(default_factory=list)

    @property
    def total_failed(self) -> int:
        return sum(self.failed.values())


def iter_rows(
    path: Path, kinds: dict[str, tuple[str, int]] | None = None, *, checked: bool = False
) -> Iterator[StageRow]:
    """Each row of a stage file, checked (see the module's docstring; one line per item and
    system is :func:`scan`'s; with ``kinds`` each field keeps one kind through the file; with
    ``checked``, a file :func:`scan` checked when the run was read, only parsed again). A
    file that is missing, not a file, not UTF-8 or damaged is an :class:`InputError` naming it
    and the line."""
    kind = path_kind(path)
    if kind != "file":
        got = {"missing": "no such file", "directory": "a directory"}.get(kind, "not a file")
        raise InputError(shown_path(path), None, None, "a stage file the run wrote", got)
    source = str(path)
    for number, line in enumerate(decoded_lines(path), start=1):
        if not line.strip():
            continue
        obj = loads(line, source, number, expected="one JSON object per line")
        if not isinstance(obj, dict):
            raise InputError(source, number, None, "a JSON object", json_type(obj))
        if not checked:
            check_row(path, number, obj, kinds)
        elif "id" not in obj:  # changed since it was read
            raise InputError(source, number, "id", "this field to be present")
        yield StageRow(path.name, number, obj["id"], obj.get("system", ""), obj)


_CLASS = {int: "a number", float: "a number", str: "a string", bool: "true/false",
          list: "an array", dict: "an object"}  # fmt: skip
"""The kind of a JSON value, by its Python type (what :func:`check_row` compares)."""


def check_row(
    path: Path, line: int, row: dict[str, Any], kinds: dict[str, tuple[str, int]] | None = None
) -> None:
    """A stage file's row, in one pass over its fields: an ``id``; the named fields of their
    kind (:data:`ROW_FIELDS`); every number (nested ones too) at most :data:`MAX_VALUE` in
    magnitude; and with ``kinds`` (field → the kind and line where it was first seen) each
    field of the kind it has on the file's other lines (null aside)."""
    if "id" not in row:
        raise InputError(str(path), line, "id", "this field to be present")
    for key, value in row.items():
        cls = _CLASS.get(type(value))
        allowed = _ROW_CLASSES.get(key)
        if allowed is not None and (
            (cls or "null") not in allowed
            or (key in _ROW_COUNTS and cls and (type(value) is not int or value < 0))
        ):
            spec = ROW_FIELDS[key]
            if not kind_ok(spec, value):
                raise InputError(str(path), line, key, kind_text(spec), shown(value))
        if cls == "a number":
            if abs(value) > MAX_VALUE:
                raise InputError(str(path), line, key, _MAGNITUDE, shown(value))
        elif cls in ("an array", "an object"):
            _check_magnitudes(path, line, key, value)
        if kinds is not None and cls is not None:
            first, at = kinds.setdefault(key, (cls, line))
            if first != cls:
                raise InputError(str(path), line, key, f"{first} like line {at}", shown(value))
    if not row["id"]:
        raise InputError(str(path), line, "id", "a non-empty string", '""')


_MAGNITUDE = f"a number of magnitude at most {MAX_VALUE:.0e}"

_SPEC_CLASSES = {"count": "a number", "number": "a number", "string": "a string",
                 "bool": "true/false", "list": "an array", "object": "an object"}  # fmt: skip
_ROW_CLASSES = {
    key: frozenset(
        [_SPEC_CLASSES[k.rstrip("?")] for k in spec.split("|")] + (["null"] if "?" in spec else [])
    )
    for key, spec in ROW_FIELDS.items()
}
""":data:`ROW_FIELDS` as the classes of :data:`_CLASS` each field may hold (a fast first
check; :func:`~taiwa.harness.summary_schema.kind_ok` words an error)."""
_ROW_COUNTS = {key for key, spec in ROW_FIELDS.items() if spec.startswith("count")}


def _check_magnitudes(path: Path, line: int, where: str, value: Any) -> None:
    stack: list[tuple[str, Any]] = [(where, value)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{where}.{k}", v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(f"{where}[{k}]", v) for k, v in enumerate(value)]
        elif type(value) in (int, float) and abs(value) > MAX_VALUE:
            raise InputError(str(path), line, where, _MAGNITUDE, shown(value))


def scan(path: Path, stage: str, across: bool, ids: set[str] | None = None) -> StageFile:
    """One pass over a stage file: every row checked, one line per item and system (a
    repeated one names both lines), rows and failures counted per system; the items' ids
    are added to ``ids`` when given."""
    out = StageFile(stage, path.name, across)
    seen: dict[tuple[str, str], int] = {}
    for row in iter_rows(path, {}):
        if ids is not None:
            ids.add(row.id)
        lane = "" if across else row.system
        first = seen.setdefault((lane, row.id), row.line)
        if first != row.line:
            who = f" of system {short(row.system)}" if lane else ""
            got = f"item {short(row.id)}{who} again (first on line {first})"
            raise InputError(str(path), row.line, "id", "one line per item", got)
        out.rows[lane] = out.rows.get(lane, 0) + 1
        if row.error is None:
            continue
        if row.skipped:
            out.skipped += 1
            continue
        out.failed[lane] = out.failed.get(lane, 0) + 1
        if len(out.examples) < FAILURE_EXAMPLES:
            out.examples.append((row.line, row.id, row.system, row.error))
    return out


def check_stage_files(
    root: Path,
    stage_files: Mapping[str, str],
    systems: Sequence[str],
    summary: Mapping[str, Any],
) -> dict[str, StageFile]:
    """Every stage file of a run (``stage_files``: stage → file name in ``root``) scanned and
    held against ``summary.json``: each system's rows (or, for a stage across systems, all
    rows) as many as ``n_samples``, rows only of the run's ``systems``, the failed rows as
    many as the summary's ``failures`` (per stage, and per system where it counts them), and
    the same items in every file. Returns the files as scanned, by stage."""
    n = summary.get("n_samples")
    blocks = summary["systems"]
    per_system = {
        st for b in blocks.values() if isinstance(b.get("failures"), dict) for st in b["failures"]
    }
    out: dict[str, StageFile] = {}
    first_ids: tuple[str, set[str]] | None = None
    for stage, name in stage_files.items():
        path = root / name
        if n == 0 and path_kind(path) == "missing":
            continue
        across = not systems or (bool(per_system) and stage not in per_system)
        ids: set[str] = set()
        scanned = scan(path, stage, across, ids)
        _check_counts(path, scanned, systems, summary)
        if first_ids is None:
            first_ids = (name, ids)
        elif ids != first_ids[1]:
            odd = sorted(ids ^ first_ids[1])[0]
            where, other = (name, first_ids[0]) if odd in ids else (first_ids[0], name)
            got = f"item {short(odd)} only in {where}"
            raise InputError(str(path), None, "id", f"the items of {other}", got)
        out[stage] = scanned
    return out


def _check_counts(
    path: Path, scanned: StageFile, systems: Sequence[str], summary: Mapping[str, Any]
) -> None:
    n = summary.get("n_samples")
    lanes = [""] if scanned.across else list(systems)
    extra = [lane for lane in scanned.rows if lane not in lanes]
    if extra:
        listed = short(", ".join(systems), 200)
        got = f"rows of {short(extra[0])}, which is none of the run's systems ({listed})"
        if not extra[0]:
            got = "a row without its system"
        raise InputError(str(path), None, "system", "rows of the run's systems", got)
    if isinstance(n, int):
        for lane in lanes:
            rows = scanned.rows.get(lane, 0)
            if rows != n:
                who = f" of system {short(lane)}" if lane else ""
                expected = f"{n} row(s){who}, one per sample (n_samples in summary.json)"
                raise InputError(str(path), None, None, expected, str(rows))
    counted = summary["failures"].get(scanned.stage)
    if isinstance(counted, int) and counted != scanned.total_failed:
        expected = f"{counted} failed row(s) (failures.{scanned.stage} in summary.json)"
        raise InputError(str(path), None, "error", expected, str(scanned.total_failed))
    for lane in lanes:
        block = summary["systems"].get(lane) if lane else None
        per = block.get("failures") if isinstance(block, dict) else None
        if (
            isinstance(per, dict)
            and isinstance(per.get(scanned.stage), int)
            and per[scanned.stage] != scanned.failed.get(lane, 0)
        ):
            expected = (
                f"{per[scanned.stage]} failed row(s) of system {lane!r} "
                f"(systems.{lane}.failures.{scanned.stage} in summary.json)"
            )
            raise InputError(str(path), None, "error", expected, str(scanned.failed.get(lane, 0)))
