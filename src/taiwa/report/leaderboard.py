"""``taiwa leaderboard RUNS_DIR``: one table per method across every finished run below
``RUNS_DIR``, built from each run's headline table (the first of ``Method.tables``, the seed's
layout with n and 95 % CIs) with a leading ``run`` column; written as HTML (sortable by a click
on a column head, a few lines of inline JavaScript) and as Markdown."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import TaiwaError
from taiwa.core.io import shown_name
from taiwa.display.section import Html
from taiwa.harness.run_reader import RunData, find_runs, load_run, summary_errors
from taiwa.metrics.flags import MARK
from taiwa.report.grouping import by_method, item_sets_note, settings_note
from taiwa.report.html import esc, join, tag
from taiwa.report.leaderboard_vs import add_vs_baseline
from taiwa.report.page import CSS
from taiwa.report.rich_html import (
    TableData,
    join_tables,
    table_data,
    table_html,
    table_markdown,
)

if TYPE_CHECKING:
    from taiwa.harness.method import Method

FLAG_LEGEND = (
    f"{MARK}: the number is flagged in its run's summary (fewer than 10 items, one option for "
    "every answer, no pair judged ...): `taiwa report RUN` lists why"
)

SORT_JS = """
document.querySelectorAll("table.sortable").forEach(t=>{
t.querySelectorAll("th").forEach((th,i)=>{
th.addEventListener("click",()=>{const b=t.tBodies[0],rows=[...b.rows],up=th.dataset.dir!=="up";
const key=r=>{const s=r.cells[i].innerText,m=s.match(/-?\\d+(\\.\\d+)?/);
return m?parseFloat(m[0]):s};
rows.sort((x,y)=>{const a=key(x),c=key(y);const d=typeof a==="number"&&typeof c==="number"?a-c:
String(a).localeCompare(String(c));return up?d:-d});th.dataset.dir=up?"up":"down";
rows.forEach(r=>b.appendChild(r))})})});
"""


def headline_tables(
    runs: Sequence[RunData], methods: Sequence[Method[Any]], baseline: str | None = None
) -> list[tuple[str, TableData]]:
    """Per method (in the order of ``methods``: the registry's), the runs' headline tables
    joined where their columns are the same, each row led by its run directory; runs on the
    same items gain "vs baseline" columns (:mod:`taiwa.report.leaderboard_vs`)."""
    from rich.table import Table

    groups: dict[tuple[str, tuple[str, ...]], list[tuple[RunData, TableData]]] = {}
    for method, method_runs in by_method(runs, methods):
        for run in method_runs:
            with summary_errors(run):
                tables = list(method.tables(run.summary))
            if not tables or not isinstance(tables[0], Table):
                continue
            td = table_data(tables[0])
            groups.setdefault((run.method, td.header_key), []).append((run, td))
    out = []
    for (name, _), tds in groups.items():
        joined = join_tables([str(r.path) for r, _ in tds], [td for _, td in tds])
        note = item_sets_note([r for r, _ in tds])
        settings = settings_note([r for r, _ in tds])
        flagged = any(MARK in str(getattr(c, "plain", c)) for row in joined.rows for c in row)
        legend = FLAG_LEGEND if flagged else ""
        joined.caption = "\n".join(x for x in (note, settings, joined.caption, legend) if x)
        if not note:  # the same items: paired differences against a baseline
            lead = len(joined.headers) - len(tds[0][1].headers)
            add_vs_baseline(joined, [r for r, _ in tds], methods, lead, baseline)
        out.append((name, joined))
    return out


def check_baseline(baseline: str, runs: Sequence[RunData]) -> None:
    """``--baseline`` names a system of some run (or ``SYSTEM@RUN_DIR``, as a system in two
    runs is named); otherwise a one-line error, as ``taiwa run`` and ``taiwa compare`` give."""
    names = {s for r in runs for s in r.systems}
    names |= {f"{s}@{at}" for r in runs for s in r.systems for at in (r.path.name, r.path)}
    if baseline not in names:
        listed = ", ".join(sorted({s for r in runs for s in r.systems}))
        raise TaiwaError(
            f"--baseline {shown_name(baseline)}: not a system of these runs ({listed})"
        )


def write_leaderboard(
    runs_dir: Path,
    out: Path | None = None,
    *,
    methods: Sequence[Method[Any]],
    baseline: str | None = None,
) -> tuple[Path, Path]:
    """``leaderboard.html`` and ``leaderboard.md`` of the runs of ``methods`` (the registry's,
    handed down by the CLI) below ``runs_dir`` (written there unless ``out`` names the HTML
    file; the Markdown goes beside it)."""
    from taiwa.core.io import atomic_open

    runs = [load_run(p) for p in find_runs([runs_dir])]
    if baseline is not None:
        check_baseline(baseline, runs)
    tables = headline_tables(runs, methods, baseline)
    made = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    body: list[Html] = []
    md = [f"# taiwa leaderboard\n\n{len(runs)} run(s) below `{runs_dir}`, written {made}.\n"]
    for method, td in tables:
        body.append(tag("h2", method))
        body.append(table_html(td, sortable=True))
        md += [f"## {method}\n", table_markdown(td), ""]
    page = (
        '<!DOCTYPE html>\n<html lang="ja"><head><meta charset="utf-8">'
        f"<title>taiwa leaderboard</title><style>{CSS}</style></head><body>"
        f'<h1>taiwa leaderboard</h1><p class="muted">{len(runs)} run(s) below '
        f"{esc(runs_dir)}, written {made}; click a column head to sort.</p>{join(body)}"
        f"<script>{SORT_JS}</script></body></html>\n"
    )
    html_path = out or runs_dir / "leaderboard.html"
    md_path = html_path.with_suffix(".md")
    with atomic_open(html_path, "w") as fh:
        fh.write(page)
    with atomic_open(md_path, "w") as fh:
        fh.write("\n".join(md) + "\n")
    return html_path, md_path
