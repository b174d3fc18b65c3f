"""The intent section of ``taiwa report`` (seed 004): Table 1's accuracies as bars
(context-independent, context-dependent, all) with their 95 % CIs, and the stability curve
(Fig. 1) drawn from the summary's ``stability`` blocks (:mod:`.plots`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taiwa.display.section import Figure, Section

if TYPE_CHECKING:
    from taiwa.harness.run_reader import RunData

SPLITS = (
    ("accuracy_independent", "文脈非依存 (independent)", "independent"),
    ("accuracy_dependent", "文脈依存 (dependent)", "dependent"),
    ("accuracy", "全体 (all)", "all"),
)
"""Table 1's columns: the summary key, the label, the key of its item count."""


def section(run: RunData) -> Section:
    from taiwa.report.figures import grouped_bars

    systems = run.summary["systems"]
    items = run.summary["across"].get("items", {})
    out = Section()
    if systems:
        series = {
            f"{label} (n={items.get(count, '?')})": [b.get(key) for b in systems.values()]
            for key, label, count in SPLITS
        }
        out.figures.append(
            Figure(
                "accuracy by context dependence (seed 004 Table 1)",
                grouped_bars(list(systems), series, "accuracy", ylim=(0, 1.05)),
                "share of items answered with the gold option; error bars: 95 % bootstrap CI; "
                "an unparseable answer is scored wrong; chance is 0.25",
            )
        )
    blocks = {s: b["stability"] for s, b in systems.items() if b.get("stability")}
    if blocks:
        from taiwa.benchmarks.intent.plots import stability_svg

        title = "stability over prefix size (seed 004 Fig. 1)"
        svg = stability_svg(blocks)
        if not svg:
            n = max(st.get("n", 0) for st in blocks.values())
            out.figures.append(
                Figure.nothing(
                    title,
                    f"not drawn: {n} items leave no prefix size below the full set (sizes step "
                    "by about a tenth of the items, at least 5; by 50 from 500 items on)",
                )
            )
        else:
            out.figures.append(
                Figure(
                    title,
                    svg,
                    "|accuracy on the first n items − full accuracy| per model, beside the mean "
                    "gap of random subsets of n; the grey line is the threshold",
                )
            )
    return out
