"""Seed 002's figures as SVG (:func:`taiwa.display.charts.svg_figure`): the consistency curve
(Fig. 3)
and the transition-lift heatmaps (Fig. 2)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.display.charts import svg_figure
from taiwa.report.figures import count_axis, legend_outside

if TYPE_CHECKING:
    from taiwa.benchmarks.da_distribution.consistency import Consistency


def write_curve_svg(curves: Mapping[str, Consistency], path: str | Path) -> None:
    """Seed 002 Fig. 3: agreement (%) against batch size, one line per pair of systems
    (``label → result``), with the 95 % intervals as error bars."""
    if not curves:
        raise ValueError("no curves to plot")
    with svg_figure(path, 5.0, 3.5) as fig:
        ax = fig.add_subplot()
        for label, result in curves.items():
            xs = [p.batch_size for p in result.points]
            ys = [100 * p.agreement.value for p in result.points]
            err = [
                [100 * (p.agreement.value - p.agreement.low) for p in result.points],
                [100 * (p.agreement.high - p.agreement.value) for p in result.points],
            ]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
        metrics = {r.metric.upper() for r in curves.values()}
        ax.set_xlabel("batch size")
        count_axis(ax.xaxis)
        ax.set_ylabel(f"{'/'.join(sorted(metrics))} ordering agrees with full set (%)")
        ax.set_ylim(top=100.5)
        ax.grid(alpha=0.3)
        legend_outside(ax, width=5.0)


def write_lift_svg(blocks: Mapping[str, Mapping[str, Any]], path: str | Path) -> None:
    """Seed 002 Fig. 2: one heatmap per system of ``P(a_t+1 | a_t) / P(a_t+1)`` (rows: the act
    replied to), every panel on one diverging log scale centred at 1
    (:func:`taiwa.report.figures.draw_ratio_heatmap`); undefined cells grey and hatched."""
    if not blocks:
        raise ValueError("no systems to plot")
    from taiwa.report.figures import draw_ratio_heatmap, ratio_bound

    systems = list(blocks)
    cols = min(2, len(systems))
    rows = math.ceil(len(systems) / cols)
    bound = ratio_bound([blocks[s]["transitions"]["lift"] for s in systems])
    with svg_figure(path, 6.0 * cols, 5.6 * rows) as fig:
        for k, system in enumerate(systems):
            tr = blocks[system]["transitions"]
            ax = fig.add_subplot(rows, cols, k + 1)
            label = "P(a_t+1|a_t) / P(a_t+1)"
            draw_ratio_heatmap(fig, ax, tr["labels"], tr["labels"], tr["lift"], label, bound)
            ax.set_xlabel("act of the reply (a_t+1)")
            ax.set_ylabel("act replied to (a_t)")
            ax.set_title(system, fontsize=9)
