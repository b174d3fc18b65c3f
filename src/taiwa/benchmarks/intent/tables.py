"""Terminal tables of intent: seed 004 Table 1 (models as rows) and Table 2 (the gap of each
prefix size to the full accuracy)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from taiwa.display.tables import ci_cell, clip
from taiwa.metrics.flags import flagged, mark, marked


def table1(summary: Mapping[str, Any]) -> Table:
    """Seed 004 Table 1: accuracy on context-independent and context-dependent items, and
    overall, with n and 95 % CIs; unparseable answers (scored wrong) and failures counted."""
    items = summary["across"]["items"]
    t = Table(
        title="intent (seed 004 Table 1): accuracy by context dependence",
        title_justify="left",
        show_lines=True,
        caption="95 % bootstrap CI in brackets; an answer naming no single option is "
        "unparseable and scored wrong; failed requests are not scored",
    )
    t.add_column("model", no_wrap=True)
    t.add_column(f"文脈非依存\n(n={items['independent']})", justify="right")
    t.add_column(f"文脈依存\n(n={items['dependent']})", justify="right")
    t.add_column(f"全体\n(n={items['all']})", justify="right")
    t.add_column("unparseable", justify="right")
    t.add_column("failed", justify="right")
    for system, b in summary["systems"].items():
        t.add_row(
            clip(system),
            mark(ci_cell(b.get("accuracy_independent")), b, "accuracy_independent"),
            mark(ci_cell(b.get("accuracy_dependent")), b, "accuracy_dependent"),
            mark(ci_cell(b.get("accuracy")), b, "accuracy"),
            str(b.get("unparseable", 0)),
            str(sum(b.get("failures", {}).values())),
        )
    return t


def table2(summary: Mapping[str, Any]) -> Table | None:
    """Seed 004 Table 2, one row per n (the models as columns, so that many sizes fit):
    |accuracy on the first n items − full accuracy|, and the mean gap of random subsets of n."""
    blocks = {s: b["stability"] for s, b in summary["systems"].items() if "stability" in b}
    if not blocks:
        return None
    t = Table(
        title="intent (seed 004 Table 2): gap to the full accuracy on the first n items",
        title_justify="left",
        caption="first n in the benchmark's order (shuffled when it was built); random: the mean "
        "gap of 2,000 random subsets of n; stable from: the smallest n after which every gap "
        "of the first n stays below the threshold, shown only when random subsets of that n "
        "stay below it too (95th percentile), the answers unflagged",
    )
    t.add_column("n", justify="right", no_wrap=True)
    for system in blocks:
        t.add_column(f"{clip(system)}\nfirst n", justify="right")
        t.add_column("random", justify="right")
    sizes = [p["n"] for p in next(iter(blocks.values()))["points"]]
    carries = {s: flagged(summary["systems"][s], "stability") for s in blocks}
    for row, n in enumerate(sizes):
        cells = []
        for system, st in blocks.items():
            p = st["points"][row]
            gaps = (f"{p['prefix_gap']:.3f}", f"{p['random_mean_gap']:.3f}")
            cells += [marked(g) if carries[system] else g for g in gaps]
        t.add_row(str(n), *cells)
    stable = []
    why = []
    for system, st in blocks.items():
        claim = st.get("claim") or {"holds": st["stable_from"] is not None, "why": ""}
        shown = claim["holds"] and st["stable_from"] is not None
        cell = f"n={st['stable_from']}" if shown else "–"
        stable += [marked(cell) if carries[system] else cell, ""]
        if not shown and claim.get("why"):
            why.append(f"{system}: {claim['why']}")
    t.add_row("stable from", *stable, end_section=True)
    if why:
        t.caption = f"{t.caption}\nno stable n: " + "; ".join(why)
    return t


def answers_table(summary: Mapping[str, Any]) -> Table | None:
    """Each system's answers per option beside the gold labels of the same items: a system
    that names one option every time scores gold's share of that option (flagged ⚑)."""
    blocks = {s: b["answers"] for s, b in summary["systems"].items() if b.get("answers")}
    if not blocks:
        return None
    first = next(iter(blocks.values()))
    t = Table(
        title="intent: answers per option (gold: the gold labels of the same items)",
        title_justify="left",
        caption="⚑ every answer names one option, or one takes most answers beyond gold's "
        "share of it (exact binomial, p<0.01), or the answers lean on some options beyond "
        "gold's shares (chi-square, p<0.01)",
    )
    t.add_column("model", no_wrap=True, max_width=20, overflow="ellipsis")
    for option in first["options"]:
        t.add_column(option, justify="right", no_wrap=True)
    t.add_column("unparsed", justify="right", no_wrap=True)
    t.add_row("gold", *(str(g) for g in first["gold"]), "", end_section=True)
    for system, d in blocks.items():
        cells = [str(a) for a in d["answers"]]
        top = d.get("top")
        if top is not None:
            cells[top["option"] - 1] = mark(
                cells[top["option"] - 1], summary["systems"][system], "accuracy"
            )
        t.add_row(clip(system), *cells, str(d["unparsed"]))
    return t


def tables(summary: Mapping[str, Any]) -> list[Any]:
    out: list[Any] = [table1(summary)]
    answers = answers_table(summary)
    if answers is not None:
        out.append(answers)
    t2 = table2(summary)
    if t2 is not None:
        out.append(t2)
    return out
