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


def test_a_section_title_is_never_cut() -> None:
    """``taiwa demo``'s section rules (issue 42): a title longer than the line is printed whole
    below a bare rule, not cut with an ellipsis (``─ 2. prompts (seed -): … Japanese sh… ─``)."""
    title = (
        "2. prompts (seed -): chat prompts (+ references): reply length, Japanese share, "
        "Japanese ROUGE"
    )
    out = io.StringIO()
    console = make_console(file=out, width=80, color_system=None)
    console.rule(title)
    console.rule("1. Metrics on the bundled sample files")
    lines = out.getvalue().splitlines()
    assert "…" not in out.getvalue() and max(cell_len(line) for line in lines) <= 80
    assert title in " ".join(" ".join(lines).split()), lines
    assert lines[0] == "─" * 80  # the rule, then the whole title below it
    assert "── 1. Metrics on the bundled sample files ──" in lines[-1]  # a short one as it was


def test_paired_comparison_rows_fit_without_wrapping_a_name() -> None:
    """Paired comparisons at 80 columns (issue 42): a pair too wide for a column is printed once
    on a line of its own above its metrics, every name whole on one line, every metric's row
    one line; on a wide terminal the table is as it was (a pair per row)."""
    from taiwa.display.comparison_table import comparisons_table

    diff = {"value": -0.128, "ci_low": -0.383, "ci_high": 0.0}
    names = [LONG["openai:good"], "builtin:random", LONG["openai:plain"]]
    pairs = [(a, b) for k, a in enumerate(names) for b in names[k + 1 :]]
    metrics = [("rougeL", "ROUGE-L"), ("single", "judge 1-10"), ("pairwise", "win rate")]
    rows = [
        {"a": a, "b": b, "metric": m, "label": label, "direction": "higher",
         "difference": diff, "p": 0.2, "p_holm": 1.0, "mdd": 0.358, "shared": 3, "only_a": 0,
         "only_b": 1, "significant": False, "better": None}
        for a, b in pairs for m, label in metrics
    ]  # fmt: skip
    block = {"alpha": 0.05, "family": len(rows), "rows": rows, "baseline": None}
    out = _render([comparisons_table(block)])
    lines = out.splitlines()
    assert max(cell_len(line) for line in lines) <= 80, out
    for a, b in pairs:
        assert f"{a} − {b}" in lines, out  # the pair whole, on a line of its own
    assert sum("[-0.383, +0.000]" in line for line in lines) == len(rows)
    assert all(line.split()[0] in ("ROUGE-L", "judge", "win") for line in lines if "[-0.3" in line)
    wide = _render([comparisons_table(block)], width=160)
    assert sum(f"{pairs[0][0]} − {pairs[0][1]}" in line for line in wide.splitlines()) == 3


def test_chitchat_rankings_keep_systems_in_the_system_column(runs: dict[str, Path]) -> None:
    """chitchat's rankings (issue 42): the system column holds the systems only (ρ between the
    evaluations, and with the human ranks, in tables of their own), so that at 80 columns it
    is as wide as the longest name, not as ``ρ 単一評価 ~ 比較評価``."""
    summary = _summary(runs["chitchat"])
    tables = [t for t in get_method("chitchat").tables(summary) if isinstance(t, Table)]
    by_title = {_plain(t.title): t for t in tables}
    systems = set(summary["systems"])
    human_ranks = next(t for t in by_title if t.startswith("human rankings ("))
    for title in ("rankings (1 = best)", human_ranks):
        assert {_plain(c) for c in by_title[title].columns[0].cells} == systems, title
    rho = by_title["Spearman ρ between evaluations (over the systems)"]
    assert [_plain(c) for c in rho.columns[0].cells] == [
        "単一評価 ~ 比較評価", "単一評価 ~ 簡易評価 (ROUGE-L)", "比較評価 ~ 簡易評価 (ROUGE-L)"
    ]  # fmt: skip
    assert [_plain(c.header) for c in rho.columns] == ["evaluations", "ρ", "p", "n"]
    human = by_title["Spearman ρ with the human rankings"]
    assert _plain(next(iter(human.columns[0].cells))) == "単一評価 ~ human"
    assert "[" in _plain(next(iter(human.columns[1].cells)))  # with its 95 % CI
    out = _render([by_title["rankings (1 = best)"]])
    width = max(len(s) for s in systems)
    header = next(line for line in out.splitlines() if "system" in line)
    assert header.index("単一評価") < width + 10, out  # the system column: the names' width
