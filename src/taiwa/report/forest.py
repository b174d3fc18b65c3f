"""The forest plot of a run's paired comparisons (issue 27): for every metric a panel, one row
per pair ``a − b`` with the difference and its 95 % CI; significant ones (Holm-corrected p <
α) filled and coloured, the others hollow and grey; 0 marked. Drawn as the charts of
:mod:`taiwa.report.figures` are (:data:`~taiwa.report.figures.FIG_WIDTH` wide, no text below
:data:`~taiwa.report.figures.FONT` points, the legend outside the axes); knows no method."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taiwa.display.charts import svg_string
from taiwa.display.section import Figure
from taiwa.report.chart_labels import pair_label
from taiwa.report.figures import FIG_WIDTH, FONT, legend_outside

SIGNIFICANT = "#c0392b"
OTHER = "#7f7f7f"


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and x == x


def forest_svg(block: Mapping[str, Any]) -> str:
    """The SVG text of the forest plot of a ``comparisons`` block ("" when no difference is
    finite)."""
    rows = [
        r
        for r in block.get("rows", [])
        if _finite(r["difference"]["value"]) and not r.get("no_test")  # no test: no interval
    ]
    if not rows:
        return ""
    metrics: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        metrics.setdefault(f"{r['label']} ({r['direction']} is better)", []).append(r)
    height = 0.7 + sum(0.45 + 0.28 * len(rs) for rs in metrics.values())
    with svg_string(FIG_WIDTH, height) as (fig, out):
        axes = fig.subplots(
            len(metrics), 1, squeeze=False, height_ratios=[len(rs) + 1 for rs in metrics.values()]
        )[:, 0]
        labelled: set[bool] = set()
        for ax, (title, rs) in zip(axes, metrics.items(), strict=True):
            for y, r in enumerate(reversed(rs)):
                d = r["difference"]
                sig = bool(r["significant"])
                lo = d["ci_low"] if _finite(d["ci_low"]) else d["value"]
                hi = d["ci_high"] if _finite(d["ci_high"]) else d["value"]
                colour = SIGNIFICANT if sig else OTHER
                ax.plot([lo, hi], [y, y], color=colour, linewidth=1.6)
                face = colour if sig else "white"
                ax.plot([d["value"]], [y], "o", color=colour, markerfacecolor=face)
                labelled.add(sig)
            ax.axvline(0, color="black", linewidth=0.8)
            ax.set_yticks(
                range(len(rs)),
                [pair_label(r["a"], r["b"]) for r in reversed(rs)],
                fontsize=FONT,
            )
            ax.set_ylim(-0.7, len(rs) - 0.3)
            ax.tick_params(axis="x", labelsize=FONT)
            ax.set_title(title, fontsize=FONT + 1, loc="left")
            ax.grid(axis="x", alpha=0.3)
        for sig in sorted(labelled, reverse=True):  # legend entries, drawn nowhere
            colour = SIGNIFICANT if sig else OTHER
            label = f"Holm p < {block.get('alpha', 0.05)}" if sig else "not significant"
            face = colour if sig else "white"
            axes[0].plot([], [], "o-", color=colour, markerfacecolor=face, label=label)
        legend_outside(axes[0])
    return out.text


def forest_figure(block: Mapping[str, Any]) -> Figure:
    """The forest plot as a report :class:`Figure` with its caption."""
    svg = forest_svg(block)
    title = "paired differences a − b with 95 % CIs"
    if not svg:
        return Figure.nothing(title, "no pair has a difference to plot (no shared items)")
    vs = f" against baseline {block['baseline']}" if block.get("baseline") else ""
    return Figure(
        title,
        svg,
        f"every pair{vs} over the items both systems scored; filled: Holm-corrected p < "
        f"{block.get('alpha', 0.05)} over {block.get('family')} comparisons; the line at 0 is "
        "no difference",
    )
