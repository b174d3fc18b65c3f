"""Seed 004 Fig. 1 as SVG: the gap between the accuracy on the first n items and the full
accuracy, per model, beside the mean gap of random subsets of the same size."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from taiwa.benchmarks.intent.stability import Stability
from taiwa.charts import svg_figure


def write_stability_svg(
    curves: Mapping[str, Stability], path: str | Path, threshold: float = 0.02
) -> None:
    with svg_figure(path, 5.5, 3.6, margins=(0.13, 0.13, 0.97, 0.96)) as fig:
        ax = fig.add_subplot()
        for k, (system, st) in enumerate(curves.items()):
            colour = f"C{k % 10}"
            ax.plot(st.sizes, st.prefix_gap, marker="o", color=colour, label=f"{system}: first n")
            ax.plot(
                st.sizes, st.random_mean, linestyle="--", color=colour, alpha=0.6,
                label=f"{system}: random n (mean)",
            )  # fmt: skip
        ax.axhline(threshold, color="grey", linewidth=0.8)
        ax.set_xlabel("n (items)")
        ax.set_ylabel("|accuracy on n − full accuracy|")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper right")


def stability_writer(curves: Mapping[str, Stability], threshold: float) -> Callable[[Path], None]:
    return lambda path: write_stability_svg(curves, path, threshold)
