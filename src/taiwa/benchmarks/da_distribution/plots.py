"""Seed 002's figures as SVG (:func:`taiwa.charts.svg_figure`): the consistency curve (Fig. 3)
and the transition-lift heatmaps (Fig. 2)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.charts import svg_figure

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
        ax.set_ylabel(f"{'/'.join(sorted(metrics))} ordering agrees with full set (%)")
        ax.set_ylim(top=100.5)
        ax.grid(alpha=0.3)
        ax.legend()


def write_lift_svg(blocks: Mapping[str, Mapping[str, Any]], path: str | Path) -> None:
    """Seed 002 Fig. 2: one heatmap per system of ``P(a_t+1 | a_t) / P(a_t+1)`` (rows: the act
    replied to), coloured on a diverging scale centred at 1; undefined cells blank."""
    if not blocks:
        raise ValueError("no systems to plot")
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    systems = list(blocks)
    cols = min(2, len(systems))
    rows = math.ceil(len(systems) / cols)
    with svg_figure(path, 6.0 * cols, 5.2 * rows) as fig:
        for k, system in enumerate(systems):
            tr = blocks[system]["transitions"]
            labels = tr["labels"]
            lift = np.array(
                [[np.nan if v is None else v for v in row] for row in tr["lift"]], dtype=float
            )
            top = float(np.nanmax(lift)) if np.isfinite(lift).any() else 2.0
            norm = TwoSlopeNorm(vmin=0.0, vcenter=1.0, vmax=max(top, 1.01))
            ax = fig.add_subplot(rows, cols, k + 1)
            image = ax.imshow(np.ma.masked_invalid(lift), cmap="RdBu_r", norm=norm)
            ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
            ax.set_yticks(range(len(labels)), labels, fontsize=7)
            ax.set_xlabel("act of the reply (a_t+1)")
            ax.set_ylabel("act replied to (a_t)")
            ax.set_title(system, fontsize=9)
            fig.colorbar(image, ax=ax, shrink=0.8, label="P(a_t+1|a_t) / P(a_t+1)")
