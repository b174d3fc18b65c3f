"""Charts as self-contained SVG, drawn with matplotlib (imported on use; the Agg canvas, no
display). Text stays text in the SVG (``svg.fonttype: none``), so the viewer's fonts draw
Japanese labels; files are written atomically and carry no date (same data, same bytes)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.io import atomic_open

if TYPE_CHECKING:
    from matplotlib.figure import Figure


JAPANESE_FONTS = ("IPAGothic", "IPAexGothic", "Noto Sans CJK JP", "Hiragino Sans", "Yu Gothic")
"""Fonts with Japanese glyphs that matplotlib falls back to when one is installed, so that the
layout measures Japanese labels as the page will show them (legends, tick labels)."""


def _families() -> list[str]:
    from matplotlib import font_manager

    have = {f.name for f in font_manager.fontManager.ttflist}
    return ["DejaVu Sans", *(name for name in JAPANESE_FONTS if name in have)]


@contextmanager
def _figure(width: float, height: float) -> Iterator[Figure]:
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # grid lines behind the bars (matplotlib's default draws them across every bar)
    rc: dict[str, Any] = {"svg.fonttype": "none", "svg.hashsalt": "taiwa", "axes.axisbelow": True}
    rc["font.family"] = _families()
    with rc_context(rc), warnings.catch_warnings():  # type: ignore[arg-type]
        # matplotlib's own fonts only estimate the width of Japanese text for the layout, and
        # warn for each missing glyph
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        yield fig


def _layout(fig: Figure, margins: tuple[float, float, float, float] | None) -> None:
    """Place the axes: at ``margins`` (left, bottom, right, top as figure fractions), one draw
    instead of two and half the time of the automatic layout used without them (which fits
    long tick labels, e.g. a heatmap's act names)."""
    if fig.get_layout_engine() is not None:
        return  # the figure chose its own (a legend outside the axes: constrained)
    if margins is None:
        fig.tight_layout()
    else:
        left, bottom, right, top = margins
        fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top)


@contextmanager
def svg_figure(
    path: str | Path,
    width: float,
    height: float,
    margins: tuple[float, float, float, float] | None = None,
) -> Iterator[Figure]:
    """A figure that is saved to ``path`` as SVG when the block ends (laid out by
    :func:`_layout`)."""
    with _figure(width, height) as fig:
        yield fig
        _layout(fig, margins)
        with atomic_open(path, "wb") as fh:
            fig.savefig(fh, format="svg", metadata={"Date": None})


class SvgText:
    """The SVG text of a figure drawn in :func:`svg_string`, set when its block ends."""

    text: str = ""


@contextmanager
def svg_string(width: float, height: float) -> Iterator[tuple[Figure, SvgText]]:
    """A figure and a holder that receives the figure's SVG text when the block ends (for
    pages that embed their charts, such as ``taiwa report``)."""
    import io

    out = SvgText()
    with _figure(width, height) as fig:
        yield fig, out
        _layout(fig, None)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
        out.text = buf.getvalue()
