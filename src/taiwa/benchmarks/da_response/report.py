"""The da-response section of ``taiwa report`` (seed 000 §4.2): the WED breakdown per system
as stacked bars (Table 1's deletion / insertion / substitution means, which add up to the mean
WED). Table 2's representative examples, gold and system reply side by side, are among the
method's tables (:func:`.tables.examples_table`), which the page renders itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from taiwa.benchmarks.da_response.tables import PARTS
from taiwa.display.section import Figure, Section

if TYPE_CHECKING:
    from taiwa.harness.run_reader import RunData


def section(run: RunData) -> Section:
    from taiwa.report.figures import stacked_bars

    systems = {s: b for s, b in run.summary["systems"].items() if "wed" in b}
    out = Section()
    if systems:
        names = [f"{s} (n={b['wed']['n']})" for s, b in systems.items()]
        parts = {p: [b[p]["value"] for b in systems.values()] for p in PARTS}
        out.figures.append(
            Figure(
                "WED breakdown per system (seed 000 Table 1)",
                stacked_bars(names, parts, "mean cost per reply (sums to the mean WED)"),
                "mean deletion, insertion and substitution cost over the scored replies; "
                "n = replies scored; the CIs are in the table above",
            )
        )
    return out
