"""What a run's summary will need, loaded while its requests are in flight (issue 29: the
fixed cost before the first request and after the last reply).

Every summary carries bootstrap CIs from :mod:`taiwa.metrics.stats`, which loads numpy
(40-90 ms). Loaded before the requests it delays the first one; loaded by the aggregate it
delays the exit. Loaded in a thread once the first requests are out, it costs the run
nothing it waits for: the event loop keeps the interpreter every few milliseconds (the
switch interval), and a module another thread is importing is waited for, not imported
twice. The same thread then draws the resampling indices of a mean over the run's samples
(:func:`taiwa.metrics.stats.prepare_means`: 27 ms of the aggregate's ~90 ms on 1,000 intent
items, drawn with the GIL let go), which every metric over all the samples reuses."""

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


def warm_up_soon(
    loop: asyncio.AbstractEventLoop, samples: int = 0, seed: int = 0
) -> Callable[[], None]:
    """Import :data:`SUMMARY_MODULES` in a thread :data:`WARM_AFTER` seconds from now and
    prepare the bootstrap of a mean over ``samples`` items with ``seed``; the function
    returned waits for that thread (or cancels it when it has not started)."""
    started: list[Callable[[], object]] = []

    def load() -> None:
        for name in SUMMARY_MODULES:
            if name not in sys.modules:
                importlib.import_module(name)
        if samples:
            from taiwa.metrics.stats import prepare_means

            prepare_means(samples, seed)

    def start() -> None:
        started.append(in_background(load, "taiwa-warm-up"))

    handle = loop.call_later(WARM_AFTER, start)

    def wait() -> None:
        handle.cancel()
        for join in started:
            join()

    return wait
