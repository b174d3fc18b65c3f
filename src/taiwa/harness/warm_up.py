"""What a run's summary will need, loaded while its requests are in flight (issue 29: the
fixed cost before the first request and after the last reply).

Every summary carries bootstrap CIs from :mod:`taiwa.metrics.stats`, which loads numpy
(40-90 ms). Loaded before the requests it delays the first one; loaded by the aggregate it
delays the exit. Loaded in a thread once the first requests are out, it costs the run
nothing it waits for: the event loop keeps the interpreter every few milliseconds (the
switch interval), and a module another thread is importing is waited for, not imported
twice."""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Callable

from taiwa.harness.run_output import in_background

WARM_AFTER = 0.05
"""Seconds after the endpoints are checked: the first wave of requests is out by then."""

SUMMARY_MODULES = ("taiwa.metrics.stats",)
"""What every method's summary imports (its CIs); a module already loaded is skipped."""


def warm_up_soon(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Import :data:`SUMMARY_MODULES` in a thread :data:`WARM_AFTER` seconds from now; the
    function returned waits for that thread (or cancels it when it has not started)."""
    started: list[Callable[[], object]] = []

    def load() -> None:
        for name in SUMMARY_MODULES:
            if name not in sys.modules:
                importlib.import_module(name)

    def start() -> None:
        started.append(in_background(load, "taiwa-warm-up"))

    handle = loop.call_later(WARM_AFTER, start)

    def wait() -> None:
        handle.cancel()
        for join in started:
            join()

    return wait
