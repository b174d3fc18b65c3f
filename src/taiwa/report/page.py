"""The report page (``taiwa report``): one self-contained HTML file, no network, inline CSS and
inline SVG charts, readable on a laptop and printable. For each method present (in the order of
the methods handed in: the registry's): a combined headline table when several runs of it are
given, then each run with its provenance, failures, notes, the method's terminal tables,
figures and examples."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.display.section import Html, Section
from taiwa.harness.run_reader import RunData, summary_errors
from taiwa.metrics.flags import flag_lines
from taiwa.report.grouping import by_method
from taiwa.report.html import esc, join, tag
from taiwa.report.item_data import RunItems, run_keys
from taiwa.report.item_view import items_css, items_placeholder, items_scripts, run_items_of
from taiwa.report.rich_html import TableData, renderable_html, table_data, table_html
from taiwa.report.svg import inline_svg

if TYPE_CHECKING:
    from taiwa.harness.method import Method

CSS = """
:root{--fg:#1d1d1f;--muted:#666;--line:#d7d7db;--accent:#2456a6;--bad:#b3261e}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI","Hiragino Sans","Noto Sans CJK JP",
"Yu Gothic",sans-serif;color:var(--fg);max-width:1180px;margin:0 auto;padding:1.2em 1.5em 4em}
h1{font-size:1.7em;margin:.2em 0}h2{font-size:1.35em;border-bottom:2px solid var(--accent);
padding-bottom:.2em;margin-top:2.2em}h3{font-size:1.1em;margin-top:1.8em}
h4{font-size:1em;margin:1.2em 0 .4em}
nav ul{columns:2;padding-left:1.2em}code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;
font-size:.88em}
.table{overflow-x:auto;margin:.8em 0 1.2em}
table{border-collapse:collapse;font-size:.88em;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.3em 0}
th,td{border:1px solid var(--line);padding:.3em .55em;vertical-align:top;text-align:right}
th:first-child,td:first-child,th.l,td.l{text-align:left}th.c,td.c{text-align:center}
thead th{background:#f3f4f7}
table.sortable th{cursor:pointer}table.sortable th:after{content:" \\2195";color:var(--muted)}
.caption,.muted{color:var(--muted);font-size:.85em;margin:.2em 0}
.line{margin:.3em 0}
.kv td{text-align:left}.kv td:first-child{white-space:nowrap;color:var(--muted)}
.figures{display:flex;flex-wrap:wrap;gap:1.2em}
figure{margin:0;flex:0 1 540px;max-width:100%;border:1px solid var(--line);padding:.6em;
background:#fff;break-inside:avoid}
figure svg{width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:var(--muted)}
figcaption b{color:var(--fg)}
.nofigure{color:var(--muted);margin:.4em 0}.nofigure b{color:var(--fg)}
.examples td{text-align:left;max-width:32em}
mark.hit{background:#ffe28a;padding:0 .1em}mark.hit2{background:#b9e6ff;padding:0 .1em}
.st-red{color:var(--bad)}.st-green{color:#1b7a32}.st-yellow{color:#8a6100}.st-dim{color:#999}
.st-bold{font-weight:700}
.status-ok{color:#1b7a32}.status-failures{color:var(--bad);font-weight:700}
.notes li{margin:.2em 0}
@media print{body{max-width:none;font-size:11px;padding:0}nav{display:none}
h2{break-before:page}figure{flex-basis:48%}a{color:inherit;text-decoration:none}}
"""


def _kv(rows: Sequence[tuple[str, Any]]) -> Html:
    body = join(tag("tr", tag("td", k), tag("td", v)) for k, v in rows if v not in (None, ""))
    return Html(f'<div class="table"><table class="kv">{body}</table></div>')


def _digests(d: Mapping[str, str]) -> str:
    """SHA-256 digests shown by their first 12 hex digits."""
    return "; ".join(f"{k} {v[:12]}" for k, v in d.items())


def provenance(run: RunData) -> Html:
    """Who and what made the run: method, systems, helper roles, models, seeds, versions, the
    prompts' and inputs' SHA-256, when it finished."""
    c, s = run.config, run.summary
    models = "; ".join(f"{spec}: {m.backend} {m.model_id}".strip() for spec, m in c.models.items())
    roles = ", ".join(f"{k}={v}" for k, v in c.roles.items())
    seeds = ", ".join(f"{k} {v}" for k, v in c.seeds.items())
    options = ", ".join(f"{k}={v}" for k, v in c.options.items())
    rows: list[tuple[str, Any]] = [
        ("directory", str(run.path)),
        ("status", s.get("status")),
        ("finished", run.finished),
        ("samples", s.get("n_samples")),
        ("systems", ", ".join(run.systems)),
        ("helper roles (judge, annotator, tagger …)", roles or "none"),
        ("models", models),
        ("options", options),
        ("seeds", seeds),
        ("taiwa", f"{c.taiwa_version or '?'} (git {str(c.git_commit)[:12]})"),
        ("prompts (SHA-256)", _digests(c.prompt_sha256)),
        ("inputs (SHA-256)", _digests(c.input_sha256)),
        ("seconds", (s.get("seconds") or {}).get("total")),
    ]
    return _kv(rows)


def failures(run: RunData) -> Html:
    """Failure counts per stage (with the failed rows' first reasons, read from the stage
    files), the calls per role (errors, repaired and still-invalid outputs), the tokens and
    cost per role and the run's total."""
    from taiwa.display.tables import calls_table, cost_table, totals_line

    s = run.summary
    counts = ", ".join(f"{k}: {v}" for k, v in s["failures"].items()) or "no stage"
    parts = [tag("p", f"failed samples per stage: {counts}", cls=f"status-{s['status']}")]
    for f in run.failed_rows():
        rows = [
            tag(
                "tr",
                tag("td", f"{f.file}:{line}"),
                tag("td", ident),
                tag("td", system),
                tag("td", reason[:300]),
            )
            for line, ident, system, reason in f.examples
        ]
        head = tag("tr", *(tag("th", h) for h in ("line", "id", "system", "reason")))
        more = f" (first {len(f.examples)} shown)" if f.failed > len(f.examples) else ""
        skipped = f"; {f.skipped} skipped after an earlier failure" if f.skipped else ""
        parts.append(tag("h4", f"{f.file}: {f.failed} failed{skipped}{more}"))
        if rows:
            parts.append(
                Html(f'<div class="table"><table class="examples">{head}{join(rows)}</table></div>')
            )
    if s["calls"]:
        parts.append(renderable_html(calls_table(s["calls"])))
        cost = cost_table(s["calls"], s.get("totals"))
        if cost is not None:
            parts.append(renderable_html(cost))
        if s.get("totals"):
            parts.append(tag("p", totals_line(s["totals"])))
    return join(parts)


def _section(method: Any, run: RunData) -> tuple[list[Any], Section]:
    """The method's terminal tables and report section for ``run``."""
    with summary_errors(run):
        return list(method.tables(run.summary)), method.report(run)


def merged_headline(runs: Sequence[RunData], firsts: Sequence[TableData]) -> TableData | None:
    """One table of every run's headline (first) table when they share their columns (item
    counts aside), with a leading ``run`` column and a note when the runs were not on the same
    items or not made with the same settings; ``None`` otherwise."""
    if len(firsts) < 2 or len({t.header_key for t in firsts}) != 1:
        return None
    from taiwa.report.grouping import item_sets_note, settings_note
    from taiwa.report.rich_html import join_tables

    joined = join_tables([r.path.name for r in runs], firsts)
    notes = (item_sets_note(runs), settings_note(runs), joined.caption)
    joined.caption = "\n".join(x for x in notes if x)
    return joined


def method_html(
    method: Method[Any],
    runs: Sequence[RunData],
    counter: list[int],
    items: Sequence[RunItems | None] | None = None,
) -> Html:
    """The whole section of one method: combined headline, then each run (with its item view
    when ``items`` has the run's)."""
    # a method that follows no seed paper (prompts: seed "-") shows its name alone
    title = method.name if method.seed in ("", "-") else f"{method.name} (seed {method.seed})"
    parts = [tag("h2", title, id=f"m-{method.name}")]
    parts.append(tag("p", method.title, cls="muted"))
    rendered = [_section(method, r) for r in runs]
    from rich.table import Table

    firsts = [table_data(t[0]) for t, _ in rendered if t and isinstance(t[0], Table)]
    merged = merged_headline(runs, firsts) if len(firsts) == len(runs) else None
    if merged is not None:
        parts.append(tag("h3", f"all {len(runs)} runs"))
        parts.append(table_html(merged, sortable=False))
    shown = list(items) if items is not None else [None] * len(runs)
    for run, (tables, section), its in zip(runs, rendered, shown, strict=True):
        with summary_errors(run):
            parts += _run_html(run, tables, section, counter, its)
    return Html(f'<section class="method" data-method="{esc(method.name)}">{join(parts)}</section>')


def _run_html(
    run: RunData,
    tables: list[Any],
    section: Section,
    counter: list[int],
    explorer: RunItems | None = None,
) -> list[Html]:
    """One run's part of a method's section: tables, figures, examples, flags, notes, the
    item view, failures and provenance."""
    parts = [tag("h3", f"run {run.path}", id=f"run-{counter[0]}")]
    parts += [renderable_html(t) for t in tables]
    block = run.summary.get("comparisons")
    if block:
        from taiwa.display.comparison_table import comparisons_table
        from taiwa.report.forest import forest_figure

        parts.append(tag("h4", "paired comparisons"))
        parts.append(renderable_html(comparisons_table(block)))
        section.figures.insert(0, forest_figure(block))
    if section.figures:
        figs, undrawn = [], []
        for fig in section.figures:
            counter[0] += 1
            if not fig.drawn:  # one line saying why, not empty axes
                undrawn.append(tag("p", tag("b", fig.title), ": ", fig.reason, cls="nofigure"))
                continue
            caption = tag("figcaption", tag("b", fig.title), " ", fig.caption)
            figs.append(tag("figure", inline_svg(fig.svg, f"f{counter[0]}"), caption))
        if figs:
            parts.append(Html(f'<div class="figures">{join(figs)}</div>'))
        parts += undrawn
    if section.examples:
        parts.append(tag("h4", "examples"))
        parts += [renderable_html(e) for e in section.examples]
    flags = flag_lines(run.summary)
    if flags:
        items = join(tag("li", f) for f in flags)
        parts.append(Html(f'<h4>flags</h4><ul class="notes flags">{items}</ul>'))
    if run.summary["notes"]:
        notes = join(tag("li", n) for n in run.summary["notes"])
        parts.append(Html(f'<h4>notes</h4><ul class="notes">{notes}</ul>'))
    if explorer is not None:
        parts.append(items_placeholder(explorer))
    parts.append(tag("h4", "failures"))
    parts.append(failures(run))
    parts.append(tag("h4", "provenance"))
    parts.append(provenance(run))
    counter[0] += 1
    return parts


def report_html(runs: Sequence[RunData], methods: Sequence[Method[Any]]) -> str:
    """The page for ``runs``, grouped by method in the order of ``methods``."""
    groups = by_method(runs, methods)
    counter = [0]
    keys = dict(zip(map(id, runs), run_keys(runs), strict=True))
    items = {m.name: [run_items_of(r, m, keys[id(r)]) for r in rs] for m, rs in groups}
    body = [method_html(m, rs, counter, items[m.name]) for m, rs in groups]
    toc = join(
        tag("li", Html(f'<a href="#m-{esc(m.name)}">{esc(m.name)}</a>'), f" ({len(rs)} run(s))")
        for m, rs in groups
    )
    made = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (
        '<!DOCTYPE html>\n<html lang="ja"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>taiwa report</title><style>{CSS}{items_css()}</style></head><body>"
        f'<h1>taiwa report</h1><p class="muted">{len(runs)} run(s), written {made}. Every '
        "number is a mean or share with its n and 95 % bootstrap CI as in summary.json.</p>"
        f"<nav><ul>{toc}</ul></nav>{join(body)}"
        f"{items_scripts([i for its in items.values() for i in its])}</body></html>\n"
    )


def write_report(
    paths: Sequence[Path], out: Path | None = None, *, methods: Sequence[Method[Any]]
) -> Path:
    """Read the run directories in (or below) ``paths`` and write the report of the runs of
    ``methods`` (the registry's, handed down by the CLI); by default ``report.html`` in the one
    run directory, or in the first directory given."""
    from taiwa.core.io import atomic_open
    from taiwa.harness.run_reader import find_runs, load_run

    runs = [load_run(p) for p in find_runs(paths)]
    target = out or paths[0] / "report.html"
    with atomic_open(target, "w") as fh:
        fh.write(report_html(runs, methods))
    return target
