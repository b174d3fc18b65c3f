"""The methods' terminal tables (rich) as HTML and Markdown, cell for cell: the report shows
exactly what ``taiwa run`` prints (the cells are formatted once, in the method's ``tables.py``
with :mod:`taiwa.display.tables`), with rich's colours kept as CSS classes."""

from __future__ import annotations

import html
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from taiwa.display.section import Html

_COUNT = re.compile(r"\s*\(n=[\d,]+\)")
"""An item count in a column header, ``(n=99)``."""

STYLES = ("red", "green", "yellow", "dim", "bold")
"""rich styles kept as CSS classes (``st-red`` ...); others are dropped."""


def as_text(renderable: Any) -> Any:
    """A rich ``Text`` for a cell, a title or a line: markup strings are parsed (the tables
    escape input text with :func:`taiwa.display.tables.clip`), other objects shown as ``str``."""
    from rich.errors import MarkupError
    from rich.text import Text

    if isinstance(renderable, Text):
        return renderable
    if renderable is None:
        return Text("")
    if isinstance(renderable, str):
        try:
            return Text.from_markup(renderable)
        except MarkupError:
            return Text(renderable)
    return Text(str(renderable))


def _classes(style: Any) -> list[str]:
    words = str(style).split()
    return [f"st-{w}" for w in words if w in STYLES]


def text_html(text: Any) -> Html:
    """A rich ``Text`` as escaped HTML: styled spans become ``<span class="st-…">``, line
    breaks ``<br>``."""
    plain: str = text.plain
    cuts = {0, len(plain)}
    for span in text.spans:
        cuts.update((span.start, span.end))
    points = sorted(c for c in cuts if 0 <= c <= len(plain))
    out: list[str] = []
    for a, b in itertools.pairwise(points):
        piece = html.escape(plain[a:b]).replace("\n", "<br>")
        classes = [c for s in text.spans if s.start <= a and s.end >= b for c in _classes(s.style)]
        out.append(f'<span class="{" ".join(classes)}">{piece}</span>' if classes else piece)
    body = "".join(out)
    whole = _classes(text.style) if text.style else []
    return Html(f'<span class="{" ".join(whole)}">{body}</span>' if whole else body)


@dataclass
class TableData:
    """A table as text: title, caption, header and rows of rich ``Text`` cells."""

    title: str
    caption: str
    headers: list[Any]
    rows: list[list[Any]]
    #: per column ``"left"``, ``"center"`` or ``"right"`` as the terminal table has it (text
    #: columns left, numbers right); empty: every column but the first is right-aligned
    align: list[str] = field(default_factory=list)

    @property
    def header_key(self) -> tuple[str, ...]:
        """The headers without their item counts: tables of runs over different items
        (``全体 (n=99)``, ``全体 (n=20)``) have the same columns and join (:func:`join_tables`)."""
        return tuple(_COUNT.sub("", h.plain).strip() for h in self.headers)


def table_data(table: Any) -> TableData:
    """A rich ``Table``'s title, caption, headers and cells."""
    columns = table.columns
    cells = [list(c.cells) for c in columns]
    n_rows = max((len(c) for c in cells), default=0)
    rows = [
        [as_text(cells[j][i]) if i < len(cells[j]) else as_text("") for j in range(len(columns))]
        for i in range(n_rows)
    ]
    return TableData(
        title=as_text(table.title).plain,
        caption=as_text(table.caption).plain,
        headers=[as_text(c.header) for c in columns],
        rows=rows,
        align=[str(c.justify) for c in columns],
    )


def _top_level(text: str) -> dict[str, list[int]]:
    """Where ``text`` may be cut, by kind: before each ``", "`` and ``": "`` outside
    parentheses, and before each ``" ("`` that opens one at the top level."""
    cuts: dict[str, list[int]] = {",": [], ":": [], "(": []}
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0 and i > 0 and text[i - 1] == " ":
                cuts["("].append(i - 1)
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and ch in ",:" and text[i + 1 : i + 2] == " ":
            cuts[ch].append(i)
    return cuts


def _split_titles(titles: Sequence[str]) -> tuple[str, list[str]]:
    """The part the titles share and what is left of each, cut where no parenthesis is open:
    at their last common ``", "``, else ``": "``, else before a parenthesis.
    ``"Table 1, input mode: text"`` and ``"Table 1, input mode: audio"`` give ``"Table 1"`` and
    ``["input mode: text", "input mode: audio"]``; ``"cohesion (vectors(0.7), d=3)"`` and
    ``"cohesion (vectors(0.7), d=2)"`` give ``"cohesion"`` and the two parentheses whole."""
    if len(set(titles)) == 1:
        return titles[0], []
    shortest = min(len(t) for t in titles)
    same = next((i for i in range(shortest) if len({t[i] for t in titles}) > 1), shortest)
    cuts = _top_level(titles[0])
    for kind, width in ((",", 2), (":", 2), ("(", 1)):
        found = [c for c in cuts[kind] if c < same]
        if found:
            return titles[0][: found[-1]], [t[found[-1] + width :] for t in titles]
    return "", list(titles)


def join_tables(labels: Sequence[str], tables: Sequence[TableData]) -> TableData:
    """Tables with the same columns as one, each row led by its table's label (``run``);
    when the titles differ (e.g. another input mode), what differs goes in a ``setting``
    column instead of the first table's title standing for all; a header whose item count
    differs from table to table is shown without it."""
    title, tails = _split_titles([t.title for t in tables])
    lead = [as_text("run"), *([as_text("setting")] if tails else [])]
    rows = [
        [as_text(label), *([as_text(tails[k])] if tails else []), *row]
        for k, (label, t) in enumerate(zip(labels, tables, strict=True))
        for row in t.rows
    ]
    head = tables[0]
    align = ["left"] * len(lead) + head.align
    headers = [
        h if len({t.headers[j].plain for t in tables}) == 1 else as_text(head.header_key[j])
        for j, h in enumerate(head.headers)
    ]  # a count that differs from run to run is left out (each run's own table gives it)
    return TableData(title, head.caption, [*lead, *headers], rows, align)


_ALIGN = {"left": ' class="l"', "center": ' class="c"'}


def table_html(td: TableData, *, sortable: bool = False) -> Html:
    """``td`` as an HTML table (its title as the caption, its caption below it)."""
    cls_of = [_ALIGN.get(a, "") for a in td.align] + [""] * len(td.headers)
    head = "".join(f"<th{cls_of[j]}>{text_html(h)}</th>" for j, h in enumerate(td.headers))
    body = "".join(
        "<tr>" + "".join(f"<td{cls_of[j]}>{text_html(c)}</td>" for j, c in enumerate(row)) + "</tr>"
        for row in td.rows
    )
    cls = ' class="sortable"' if sortable else ""
    title = f"<caption>{html.escape(td.title)}</caption>" if td.title else ""
    lines = "<br>".join(html.escape(x) for x in td.caption.splitlines())
    note = f'<p class="caption">{lines}</p>' if td.caption else ""
    return Html(
        f'<div class="table"><table{cls}>{title}<thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>{note}</div>"
    )


def table_markdown(td: TableData) -> str:
    """``td`` as a GitHub Markdown table (line breaks in cells become spaces, pipes escaped)."""

    def cell(t: Any) -> str:
        return " ".join(t.plain.split()).replace("|", "\\|")

    lines = [f"**{cell(as_text(td.title))}**", ""] if td.title else []
    lines.append("| " + " | ".join(cell(h) for h in td.headers) + " |")
    lines.append("|" + "---|" * len(td.headers))
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in td.rows]
    if td.caption:
        for line in td.caption.splitlines():  # one paragraph per caption line
            lines += ["", cell(as_text(line))]
    return "\n".join(lines)


def renderable_html(item: Any) -> Html:
    """A terminal table as an HTML table; a line of text (``str`` markup or ``Text``) as a
    paragraph; an :class:`Html` block as is."""
    from rich.table import Table

    if isinstance(item, Html):
        return item
    if isinstance(item, Table):
        return table_html(table_data(item))
    return Html(f'<p class="line">{text_html(as_text(item))}</p>')
