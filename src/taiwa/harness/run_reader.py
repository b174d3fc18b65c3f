"""Reading run directories for the report: ``config.json`` and ``summary.json`` checked with
errors that name the file, line and field (a truncated or hand-edited file is a one-line
error, not a traceback), the stage files row by row (:func:`taiwa.core.io.iter_rows`), the charts a
run already wrote, and the failed rows with their reasons."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io import (
    decoded_lines,
    json_type,
    path_kind,
    read_json_object,
    require_file,
    shown_path,
)
from taiwa.harness.summary_schema import check_row, check_summary, line_of

SUMMARY = "summary.json"
CONFIG = "config.json"

FAILURE_EXAMPLES = 3
"""Failed rows shown per stage file (all are counted)."""


def read_json(path: Path) -> tuple[dict[str, Any], str]:
    """A JSON object file of a run and its text; errors name the file and the line."""
    return read_json_object(path, "a file written by a taiwa run")


@dataclass
class FailedRows:
    """Failed rows of one stage file: how many, how many were skipped because an earlier stage
    failed, and the first few (line, id, system, reason)."""

    file: str
    failed: int = 0
    skipped: int = 0
    examples: list[tuple[int, str, str, str]] = field(default_factory=list)


@dataclass
class RunData:
    """One finished run directory, read and checked."""

    path: Path
    config: dict[str, Any]
    summary: dict[str, Any]
    summary_text: str = ""

    @property
    def method(self) -> str:
        return str(self.summary["method"])

    @property
    def finished(self) -> str:
        """When ``summary.json`` was written (UTC)."""
        mtime = (self.path / SUMMARY).stat().st_mtime
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(mtime))

    def rows(self, name: str) -> Iterator[dict[str, Any]]:
        """The rows of a stage file of the run (errors name its line)."""
        for _, row in _jsonl(self.path / name):
            yield row

    @property
    def items(self) -> tuple[str, str, Any, Any]:
        """Which items the run was on: the dataset's file name and SHA-256, ``--limit`` and the
        number of samples."""
        cfg = self.config.get("config") or {}
        data = cfg.get("data")
        name = Path(str(data)).name if data else "the default data"
        digest = str((self.config.get("input_sha256") or {}).get(str(data), name))
        return name, digest, cfg.get("limit"), self.summary.get("n_samples")

    def has(self, name: str) -> bool:
        return (self.path / name).is_file()

    def text(self, name: str) -> str | None:
        """A text file of the run (an SVG chart it wrote), if present."""
        p = self.path / name
        return "".join(decoded_lines(p)) if p.is_file() else None

    def failed_rows(self) -> list[FailedRows]:
        """Every stage file's failed rows (``error`` without ``skipped``), counted, with the
        first :data:`FAILURE_EXAMPLES` of each."""
        out = []
        for p in sorted(self.path.glob("*.jsonl")):
            f = FailedRows(p.name)
            for line, row in _jsonl(p):  # every row checked: a damaged file is refused
                if "error" not in row:
                    continue
                if row.get("skipped"):
                    f.skipped += 1
                    continue
                f.failed += 1
                if len(f.examples) < FAILURE_EXAMPLES:
                    ident, system = str(row.get("id", "?")), str(row.get("system", ""))
                    f.examples.append((line, ident, system, str(row["error"])))
            if f.failed or f.skipped:
                out.append(f)
        return out


@contextmanager
def summary_errors(run: RunData) -> Iterator[None]:
    """A method that cannot read a summary (a hand-edited ``summary.json`` missing a block it
    needs) raises inside the block: an :class:`InputError` naming the file, the missing field
    and its line where it can be found, instead of a traceback."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        key = exc.args[0] if isinstance(exc, KeyError) and exc.args else None
        name = key if isinstance(key, str) else None
        line = line_of(run.summary_text, [name]) if name else None
        raise InputError(
            str(run.path / SUMMARY),
            line,
            name,
            f"a summary written by taiwa's {run.method} method",
            f"{type(exc).__name__}: {exc}"[:120],
        ) from None


def _jsonl(path: Path, only: str = "") -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, object)`` for each line of a JSONL file a run wrote (with ``only``: each line
    holding that text, the others are not parsed). A broken line (a truncated file, a hand
    edit) is an :class:`InputError` naming it. Unlike :func:`taiwa.core.io.iter_rows`, which checks
    every string of a user's input, this trusts the run's own values: it reads 10,000 scored
    dialogues several times faster."""
    require_file(path)
    for number, line in enumerate(decoded_lines(path), start=1):
        if not line.strip() or (only and only not in line):
            continue
        try:
            obj = json.loads(line, parse_constant=_no_constant)
        except _NotANumber as exc:
            got = f"{exc.args[0]} (taiwa writes null for a missing number)"
            raise InputError(str(path), number, None, "finite numbers", got) from None
        except json.JSONDecodeError as exc:
            cut = " (is the file truncated?)" if not line.endswith("\n") else ""
            got = f"{exc.msg} at column {exc.colno}{cut}"
            raise InputError(str(path), number, None, "one JSON object per line", got) from None
        except RecursionError:
            raise InputError(str(path), number, None, "JSON nested less deep", "deeper") from None
        if not isinstance(obj, dict):
            raise InputError(str(path), number, None, "a JSON object", json_type(obj))
        if not only:
            check_row(path, number, obj)
        yield number, obj


class _NotANumber(ValueError):
    """``NaN`` / ``Infinity`` in a run's file: never written by taiwa, so a hand edit."""


def _no_constant(name: str) -> Any:
    raise _NotANumber(name)


def load_run(path: Path) -> RunData:
    """A run directory: ``summary.json`` and ``config.json`` read and checked."""
    summary, text = read_json(path / SUMMARY)
    check_summary(path / SUMMARY, summary, text)
    config, _ = read_json(path / CONFIG)
    if config.get("method", summary["method"]) != summary["method"]:
        raise InputError(
            str(path / CONFIG),
            line_of(text, ["method"]),
            "method",
            f"the method of {SUMMARY} ({summary['method']!r})",
            repr(config.get("method")),
        )
    return RunData(path, config, summary, text)


def find_runs(paths: Sequence[Path]) -> list[Path]:
    """The run directories (holding ``summary.json``) given, or found below the directories
    given, in order; a path without any run is an error."""
    out: list[Path] = []
    for p in paths:
        kind = path_kind(p)
        if kind != "directory":
            got = "no such directory" if kind == "missing" else f"a {kind}"
            raise InputError(shown_path(p), None, None, "a run directory", got)
        found = [p] if (p / SUMMARY).is_file() else sorted(s.parent for s in p.rglob(SUMMARY))
        if not found:
            raise TaiwaError(
                f"{shown_path(p)}: no finished run (a directory with {SUMMARY}) in it or below it"
            )
        out += [f for f in found if f not in out]
    return out
