"""What a method contributes to the report (``Method.report``): figures and examples beside
its terminal tables, which the page renders itself from ``Method.tables`` so that the report
and the terminal show the same cells."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Html(str):
    """Markup that is safe to insert as is: built by :mod:`taiwa.report.html` from escaped
    text, or a chart drawn by matplotlib."""


@dataclass(frozen=True)
class Figure:
    """One chart: its title, the SVG text (``taiwa.display.charts.svg_string`` or an SVG file of the
    run directory) and a caption saying what is drawn and over which n. A chart with nothing
    to draw (no SVG, or :meth:`nothing`) is shown as one line saying why, not as empty axes."""

    title: str
    svg: str
    caption: str = ""
    why_not: str = ""

    @classmethod
    def nothing(cls, title: str, why: str) -> Figure:
        """No chart: ``why`` there is nothing to draw (one line on the page)."""
        return cls(title, "", why_not=why)

    @property
    def drawn(self) -> bool:
        return bool(self.svg) and not self.why_not

    @property
    def reason(self) -> str:
        """Why the chart is not drawn (every value missing, when no reason was given)."""
        return self.why_not or "not drawn: no value to plot (every estimate is missing)"


@dataclass
class Section:
    """A method's part of one run's report: ``figures``, then ``examples`` (rich tables, which
    the page converts like the terminal tables, or :class:`Html` blocks)."""

    figures: list[Figure] = field(default_factory=list)
    examples: list[Any] = field(default_factory=list)
