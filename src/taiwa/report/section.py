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
    """One chart: its title, the SVG text (``taiwa.charts.svg_string`` or an SVG file of the
    run directory) and a caption saying what is drawn and over which n."""

    title: str
    svg: str
    caption: str = ""


@dataclass
class Section:
    """A method's part of one run's report: ``figures``, then ``examples`` (rich tables, which
    the page converts like the terminal tables, or :class:`Html` blocks)."""

    figures: list[Figure] = field(default_factory=list)
    examples: list[Any] = field(default_factory=list)
