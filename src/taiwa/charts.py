"""Charts as self-contained SVG, drawn with matplotlib (imported on use; the Agg canvas, no
display). Text stays text in the SVG (``svg.fonttype: none``), so the viewer's fonts draw
Japanese labels; files are written atomically and carry no date (same data, same bytes)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from taiwa.io import atomic_open

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@contextmanager
def svg_figure(
    path: str | Path,
    width: float,
    height: float,
    margins: tuple[float, float, float, float] | None = None,
) -> Iterator[Figure]:
    """A figure that is saved to ``path`` as SVG when the block ends.

    ``margins`` (left, bottom, right, top as figure fractions) place the axes directly: one
    draw instead of two, half the time of the automatic layout used without them (which fits
    long tick labels, e.g. a heatmap's act names)."""
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "taiwa"}), warnings.catch_warnings():
        # matplotlib's own fonts only estimate the width of Japanese text for the layout, and
        # warn for each missing glyph
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        yield fig
        if margins is None:
            fig.tight_layout()
        else:
            left, bottom, right, top = margins
            fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top)
        with atomic_open(path, "wb") as fh:
            fig.savefig(fh, format="svg", metadata={"Date": None})
