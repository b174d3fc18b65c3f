"""Chart types the methods' report sections share, drawn with matplotlib
(:func:`taiwa.charts.svg_string`) and returned as SVG text: bars with their 95 % CIs, stacked
bars, a heatmap, a scatter. They know no method: labels and values come from the caller."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from taiwa.charts import svg_string

Estimate = Mapping[str, Any]
"""``{"value", "ci_low", "ci_high", "n"}`` as in summary.json (values may be ``None``)."""


def _v(e: Estimate | None, key: str = "value") -> float:
    v = None if e is None else e.get(key)
    return float("nan") if v is None else float(v)


def _size(n: int, per: float = 0.55, base: float = 3.0, top: float = 11.0) -> float:
    return min(top, max(5.0, base + per * n))


def grouped_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[Estimate | None]],
    ylabel: str,
    *,
    ylim: tuple[float, float] | None = None,
    scale: float = 1.0,
) -> str:
    """One group of bars per category, one bar per series, each with its 95 % CI as an error
    bar; the value (× ``scale``) over each bar. A missing estimate draws no bar."""
    import numpy as np

    k = max(1, len(series))
    with svg_string(_size(len(categories) * k, 0.45), 3.6) as (fig, out):
        ax = fig.add_subplot()
        x = np.arange(len(categories))
        width = 0.8 / k
        for j, (name, ests) in enumerate(series.items()):
            vals = np.array([_v(e) for e in ests]) * scale
            lo = np.array([_v(e, "ci_low") for e in ests]) * scale
            hi = np.array([_v(e, "ci_high") for e in ests]) * scale
            err = np.nan_to_num(np.vstack([vals - lo, hi - vals]), nan=0.0).clip(min=0)
            pos = x - 0.4 + width * (j + 0.5)
            bars = ax.bar(pos, np.nan_to_num(vals), width, yerr=err, capsize=3, label=name)
            for rect, v in zip(bars, vals, strict=True):
                if v == v:
                    ax.annotate(
                        f"{v:.2f}",
                        (rect.get_x() + rect.get_width() / 2, v),
                        xytext=(0, 2),
                        textcoords="offset points",
                        ha="center",
                        fontsize=7,
                    )
        ax.set_xticks(
            x,
            list(categories),
            rotation=20 if len(categories) > 3 else 0,
            ha="right" if len(categories) > 3 else "center",
            fontsize=8,
        )
        ax.set_ylabel(ylabel)
        if ylim:
            ax.set_ylim(*ylim)
        ax.grid(axis="y", alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize=7)
    return out.text


def stacked_bars(
    categories: Sequence[str], parts: Mapping[str, Sequence[float]], xlabel: str
) -> str:
    """One horizontal bar per category, made of ``parts`` stacked left to right (the part's
    name in the legend); the total at the bar's end."""
    import numpy as np

    height = min(9.0, 1.4 + 0.45 * len(categories))
    with svg_string(6.4, height) as (fig, out):
        ax = fig.add_subplot()
        y = np.arange(len(categories))
        left = np.zeros(len(categories))
        for k, (name, values) in enumerate(parts.items()):
            v = np.nan_to_num(np.array(values, dtype=float))
            ax.barh(y, v, left=left, label=name, color=f"C{k % 10}")
            left += v
        for yy, total in zip(y, left, strict=True):
            ax.annotate(
                f"{total:.2f}",
                (total, yy),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
            )
        ax.set_yticks(y, list(categories), fontsize=8)
        ax.set_xlim(left=0, right=max(float(left.max()) * 1.12, 0.05))
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, ncols=min(4, len(parts)), loc="lower right")
    return out.text


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
    ``None`` cell stays blank."""
    import numpy as np

    m = np.array([[np.nan if v is None else float(v) for v in r] for r in values], dtype=float)
    side = min(9.0, 2.8 + 0.7 * max(len(rows), len(cols)))
    with svg_string(side + 1.2, side) as (fig, out):
        ax = fig.add_subplot()
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
                        fontsize=8,
                        color="white" if dark else "black",
                    )
        ax.set_xticks(range(len(cols)), list(cols), rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(rows)), list(rows), fontsize=8)
        fig.colorbar(image, ax=ax, shrink=0.8, label=label)
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

    with svg_string(5.2, 4.0) as (fig, out):
        ax = fig.add_subplot()
        if annotate:
            ax.scatter([p[0] for p in points], [p[1] for p in points], s=28)
            for x, y, name in points:
                ax.annotate(name, (x, y), xytext=(4, 3), textcoords="offset points", fontsize=8)
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
