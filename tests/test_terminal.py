"""Tables at 80 columns and in pipes (issue 24): every method's tables from real small runs
(:mod:`report_runs`), with long system names, laid out by the CLI's console
(:func:`taiwa.display.console.make_console`): no line wider than the terminal, every column header
and every name whole, nothing cut with an ellipsis; ``taiwa list`` greppable when piped."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from report_runs import build_runs
from taiwa.benchmarks import get_method, method_names
from taiwa.display.console import make_console
from taiwa.display.fit import fit_table

LONG = {
    "openai:good": "openai:Qwen2.5-7B-Instruct-Q4_K_M",
    "openai:plain": "openai:llm-jp-3-3.7b-instruct",
    "builtin:random": "openai:gemma-2-9b-it-japanese",
}
"""Names as long as real model SPECs, put in place of the runs' short ones."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_runs(tmp_path_factory.mktemp("runs"))


def _summary(run: Path) -> dict[str, Any]:
    text = (run / "summary.json").read_text("utf-8")
    for short, long in LONG.items():
        text = text.replace(f'"{short}"', f'"{long}"').replace(f"{short} vs", f"{long} vs")
    return json.loads(text)


def _render(renderables: list[Any], width: int = 80) -> str:
    out = io.StringIO()
    console = make_console(file=out, width=width, color_system=None)
    for r in renderables:
        console.print(r)
    return out.getvalue()


def _plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else Text.from_markup(str(cell)).plain


def _words(tables: list[Any]) -> set[str]:
    """Every header word and every first-column word (the row names) of ``tables``."""
    words: set[str] = set()
    for t in tables:
        if isinstance(t, Table):
            for c in t.columns:
                words.update(_plain(c.header).split())
            words.update(w for cell in t.columns[0].cells for w in _plain(cell).split())
    return words


@pytest.mark.parametrize("key", ["prompts", "da-response", "chitchat", "da-distribution",
                                 "cohesion", "intent"])  # fmt: skip
def test_every_table_fits_80_columns_whole(runs: dict[str, Path], key: str) -> None:
    run = runs[key]
    summary = _summary(run)
    method = get_method(json.loads((run / "config.json").read_text("utf-8"))["method"])
    tables = list(method.tables(summary))
    out = _render(tables)
    lines = out.splitlines()
    assert max(cell_len(line) for line in lines) <= 80, out
    text = "\n".join(" ".join(line.split()) for line in lines)
    for name in summary["systems"]:
        assert any(name in line for line in lines), (name, out)
    for word in _words(tables):
        assert word in text, (word, out)
    source = sum(
        _plain(cell).count("…") for t in tables if isinstance(t, Table) for c in t.columns
        for cell in c.cells
    )  # fmt: skip
    assert out.count("…") == source, out


def test_long_names_stack_a_wide_table_instead_of_cutting() -> None:
    t = Table(title="wide", caption="the caption")
    t.add_column("system", no_wrap=True)
    for k in range(8):
        t.add_column(f"metric-{k}", justify="right")
    names = [LONG["openai:good"], LONG["openai:plain"]]
    for name in names:
        t.add_row(name, *(f"0.{k}00\n[0.{k}0, 0.{k + 1}0]" for k in range(8)))
    console = make_console(file=io.StringIO(), width=80)
    parts = fit_table(t, console, 80)
    tables = [p for p in parts if isinstance(p, Table)]
    assert len(tables) >= 2  # stacked: the names repeated beside the columns that fit
    shown = [c.header for p in tables for c in p.columns[1:]]
    assert shown == [f"metric-{k}" for k in range(8)]  # every column once, in order
    out = _render([t])
    assert all(cell_len(line) <= 80 for line in out.splitlines())
    assert out.count(names[0]) == len(tables) and "…" not in out
    assert out.index("wide") < out.index("metric-0") and out.rstrip().endswith("the caption")
    # at 200 columns the same table is printed as it is
    assert len(fit_table(t, console, 200)) == 1


@pytest.mark.parametrize("columns", [None, "80"])
def test_taiwa_list_in_a_pipe(columns: str | None) -> None:
    """``taiwa list | grep NAME`` finds every method: each name whole at a line's start."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns:
        env["COLUMNS"] = columns
    r = subprocess.run(
        [sys.executable, "-m", "taiwa", "list"], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    for name in method_names():
        assert [ln for ln in lines if ln.startswith(f"{name} (seed ")], (name, r.stdout)
    assert "annotator=offline" in r.stdout and "distance=3" in r.stdout
