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
    "pytest_configure",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_testnodedown",
    "pytest_unconfigure",
]

_OWN_CACHE = "TAIWA_TEST_SESSION_CACHE"
_SESSION_KEY = pytest.StashKey[Path]()


def pytest_configure(config: pytest.Config) -> None:
    """Every test session gets its own response cache (``TAIWA_CACHE_DIR``), so a local run is
    as cold as CI's fresh machine and the user's cache is never written by tests. The joined
    model files (``models/``: the demo GGUF, Whisper) are shared from the user's cache: they
    are content-checked, and joining them again would only cost time. xdist workers inherit
    the controller's environment, so they share the one directory."""
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


def pytest_unconfigure(config: pytest.Config) -> None:
    session = config.stash.get(_SESSION_KEY, None)
    if session is not None:
        shutil.rmtree(session, ignore_errors=True)


settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
