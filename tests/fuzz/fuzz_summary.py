"""The fuzz suite's summary: variants per kind and exit codes, printed at the end of every
session that ran fuzz tests (with or without ``-s``). Under pytest-xdist each worker counts its
own variants and hands them to the controller, which prints the merged summary. The hooks are
registered by tests/conftest.py, which the xdist controller loads (it collects no test, so it
never loads tests/fuzz/conftest.py)."""

from __future__ import annotations

import pytest
from fuzz_core import STATS


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker: pass this worker's counts to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["fuzz_stats"] = [[list(key), per] for key, per in STATS.items()]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """On the xdist controller: add a finished worker's counts to :data:`STATS`."""
    for key, per in getattr(node, "workeroutput", {}).get("fuzz_stats", []):
        merged = STATS.setdefault((key[0], key[1], key[2]), {})
        for code, n in per.items():
            merged[code] = merged.get(code, 0) + n


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
