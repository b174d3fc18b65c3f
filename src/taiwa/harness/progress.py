"""The run's progress bars, one per stage, drawn once the first requests are out (issue 29).

rich's progress display (with its console, 20-35 ms to import) is not needed to send a request,
so :class:`ProgressBars` keeps the stages' totals and advances until :meth:`~ProgressBars.start`
(scheduled :data:`~taiwa.harness.warm_up.WARM_AFTER` after the endpoints are checked), then
hands them to a :class:`rich.progress.Progress`. A quiet run (``show`` false) never loads rich.
Advances may come from worker threads (the pipelined score stages), as rich's own may.
"""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class ProgressBars:
    """One bar per :meth:`add_task`; shown from :meth:`start` until the ``with`` block ends (a
    run over before :meth:`start` shows its bars at the end, as rich leaves them)."""

    def __init__(self, show: bool) -> None:
        self.show = show
        self._tasks: list[tuple[str, float, float]] = []  # description, total, done so far
        self._rich: Progress | None = None
        self._ids: list[TaskID] = []
        self._lock = threading.Lock()
        self._soon: asyncio.TimerHandle | None = None

    def add_task(self, description: str, total: float) -> int:
        """A new bar; its index is what :meth:`advance` takes."""
        with self._lock:
            self._tasks.append((description, total, 0.0))
            if self._rich is not None:
                self._ids.append(self._rich.add_task(description, total=total))
            return len(self._tasks) - 1

    def advance(self, task: int, amount: float) -> None:
        """Move bar ``task`` by ``amount``."""
        if not self.show:
            return
        with self._lock:
            if self._rich is None:
                description, total, done = self._tasks[task]
                self._tasks[task] = (description, total, done + amount)
                return
            rich, task_id = self._rich, self._ids[task]
        rich.advance(task_id, amount)

    def start(self) -> None:
        """Draw the bars from now on (idempotent; nothing for a quiet run)."""
        if not self.show:
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        with self._lock:
            if self._rich is not None:
                return
            rich = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
            )
            self._ids = [
                rich.add_task(description, total=total) for description, total, _ in self._tasks
            ]
            for task_id, (_, _, done) in zip(self._ids, self._tasks, strict=True):
                rich.update(task_id, completed=done)
            self._rich = rich
        rich.start()

    def start_soon(self, loop: asyncio.AbstractEventLoop, delay: float) -> None:
        """:meth:`start` ``delay`` seconds from now (not once the ``with`` block has ended)."""
        self._soon = loop.call_later(delay, self.start)

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._soon is not None:
            self._soon.cancel()
        if exc_type is None:
            self.start()
        if self._rich is not None:
            self._rich.stop()
