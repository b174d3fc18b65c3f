"""The one reader of run directories (DESIGN.md, run directories): every command that reads a
finished run (``taiwa report``, ``leaderboard``, ``compare``, a method's report section) goes
through :func:`load_run`, which checks ``summary.json`` (:mod:`.summary_schema`),
``config.json`` (:mod:`.config_schema`, typed) and every stage file (:mod:`.stage_rows`: rows
checked, one line per item and system, counts against the summary) before anything is shown.
Errors name the file, the line and the field; a damaged or hand-edited run is one line, never
a traceback and never a wrong number printed.

:class:`RunData` is the typed view of a checked run: its config, its summary, its systems and
stages, and the rows of any stage by system or of any item (:meth:`RunData.stage_rows`,
:meth:`RunData.item`)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io import decoded_lines, path_kind, read_json_object, shown_path
from taiwa.core.io import shown as short
from taiwa.harness.config_schema import RunConfigFile, parse_config
from taiwa.harness.stage_rows import StageFile, StageRow, check_stage_files, iter_rows
from taiwa.harness.summary_schema import check_summary, line_of

SUMMARY = "summary.json"
CONFIG = "config.json"

__all__ = [
    "CONFIG",
    "SUMMARY",
    "FailedRows",
    "RunConfigFile",
    "RunData",
    "StageFile",
    "StageRow",
    "find_runs",
    "load_run",
    "summary_errors",
]


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
    """One finished run directory, read and checked (:func:`load_run`)."""

    path: Path
    config: RunConfigFile
    summary: dict[str, Any]
    summary_text: str = ""
    stages: dict[str, StageFile] = field(default_factory=dict)
    """The stage files as checked, by stage name (in the run's order)."""

    @property
    def method(self) -> str:
        return str(self.summary["method"])

    @property
    def systems(self) -> list[str]:
        """The run's systems in its order (from the data, for a method whose systems come
        from the data)."""
        return list(self.config.systems) or list(self.summary["systems"])

    @property
    def finished(self) -> str:
        """When ``summary.json`` was written (UTC)."""
        mtime = (self.path / SUMMARY).stat().st_mtime
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(mtime))

    @property
    def items(self) -> tuple[str, str, int | None, int | None]:
        """Which items the run was on: the dataset's file name and SHA-256, ``--limit`` and the
        number of samples."""
        name, digest = self.config.data_digest()
        return name, digest, self.config.config.limit, self.summary.get("n_samples")

    def stage_file(self, stage: str) -> str | None:
        """The file name of ``stage``'s rows (``None``: the stage writes none)."""
        return (self.config.stage_files or {}).get(stage)

    def stage_rows(
        self, stage: str, system: str | None = None, *, ok: bool = False
    ) -> Iterator[StageRow]:
        """The rows of ``stage`` (all of them, or those of ``system``: ``""`` selects the rows
        of a stage run across systems), in file order; with ``ok`` only those that did not
        fail. A stage without a file gives none."""
        name = self.stage_file(stage)
        if name is None or not self.has(name):
            return
        for row in iter_rows(self.path / name, checked=stage in self.stages):
            if system is not None and row.system != system:
                continue
            if ok and not row.ok:
                continue
            yield row

    def item(self, ident: str) -> dict[str, list[StageRow]]:
        """Every stage's rows of the item ``ident`` (one per system, or one for a stage across
        systems), by stage; stages without a row of it are left out."""
        out: dict[str, list[StageRow]] = {}
        for stage in self.config.stage_files or {}:
            rows = [r for r in self.stage_rows(stage) if r.id == ident]
            if rows:
                out[stage] = rows
        return out

    def rows_by_item(self) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
        """Every stage's rows as written, by item, stage and system (``""`` for the one row
        of a stage across systems), one pass over each stage file (checked when the run was
        read); items in the order of the run's first stage file."""
        out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
        for stage, checked in self.stages.items():
            for row in iter_rows(self.path / checked.file, checked=True):
                lane = "" if checked.across else row.system
                out.setdefault(row.id, {}).setdefault(stage, {})[lane] = dict(row.values)
        return out

    def rows(self, name: str) -> Iterator[dict[str, Any]]:
        """The rows of a stage file of the run, by file name, as written (errors name the
        line)."""
        for row in iter_rows(self.path / name):
            yield dict(row.values)

    def has(self, name: str) -> bool:
        return path_kind(self.path / name) == "file"

    def text(self, name: str) -> str | None:
        """A text file of the run (an SVG chart it wrote), if present."""
        p = self.path / name
        return "".join(decoded_lines(p)) if self.has(name) else None

    def failed_rows(self) -> list[FailedRows]:
        """Every stage file's failed rows (``error`` without ``skipped``), counted, with the
        first few of each (as checked when the run was read)."""
        out = []
        for st in self.stages.values():
            if st.total_failed or st.skipped:
                out.append(FailedRows(st.file, st.total_failed, st.skipped, list(st.examples)))
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


def load_run(path: Path) -> RunData:
    """A run directory: ``summary.json``, ``config.json`` and the stage files read and checked
    against each other (see the module's docstring)."""
    summary, text = read_json(path / SUMMARY)
    check_summary(path / SUMMARY, summary, text)
    raw, config_text = read_json(path / CONFIG)
    config = parse_config(path / CONFIG, raw, config_text)
    if config.method != summary["method"]:
        raise InputError(
            str(path / CONFIG),
            line_of(config_text, ["method"]),
            "method",
            f"the method of {SUMMARY} ({short(summary['method'])})",
            short(config.method),
        )
    for system, block in summary["systems"].items():
        if "n" in block and "failures" in block and system not in config.systems:
            raise InputError(
                str(path / SUMMARY),
                line_of(text, ["systems", system]),
                f"systems.{system}",
                f"a system of {CONFIG} ({short(', '.join(config.systems), 200) or 'none'})",
                short(system),
            )
    stages = check_stage_files(path, config.stage_files or {}, config.systems, summary)
    return RunData(path, config, summary, text, stages)


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
