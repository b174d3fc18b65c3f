"""Seed 004 Fig. 1 as SVG: the gap between the accuracy on the first n items and the full
accuracy, per model, beside the mean gap of random subsets of the same size.

Drawn by the report (``taiwa report``) from the ``stability`` blocks of ``summary.json``, not
by the run: a run writes the numbers, the report draws them (as for every other chart), so
the run's last reply is not followed by a figure's drawing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taiwa.display.charts import svg_string
from taiwa.report.figures import FIG_WIDTH, count_axis, legend_outside


def stability_svg(blocks: Mapping[str, Mapping[str, Any]]) -> str:
    """The figure for ``blocks`` (system → its summary ``stability`` block) as SVG text;
    ``""`` when no block has a prefix size to draw."""
    if not any(st["points"] for st in blocks.values()):
        return ""
    with svg_string(FIG_WIDTH, 4.0) as (fig, out):
        ax = fig.add_subplot()
        threshold = None
        for k, (system, st) in enumerate(blocks.items()):
            colour = f"C{k % 10}"
            sizes = [p["n"] for p in st["points"]]
            prefix = [p["prefix_gap"] for p in st["points"]]
            random = [p["random_mean_gap"] for p in st["points"]]
            ax.plot(sizes, prefix, marker="o", color=colour, label=f"{system}: first n")
            ax.plot(
                sizes, random, linestyle="--", color=colour, alpha=0.6,
                label=f"{system}: random n (mean)",
            )  # fmt: skip
            threshold = st.get("threshold", threshold)
        if threshold is not None:
            ax.axhline(threshold, color="grey", linewidth=0.8)
        ax.set_xlabel("n (items)")
        count_axis(ax.xaxis)
        ax.set_ylabel("|accuracy on n − full accuracy|")
        ax.grid(alpha=0.3)
        legend_outside(ax)
    return out.text
