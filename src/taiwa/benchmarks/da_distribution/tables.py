"""Terminal tables of da-distribution: seed 002 Table 2 (systems as rows), Table 1 (acts as
rows, systems as columns), Fig. 2 as numbers per system, and Fig. 3's agreement per batch
size."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table

from taiwa.benchmarks.da_distribution.correction_table import (
    CORRECTED_COLUMNS,
    corrected_caption,
    corrected_caption_line,
    corrected_cells,
    has_corrected,
)
from taiwa.display.tables import ci_cell, clip, compact_table
from taiwa.metrics.flags import mark

METRICS = {
    "dae": "DAE (bits)",
    "dami": "DAMI (bits)",
    "distinct1": "Distinct-1",
    "distinct2": "Distinct-2",
}


def table2(summary: Mapping[str, Any]) -> Table:
    """Seed 002 Table 2: DAE, DAMI and Distinct per system, with n and 95 % CIs, and DAE and
    DAMI corrected for the tagger's errors when the run has them."""
    t = Table(
        title="da-distribution (seed 002 Table 2)",
        title_justify="left",
        show_lines=True,
        caption="n = replies tagged / contexts; 95 % CI in brackets (bootstrap; DAMI and "
        "Distinct: jackknife)",
    )
    t.add_column("system", no_wrap=True)
    t.add_column("n", justify="right", no_wrap=True)
    for label in METRICS.values():
        t.add_column(label, justify="right")
    corrected = has_corrected(summary)
    if corrected:
        for label in CORRECTED_COLUMNS.values():
            t.add_column(label, justify="right")
    tagger = summary["across"].get("tagger", {})
    if tagger:
        line = f"\nacts: {tagger['kind']} ({clip(tagger['spec'], 60)})"
        agree = summary["across"].get("tagger_vs_human_labels")
        if agree and agree.get("value") is not None:
            line += (
                f"; it gives the human replies the test set's label {100 * agree['value']:.0f}% "
                f"[{100 * agree['ci_low']:.0f}, {100 * agree['ci_high']:.0f}] of the time "
                f"(n={agree['n']})"
            )
        t.caption = f"{t.caption}{line}"
    t.caption = f"{t.caption}{corrected_caption_line(summary)}"
    for system, b in summary["systems"].items():
        n = f"{b.get('tagged', 0)}/{b.get('n', '–')}"
        cells = [mark(ci_cell(b.get(k)), b, k) for k in METRICS]
        if corrected:
            cells += corrected_cells(b)
        t.add_row(clip(system), n, *cells)
    return t


def table1(summary: Mapping[str, Any]) -> Table:
    """Seed 002 Table 1: how many replies of each system have each act (share below)."""
    systems = summary["systems"]
    t = Table(
        title="act distribution (seed 002 Table 1)",
        title_justify="left",
        caption="count, and share with its 95 % bootstrap CI" + corrected_caption(summary),
    )
    t.add_column("act", no_wrap=True)
    for system in systems:
        t.add_column(clip(system), justify="right")
    acts: list[str] = list(next(iter(systems.values()))["acts"]) if systems else []
    for act in acts:
        cells = []
        for b in systems.values():
            a = b["acts"].get(act)
            if a is None:
                cells.append("–")
                continue
            s = a["share"]
            share = "" if s["value"] is None else f" {100 * s['value']:.0f}%"
            ci = (
                ""
                if s["ci_low"] is None
                else f"\n[{100 * s['ci_low']:.0f}, {100 * s['ci_high']:.0f}]"
            )
            fixed = b.get("corrected", {}).get("shares", {}).get(act)
            corr = "" if not fixed else f"\ncorr. {100 * fixed['value']:.0f}%"
            cells.append(f"{a['count']}{share}{ci}{corr}")
        t.add_row(clip(act), *cells)
    return t


def _short(acts: Sequence[str]) -> list[str]:
    """Column heads short enough for an 11 × 11 matrix in 100 columns (the legend names them)."""
    return [a[:2] for a in acts]


def _lift_cell(value: float | None, count: int) -> str:
    """One cell: the lift (no decimals from 10 up); above 1.5 green, below 0.67 red, cells
    with fewer than 3 transitions dim."""
    if value is None:
        return "–"
    text = f"{value:.0f}" if value >= 10 else f"{value:.1f}"
    style = "dim" if count < 3 else "green" if value > 1.5 else "red" if value < 0.67 else ""
    return f"[{style}]{text}[/{style}]" if style else text


def lift_table(block: Mapping[str, Any], system: str) -> Table:
    """Seed 002 Fig. 2 as numbers: ``P(next | prev) / P(next)``, rows the previous act."""
    tr = block["transitions"]
    labels = tr["labels"]
    short = _short(labels)
    t = compact_table(  # 12 columns of 4 fit 80 columns without vertical rules
        f"transition lift P(a_t+1|a_t)/P(a_t+1) (seed 002 Fig. 2): {clip(system)}",
        caption="rows: act replied to; columns: act of the reply; green > 1.5, red < 0.67, "
        "dim: < 3 transitions. "
        + ", ".join(f"{s}={a}" for s, a in zip(short, labels, strict=True)),
    )
    t.add_column("", no_wrap=True)
    for head in short:
        t.add_column(head, justify="right", no_wrap=True, min_width=4)
    for i, head in enumerate(short):
        if any(tr["counts"][i]):
            cells = (_lift_cell(v, tr["counts"][i][j]) for j, v in enumerate(tr["lift"][i]))
            t.add_row(head, *cells)
    return t


def consistency_table(block: Mapping[str, Any], across: Mapping[str, Any] | None = None) -> Table:
    """Seed 002 Fig. 3 as numbers: how often paired batches order two systems by DAE as the
    full set does; a pair is marked when ``across`` flags it (the corrected DAE orders it the
    other way or is flagged)."""
    t = Table(
        title="consistency of the DAE ordering (seed 002 §5.1, Fig. 3)",
        title_justify="left",
        caption="share of paired batches agreeing with the full set, 95 % Wilson interval",
    )
    t.add_column("pair")  # wraps between the names, never inside one
    t.add_column("n", justify="right")
    t.add_column("batch size: agreement", overflow="fold")
    for label, p in block["pairs"].items():
        if "skipped" in p:
            t.add_row(clip(label), str(p["n"]), f"skipped: {p['skipped']}")
            continue
        points = "\n".join(  # one batch size a line: an interval never splits
            f"{q['batch_size']}: {100 * q['agreement']['value']:.1f}% "
            f"[{100 * q['agreement']['ci_low']:.1f}, {100 * q['agreement']['ci_high']:.1f}]"
            for q in p["points"]
        )
        t.add_row(mark(clip(label), across, f"consistency.{label}"), str(p["n"]), points)
    return t


def tables(summary: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = [table2(summary), table1(summary)]
    out += [lift_table(b, s) for s, b in summary["systems"].items()]
    if "consistency" in summary["across"]:
        out.append(consistency_table(summary["across"]["consistency"], summary["across"]))
    return out
