"""What a run's stages keep for the whole run (:class:`~taiwa.harness.method.Held`, issue 29):
opened once when the run is prepared, before the dataset is read (a worker's start-up then
overlaps the reading and validation), closed once when the run ends, however it ends. The
runner knows nothing of what is held: a stage lists it, the runner opens and closes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taiwa.harness.method import Held


class HeldResources:
    """The :class:`Held` resources of ``stages`` (each distinct object once, in stage order).
    :meth:`open` opens them all (closing those already open if one fails); :meth:`close`
    closes them in reverse order, every one even if one raises (the first error is raised),
    and is idempotent."""

    def __init__(self, stages: Sequence[Any]) -> None:
        seen: dict[int, Held] = {}
        for stage in stages:
            for held in getattr(stage, "held", ()):
                seen.setdefault(id(held), held)
        self._held = list(seen.values())
        self._open: list[Held] = []

    def __len__(self) -> int:
        return len(self._held)

    def open(self, data: Path) -> None:
        try:
            for held in self._held:
                self._open.append(held)  # closed even when its own open fails half-way
                held.open(data)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        first: BaseException | None = None
        while self._open:
            held = self._open.pop()
            try:
                held.close()
            except BaseException as exc:  # every one is closed; the first error is raised
                first = first or exc
        if first is not None:
            raise first
