"""The da-distribution section of ``taiwa report`` (seed 002): each system's act distribution
(Table 1) as stacked bars, the transition-lift heatmaps (Fig. 2) drawn from the summary on one
colour scale, and the consistency curve the run wrote (Fig. 3, ``consistency.svg``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from taiwa.display.section import Figure, Section

if TYPE_CHECKING:
    from taiwa.harness.run_reader import RunData


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
    out.figures += lift_figures(run.summary["systems"])
    svg = run.text("consistency.svg")
    if svg:
        out.figures.append(
            Figure(
                "consistency of the ordering (seed 002 Fig. 3)",
                svg,
                "how often paired batches of a given size order two systems as the full set "
                "does; 95 % Wilson intervals",
            )
        )
    return out


LIFT_LABEL = "P(a_t+1 | a_t) / P(a_t+1)"


def lift_figures(systems: Mapping[str, Mapping[str, Any]]) -> list[Figure]:
    """Seed 002 Fig. 2, one heatmap per system on one colour scale shared by every panel
    (:func:`taiwa.report.figures.ratio_bound`), drawn from the summary's lift matrices."""
    from taiwa.report.figures import ratio_bound, ratio_heatmap

    blocks = {s: b["transitions"] for s, b in systems.items() if b.get("transitions")}
    bound = ratio_bound([t["lift"] for t in blocks.values()])
    out = []
    for system, tr in blocks.items():
        title = f"transition lift (seed 002 Fig. 2): {system}"
        svg = ratio_heatmap(
            tr["labels"],
            tr["labels"],
            tr["lift"],
            LIFT_LABEL,
            bound=bound,
            xlabel="act of the reply (a_t+1)",
            ylabel="act replied to (a_t)",
        )
        if not svg:
            out.append(Figure.nothing(title, "not drawn: no act was followed by a reply"))
            continue
        n = sum(sum(row) for row in tr.get("counts", []))
        out.append(
            Figure(
                title,
                svg,
                f"{LIFT_LABEL} over {n} transitions, on one log scale for every system "
                f"(1/{bound:g} to {bound:g}): red above 1 (the act follows more often than its "
                "share), white at 1, blue below (a lift of 0, never seen, the darkest); grey "
                "hatched: no transition from that act",
            )
        )
    return out
