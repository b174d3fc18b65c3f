"""Fuzz suite fixtures. The summary of variants per kind and exit codes is fuzz_summary.py's,
registered by tests/conftest.py (the xdist controller never loads this file)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(scope="session")
def fuzz_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory for the whole session; each variant gets its own directory inside."""
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture
def in_dir() -> Iterator[None]:
    """Restore the working directory after a variant ran inside its own."""
    before = os.getcwd()
    try:
        yield
    finally:
        os.chdir(before)
