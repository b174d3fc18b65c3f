"""Fuzz suite fixtures and its summary: variants per kind and exit codes, printed at the end of
every session that ran fuzz tests (with or without ``-s``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_core import STATS


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


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not STATS:
        return
    tr = terminalreporter
    tr.section("taiwa fuzz: variants per kind and exit codes")
    totals: dict[str, int] = {}
    modes: dict[str, int] = {}
    width = max(len(k.split("\t")[1]) for k in STATS) + 2
    for key in sorted(STATS):
        mode, kind = key.split("\t")
        per = STATS[key]
        n = sum(per.values())
        modes[mode] = modes.get(mode, 0) + n
        for code, c in per.items():
            totals[code] = totals.get(code, 0) + c
        codes = ", ".join(f"{code}: {c}" for code, c in sorted(per.items()))
        tr.write_line(f"{mode:<11} {kind:<{width}} {n:>5}   {codes}")
    overall = ", ".join(f"{code}: {c}" for code, c in sorted(totals.items()))
    runs = ", ".join(f"{m} {n}" for m, n in sorted(modes.items()))
    tr.write_line(f"total: {sum(modes.values())} runs ({runs}); {overall}")
