"""Chart types the methods' report sections share, drawn with matplotlib
(:func:`taiwa.display.charts.svg_string`) and returned as SVG text: bars with their 95 % CIs,
stacked
bars, a heatmap, a heatmap of ratios, a scatter. They know no method: labels and values come
from the caller.

Every chart is drawn :data:`FIG_WIDTH` wide at most, the width of a figure on the report page,
so that its text shows at its size in points (none below :data:`FONT`); legends stand outside
the axes (:func:`legend_outside`), so they never cover data; a chart with no value to draw is
the empty string, which the page replaces by a line saying so."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from taiwa.display.charts import svg_string
from taiwa.report.chart_labels import chart_label, chart_labels

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

Estimate = Mapping[str, Any]
"""``{"value", "ci_low", "ci_high", "n"}`` as in summary.json (values may be ``None``)."""

FIG_WIDTH = 5.3
"""Inches: a figure box of the report page holds 520 CSS px (96 an inch), so a chart this wide
is drawn at its own scale or a little larger."""

FONT = 8
"""The smallest font, in points: tick labels, legends, values written on the chart."""

MISSING_HATCH = "////"
"""How a heatmap cell with no value is drawn (grey, hatched): apart from every colour of the
scale, so that "no value" never reads as a value."""


def _v(e: Estimate | None, key: str = "value") -> float:
    v = None if e is None else e.get(key)
    return float("nan") if v is None else float(v)


def count_axis(axis: Any) -> None:
    """Ticks at whole numbers only on ``axis`` (``ax.xaxis``), for counts (items, batch
    sizes): matplotlib would otherwise mark 7.5 items between 5 and 10."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _em(label: str) -> float:
    """A label's width in ems (its longest line): Japanese characters one each, others about
    half."""
    return max(sum(1.0 if ord(ch) > 0x2E80 else 0.55 for ch in line) for line in label.split("\n"))


def legend_outside(ax: Axes, *, width: float = FIG_WIDTH, fontsize: float = FONT) -> None:
    """The axes' legend above the plot, centred on the figure, outside every axes (the
    constrained layout makes room for it), in as many columns as the figure's ``width``
    (inches) holds; none when nothing is labelled."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    labels = chart_labels(labels)
    fig = cast("Figure", ax.figure)  # these charts draw on a Figure, never a SubFigure
    fig.set_layout_engine("constrained")
    column = (max(_em(label) for label in labels) + 3.5) * fontsize / 72  # inches
    fit = max(1, min(len(labels), int(width * 0.95 // column)))
    fig.legend(
        handles,
        labels,
        loc="outside upper center",
        ncols=fit,
        fontsize=fontsize,
        frameon=False,
        handlelength=1.5,
        columnspacing=1.2,
    )


def _hatch_missing(ax: Axes, shape: tuple[int, int]) -> None:
    """Grey hatching under an image, seen through its masked (missing) cells."""
    from matplotlib.patches import Rectangle

    rows, cols = shape
    ax.add_patch(
        Rectangle(
            (-0.5, -0.5),
            cols,
            rows,
            facecolor="#e4e4e4",
            edgecolor="#9a9a9a",
            hatch=MISSING_HATCH,
            linewidth=0,
            zorder=0,
        )
    )


def _finite(values: Any) -> bool:
    return any(v is not None and v == v for v in values)


def grouped_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[Estimate | None]],
    ylabel: str,
    *,
    ylim: tuple[float, float] | None = None,
    scale: float = 1.0,
) -> str:
    """One group of bars per category, one bar per series, each with its 95 % CI as an error
    bar; the value (× ``scale``) over each bar's error bar while the bars are wide enough for
    it. A missing estimate draws no bar; no estimate at all draws nothing (``""``)."""
    import numpy as np

    if not _finite(_v(e) for ests in series.values() for e in ests):
        return ""
    k = max(1, len(series))
    bars_total = len(categories) * k
    with svg_string(FIG_WIDTH, 3.8) as (fig, out):
        ax = fig.add_subplot()
        x = np.arange(len(categories))
        width = 0.8 / k
        for j, (name, ests) in enumerate(series.items()):
            vals = np.array([_v(e) for e in ests]) * scale
            lo = np.array([_v(e, "ci_low") for e in ests]) * scale
            hi = np.array([_v(e, "ci_high") for e in ests]) * scale
            err = np.nan_to_num(np.vstack([vals - lo, hi - vals]), nan=0.0).clip(min=0)
            pos = x - 0.4 + width * (j + 0.5)
            bars = ax.bar(
                pos, np.nan_to_num(vals), width, yerr=err, capsize=3, label=chart_label(name)
            )
            if bars_total > 12:  # narrower than its label: the table has the numbers
                continue
            for rect, v, top in zip(bars, vals, hi, strict=True):
                if v == v:  # over the error bar's cap, not across its whisker
                    ax.annotate(
                        f"{v:.2f}",
                        (rect.get_x() + rect.get_width() / 2, top if top == top else v),
                        xytext=(0, 2),
                        textcoords="offset points",
                        ha="center",
                        fontsize=FONT,
                    )
        ax.set_xticks(
            x,
            chart_labels(categories),
            rotation=20 if len(categories) > 3 else 0,
            ha="right" if len(categories) > 3 else "center",
            fontsize=FONT + 1,
        )
        ax.tick_params(axis="y", labelsize=FONT + 1)
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.grid(axis="y", alpha=0.3)
        if len(series) > 1:
            legend_outside(ax)
    return out.text


def stacked_bars(
    categories: Sequence[str], parts: Mapping[str, Sequence[float]], xlabel: str
) -> str:
    """One horizontal bar per category, made of ``parts`` stacked left to right (the part's
    name in the legend, above the plot); the total at the bar's end. Nothing (``""``) when
    every part is missing."""
    import numpy as np

    if not _finite(v for values in parts.values() for v in values):
        return ""
    rows_of_legend = math.ceil(len(parts) / 3)
    height = min(9.0, 1.6 + 0.45 * len(categories) + 0.22 * rows_of_legend)
    with svg_string(FIG_WIDTH, height) as (fig, out):
        ax = fig.add_subplot()
        y = np.arange(len(categories))
        left = np.zeros(len(categories))
        for k, (name, values) in enumerate(parts.items()):
            v = np.nan_to_num(np.array(values, dtype=float))
            ax.barh(y, v, left=left, label=name, color=_colour(k, len(parts)))
            left += v
        for yy, total in zip(y, left, strict=True):
            ax.annotate(
                f"{total:.2f}",
                (total, yy),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=FONT,
            )
        ax.set_yticks(y, chart_labels(categories), fontsize=FONT + 1)
        ax.tick_params(axis="x", labelsize=FONT + 1)
        ax.set_xlim(left=0, right=max(float(left.max()) * 1.15, 0.05))
        ax.invert_yaxis()
        # ended at the axes' right end: long category names narrow the axes, and a label
        # centred under them ran off the figure ("… sums to the mean WE")
        ax.set_xlabel(xlabel, loc="right")
        ax.grid(axis="x", alpha=0.3)
        legend_outside(ax)
    return out.text


def _colour(k: int, n: int) -> Any:
    """The ``k``-th of ``n`` colours, all different: matplotlib's ten, or twenty (dark shades
    first, then light) when there are more."""
    if n <= 10:
        return f"C{k}"
    from matplotlib import colormaps

    return colormaps["tab20"]((2 * k) % 20 + (2 * k) // 20 % 2)


def heatmap(
    rows: Sequence[str],
    cols: Sequence[str],
    values: Sequence[Sequence[float | None]],
    label: str,
    *,
    fmt: str = "{:.0%}",
    vmin: float = 0.0,
    vmax: float = 1.0,
) -> str:
    """A matrix coloured from ``vmin`` to ``vmax`` with each value written in its cell; a
    ``None`` cell is grey and hatched (:data:`MISSING_HATCH`). Nothing (``""``) when every
    cell is ``None``."""
    import numpy as np

    m = np.array([[np.nan if v is None else float(v) for v in r] for r in values], dtype=float)
    if not np.isfinite(m).any():
        return ""
    side = min(FIG_WIDTH - 1.0, 2.6 + 0.6 * max(len(rows), len(cols)))
    with svg_string(FIG_WIDTH, side) as (fig, out):
        ax = fig.add_subplot()
        _hatch_missing(ax, m.shape)
        image = ax.imshow(np.ma.masked_invalid(m), cmap="Blues", vmin=vmin, vmax=vmax)
        for i in range(len(rows)):
            for j in range(len(cols)):
                if m[i, j] == m[i, j]:
                    dark = m[i, j] > vmin + 0.6 * (vmax - vmin)
                    ax.text(
                        j,
                        i,
                        fmt.format(m[i, j]),
                        ha="center",
                        va="center",
                        fontsize=FONT + 1,
                        color="white" if dark else "black",
                    )
        ax.set_xticks(
            range(len(cols)), chart_labels(cols), rotation=30, ha="right", fontsize=FONT + 1
        )
        ax.set_yticks(range(len(rows)), chart_labels(rows), fontsize=FONT + 1)
        bar = fig.colorbar(image, ax=ax, shrink=0.8, label=label)
        bar.ax.tick_params(labelsize=FONT)
    return out.text


def ratio_bound(matrices: Sequence[Sequence[Sequence[float | None]]], top: float = 16.0) -> float:
    """One bound for every panel of ratios: the largest ``r`` or ``1/r`` among the positive
    ratios of all ``matrices``, between 2 and ``top`` (ratios beyond it take the end colour)."""
    far = 2.0
    for m in matrices:
        for row in m:
            for v in row:
                if v is not None and v == v and v > 0:
                    far = max(far, v, 1.0 / v)
    return min(far, top)


def draw_ratio_heatmap(
    fig: Figure,
    ax: Axes,
    rows: Sequence[str],
    cols: Sequence[str],
    values: Sequence[Sequence[float | None]],
    label: str,
    bound: float,
) -> None:
    """Ratios on a diverging log scale centred on 1 (blue below, white at 1, red above) from
    ``1/bound`` to ``bound``, the same for every panel given the same ``bound``; a ratio of 0
    takes the lowest colour; a missing ratio (no occurrence to compare) is grey and hatched,
    never white like a ratio of 1."""
    import numpy as np
    from matplotlib.colors import LogNorm

    m = np.array([[np.nan if v is None else float(v) for v in r] for r in values], dtype=float)
    shown = np.where(np.isfinite(m), np.clip(m, 1.0 / bound, bound), np.nan)
    _hatch_missing(ax, m.shape)
    image = ax.imshow(
        np.ma.masked_invalid(shown),
        cmap="RdBu_r",
        norm=LogNorm(vmin=1.0 / bound, vmax=bound),
    )
    ax.set_xticks(range(len(cols)), chart_labels(cols), rotation=90, fontsize=FONT)
    ax.set_yticks(range(len(rows)), chart_labels(rows), fontsize=FONT)
    ticks = [t for t in (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8, 16) if 1 / bound <= t <= bound]
    bar = fig.colorbar(image, ax=ax, shrink=0.8, label=label, ticks=ticks)
    bar.ax.set_yticklabels([f"{t:g}" if t >= 1 else f"1/{1 / t:g}" for t in ticks])
    bar.ax.tick_params(labelsize=FONT)
    bar.ax.minorticks_off()


def ratio_heatmap(
    rows: Sequence[str],
    cols: Sequence[str],
    values: Sequence[Sequence[float | None]],
    label: str,
    *,
    bound: float,
    xlabel: str = "",
    ylabel: str = "",
) -> str:
    """:func:`draw_ratio_heatmap` as one chart of the page's width (``""`` when no ratio is
    defined)."""
    if not _finite(v for row in values for v in row):
        return ""
    with svg_string(FIG_WIDTH, FIG_WIDTH * 0.92) as (fig, out):
        ax = fig.add_subplot()
        draw_ratio_heatmap(fig, ax, rows, cols, values, label, bound)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    return out.text


def scatter(
    points: Sequence[tuple[float, float, str]],
    xlabel: str,
    ylabel: str,
    *,
    annotate: bool = True,
    diagonal: bool = False,
) -> str:
    """``(x, y, label)`` points, labelled when ``annotate`` (few points). Without labels,
    points at the same place are drawn once, their area growing with how many there are, and
    beyond :data:`RASTER_POINTS` places the markers are embedded as an image (the axes and
    text stay vector), so that the SVG stays small and quick to draw for 10,000 dialogues;
    ``diagonal`` draws y = x over [0, 1]."""
    from collections import Counter

    if not points:
        return ""
    with svg_string(FIG_WIDTH, 4.0) as (fig, out):
        ax = fig.add_subplot()
        if annotate:
            ax.scatter([p[0] for p in points], [p[1] for p in points], s=28)
            for x, y, name in points:
                ax.annotate(
                    chart_label(name),
                    (x, y),
                    xytext=(4, 3),
                    textcoords="offset points",
                    fontsize=FONT,
                )
        else:
            counts = Counter((round(x, 4), round(y, 4)) for x, y, _ in points)
            xs, ys = [p[0] for p in counts], [p[1] for p in counts]
            sizes = [10 + 6 * min(c, 50) for c in counts.values()]
            ax.scatter(xs, ys, s=sizes, alpha=0.4, rasterized=len(counts) > RASTER_POINTS)
        if diagonal:
            ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    return out.text


RASTER_POINTS = 2000
"""Distinct places beyond which a scatter's markers are embedded as an image."""
