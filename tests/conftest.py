"""Shared test helpers, and the fuzz suite's summary hooks (they must live here: the xdist
controller loads only this conftest, as it collects no test)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent / "fuzz"))

from fuzz_summary import (  # registered as this conftest's hooks
    pytest_sessionfinish,
    pytest_terminal_summary,
    pytest_testnodedown,
)

__all__ = [
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_testnodedown",
    "pytest_unconfigure",
]

_OWN_CACHE = "TAIWA_TEST_SESSION_CACHE"
POOL_THREADS_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""The thread-pool sizes of numpy/SciPy's BLAS and of OpenMP (CTranslate2's Whisper, torch),
read when the library loads."""
_SESSION_KEY = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """Every test session gets its own response cache (``TAIWA_CACHE_DIR``), so a local run is
    as cold as CI's fresh machine and the user's cache is never written by tests. The joined
    model files (``models/``: the demo GGUF, Whisper) are shared from the user's cache: they
    are content-checked, and joining them again would only cost time. xdist workers inherit
    the controller's environment, so they share the one directory.

    Under xdist each worker's llama.cpp (and everything it starts) gets its share of the
    cores (``TAIWA_LLAMA_THREADS``): two workers' models spinning on all cores each ran the
    demo LLM 2.7x slower than one thread each (measured: 4 requests, 384 tokens, 46-50 s vs
    18 s). So do its BLAS and OpenMP pools (:data:`POOL_THREADS_ENV`; set here, before the
    worker imports numpy, and inherited by the CLI subprocesses): OpenBLAS's threads spin
    too, and `taiwa da train` on 20 dialogues took 7.0 CPU s with two of them, 3.5 s with
    one, in the same wall (issue 29 point 6)."""
    from taiwa.models.llama_cpp_backend import THREADS_ENV  # imports no numpy

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
        share = str(max(1, (cores or os.cpu_count() or 1) // workers))
        for name in (THREADS_ENV, *POOL_THREADS_ENV):
            os.environ.setdefault(name, share)
    if os.environ.get(_OWN_CACHE):  # a worker, or a nested pytest: already set
        return
    from taiwa.models.cache import default_cache_dir

    models = default_cache_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)
    session = Path(tempfile.mkdtemp(prefix="taiwa-test-cache-"))
    (session / "models").symlink_to(models, target_is_directory=True)
    os.environ["TAIWA_CACHE_DIR"] = str(session)
    os.environ[_OWN_CACHE] = str(session)
    config.stash[_SESSION_KEY] = session


CHAIN = (
    "test_cli.py::test_demo_prints_tables",
    "test_readme_commands.py::test_all_runnable_readme_commands_run_verbatim_in_order",
    "test_wheel.py::test_wheel_installs_outside_the_checkout_and_runs_the_demo",
)
"""The longest tests, started first, in this order on one worker: ``taiwa demo`` (the demo LLM
on every method, cold), then the README walk, whose demo-LLM commands ask what the demo asked
(the demo runs with ``taiwa run``'s defaults) and are answered from the session's cache, as a
user's are after ``make demo``, then `taiwa demo` again from a wheel installed outside the
checkout, its demo-LLM replies answered from the same cache."""


def _chain_rank(item: pytest.Item) -> int:
    return next((k for k, name in enumerate(CHAIN) if item.nodeid.endswith(name)), len(CHAIN))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` tests (real LLM, Spark, speech: up to minutes each) go to the heads of the
    workers' shares: :data:`CHAIN` in order to the first worker, the others dealt round-robin
    by module to the other workers: xdist's ``worksteal`` hands worker k the k-th contiguous
    share of the collection and steals from the tails, so every worker starts on its slow
    tests, the chain stays on one worker in order, and no minute-long test is left to start
    last while a core sits idle. Runs in each worker (the controller collects nothing);
    serially it only moves the slow tests first, the chain at the head.

    A module's slow tests go to one worker together: they share its module-scoped fixtures (a
    Spark JVM, a llama.cpp server, a loaded model), which a worker starts once for itself: the
    four Spark tests dealt to two workers started two JVMs, 81 CPU s against 33 on one."""
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
    slow = [i for i in items if i.get_closest_marker("slow") is not None]
    chain = sorted((i for i in slow if _chain_rank(i) < len(CHAIN)), key=_chain_rank)
    others = [i for i in slow if _chain_rank(i) == len(CHAIN)]
    heads: list[list[pytest.Item]] = [[] for _ in range(workers)]
    heads[0] += chain
    modules: dict[str, list[pytest.Item]] = {}
    for item in others:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    for k, group in enumerate(modules.values()):  # the chain is the longest share: the others
        heads[1 + k % (workers - 1) if workers > 1 else 0] += group  # elsewhere, a module whole
    rest = [i for i in items if i.get_closest_marker("slow") is None]
    ordered: list[pytest.Item] = []
    left = len(items)
    for k in range(workers):
        share = left // (workers - k)  # what worksteal sends the k-th worker
        head = heads[k]
        take = max(0, share - len(head))
        ordered += head + rest[:take]
        rest = rest[take:]
        left -= len(head) + take
    items[:] = ordered + rest


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION_KEY, None)
    if session is not None:
        shutil.rmtree(session, ignore_errors=True)


settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
