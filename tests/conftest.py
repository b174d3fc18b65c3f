"""Shared test helpers, and the fuzz suite's summary hooks (they must live here: the xdist
controller loads only this conftest, as it collects no test)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent / "fuzz"))

from fuzz_summary import (  # registered as this conftest's hooks
    pytest_sessionfinish,
    pytest_terminal_summary,
    pytest_testnodedown,
)

__all__ = ["pytest_sessionfinish", "pytest_terminal_summary", "pytest_testnodedown"]

settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
