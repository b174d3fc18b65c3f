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
    """Variants per kind and per target with their exit codes, then the totals."""
    if not STATS:
        return
    tr = terminalreporter
    tr.section("taiwa fuzz: variants and exit codes")
    for title, index in (("kind", 2), ("target", 1)):
        rows: dict[tuple[str, str], dict[str, int]] = {}
        for key, per in STATS.items():
            row = rows.setdefault((key[0], key[index]), {})
            for code, n in per.items():
                row[code] = row.get(code, 0) + n
        width = max(len(name) for _, name in rows) + 2
        tr.write_line(f"per {title}:")
        for (mode, name), per in sorted(rows.items()):
            codes = ", ".join(f"{code} {n}" for code, n in sorted(per.items()))
            tr.write_line(f"  {mode:<11} {name:<{width}} {sum(per.values()):>5}   {codes}")
    totals: dict[str, int] = {}
    modes: dict[str, int] = {}
    for (mode, _, _), per in STATS.items():
        modes[mode] = modes.get(mode, 0) + sum(per.values())
        for code, n in per.items():
            totals[code] = totals.get(code, 0) + n
    kinds = len({key[2] for key in STATS})
    runs = ", ".join(f"{m} {n}" for m, n in sorted(modes.items()))
    codes = ", ".join(f"{code} {n}" for code, n in sorted(totals.items()))
    tr.write_line(f"total: {sum(modes.values())} runs ({runs}) of {kinds} kinds; {codes}")
