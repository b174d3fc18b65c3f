"""The cyclic garbage collector's policy during a run (the runner's, and the benchmarks' that
time what a run does)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """What exists when the run starts (modules, the first chunk) is kept out of the cyclic
    collector's passes until the run is written, and young collections run ten times less
    often: a full pass over a process with matplotlib, numpy and pydantic loaded costs about
    60 ms, a young one under 1 ms, and each delays the requests in flight. Garbage freed by
    reference counting (nearly all of a run's) is unaffected."""
    old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(old[0], 10 * 700), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


def exiting() -> None:
    """The process is about to end: keep every object out of the collector's last passes.
    The interpreter's shutdown collects the whole heap again (a run's samples, rows, modules):
    measured on a 1,000-item intent run, interpreter exit took 70-190 ms without this and
    30-50 ms with it. Memory is returned to the system at exit either way; finalizers
    (``atexit``, open files) still run. Only for the process entry point, never for a caller
    that goes on (tests, notebooks): their garbage would never be collected again."""
    gc.disable()
    gc.freeze()
