"""Where a run keeps its rows: on disk, not in memory (issue 10, "stream instead").

The runner works through the dataset in chunks; each chunk's rows are appended to one spill
file per stage and system (``.rows-*/`` inside the run directory) as soon as the chunk is
done, and the chunk is dropped. A method's ``aggregate`` then reads them back through
:class:`Rows` views, one pass at a time, so a run's memory does not grow with its dataset.
When the run is written, each stage's spill files become its output file (all systems, in
system order) and the spill directory is removed; the views then read the output files.

This is the runner's side of the contract: a method sees :class:`StoredResults` only as the
:class:`~taiwa.harness.method.Results` protocol and :class:`Rows` as a
:class:`~taiwa.harness.method.RowView`.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from taiwa.core.io import atomic_open, dumps
from taiwa.harness.method import Row


@dataclass
class Count:
    """Rows of one stage and system: all of them, and those that carry an ``error``
    (``skipped``: the error came from an earlier stage)."""

    rows: int = 0
    errors: int = 0
    skipped: int = 0

    @property
    def failed(self) -> int:
        """Rows that failed in this stage itself."""
        return self.errors - self.skipped


class Rows:
    """A re-iterable view of stored rows (each pass reads them again; ``len`` is free)."""

    def __init__(self, source: Callable[[], Iterator[Row]], length: int) -> None:
        self._source = source
        self._length = length

    def __iter__(self) -> Iterator[Row]:
        return self._source()

    def __len__(self) -> int:
        return self._length

    def __bool__(self) -> bool:
        return self._length > 0

    def __repr__(self) -> str:
        return f"<Rows: {self._length}>"


def _read(path: Path, system: str | None = None) -> Iterator[Row]:
    """The rows of a JSONL file (those of ``system`` only, when given)."""
    if not path.is_file():
        return
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if system is None or row.get("system", "") == system:
                yield row


class RowStore:
    """Rows by stage and system in spill files under ``parent`` (a hidden ``.rows-*`` folder,
    removed by :meth:`close`; a killed run's folder is removed by the next run's
    :class:`~taiwa.harness.rundir.RunDir`)."""

    PREFIX = ".rows-"

    def __init__(self, parent: Path) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=self.PREFIX, dir=parent))
        self._files: dict[tuple[str, str], Path] = {}
        self._counts: dict[tuple[str, str], Count] = {}
        self._final: dict[str, Path] = {}

    def append(self, stage: str, system: str, rows: Sequence[Row]) -> None:
        key = (stage, system)
        path = self._files.get(key)
        if path is None:
            path = self._files[key] = self.dir / f"{len(self._files)}.jsonl"
        count = self._counts.setdefault(key, Count())
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("".join(dumps(r) + "\n" for r in rows))
        for r in rows:
            if "error" in r:
                count.errors += 1
                count.skipped += "skipped" in r
        count.rows += len(rows)

    def count(self, stage: str, system: str = "") -> Count:
        return self._counts.get((stage, system), Count())

    def rows(self, stage: str, system: str = "", *, ok: bool = False) -> Rows:
        c = self.count(stage, system)
        final = self._final.get(stage)
        spill = self._files.get((stage, system))
        if final is None and spill is None and c.rows:
            raise LookupError(f"the rows of stage {stage!r} are gone: it writes no output file")

        def source() -> Iterator[Row]:
            if final is not None:  # a lane named "" is a stage's only lane: the whole file
                yield from _read(final, system or None)
            elif spill is not None:
                yield from _read(spill)

        if not ok:
            return Rows(source, c.rows)
        return Rows(lambda: (r for r in source() if "error" not in r), c.rows - c.errors)

    def write(self, stage: str, systems: Sequence[str], path: Path) -> None:
        """Write ``stage``'s rows of every system (in this order) to ``path``, atomically; the
        views of this stage read ``path`` from now on."""
        with atomic_open(path, "wb") as out:
            for system in systems:
                spill = self._files.get((stage, system))
                if spill is not None:
                    with open(spill, "rb") as fh:
                        shutil.copyfileobj(fh, out, 1 << 20)
        self._final[stage] = path

    def close(self) -> None:
        """Remove the spill files (rows of stages with an output file stay readable)."""
        shutil.rmtree(self.dir, ignore_errors=True)
        self._files = {k: v for k, v in self._files.items() if k[0] in self._final}


class StoredResults:
    """:class:`~taiwa.harness.method.Results` read from a :class:`RowStore`."""

    def __init__(self, systems: Sequence[str], store: RowStore) -> None:
        self.systems = list(systems)
        self.store = store

    def rows(self, stage: str, system: str = "") -> Rows:
        """Every row of ``stage`` for ``system``, failed ones (with ``error``) included."""
        return self.store.rows(stage, system)

    def ok(self, stage: str, system: str = "") -> Rows:
        """The rows of ``stage`` for ``system`` that did not fail."""
        return self.store.rows(stage, system, ok=True)
