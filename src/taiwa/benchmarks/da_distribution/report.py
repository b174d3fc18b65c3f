"""The da-distribution section of ``taiwa report`` (seed 002): each system's act distribution
(Table 1) as stacked bars, and the figures the run wrote: the transition-lift heatmaps
(Fig. 2, ``transitions.svg``) and the consistency curve (Fig. 3, ``consistency.svg``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taiwa.report.section import Figure, Section

if TYPE_CHECKING:
    from taiwa.report.runs import RunData


def section(run: RunData) -> Section:
    from taiwa.report.figures import stacked_bars

    systems = {s: b for s, b in run.summary["systems"].items() if b.get("acts")}
    out = Section()
    if systems:
        acts = list(next(iter(systems.values()))["acts"])
        names = [f"{s} (n={b.get('tagged', '?')})" for s, b in systems.items()]
        parts = {
            a: [
                (b["acts"].get(a, {}).get("share", {}).get("value") or 0.0)
                for b in systems.values()
            ]
            for a in acts
        }
        out.figures.append(
            Figure(
                "act distribution per system (seed 002 Table 1)",
                stacked_bars(names, parts, "share of the system's tagged replies"),
                "n = replies tagged; shares with their 95 % CIs are in the act table above",
            )
        )
    for name, title, caption in (
        (
            "transitions.svg",
            "transition lift (seed 002 Fig. 2)",
            "P(a_t+1 | a_t) / P(a_t+1) per system: red above 1 (the act follows more often "
            "than its share), blue below; blank: no transition",
        ),
        (
            "consistency.svg",
            "consistency of the ordering (seed 002 Fig. 3)",
            "how often paired batches of a given size order two systems as the full set does; "
            "95 % Wilson intervals",
        ),
    ):
        svg = run.text(name)
        if svg:
            out.figures.append(Figure(title, svg, caption))
    return out
