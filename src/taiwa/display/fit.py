"""Tables that fit the terminal, at 80 columns and in pipes as on a wide screen.

Every console of the CLI (:func:`taiwa.display.console.make_console`) carries a render hook that
lays
out each ``rich`` table it prints before rich does (:func:`fit_table`): no name is broken
mid-word and no column is lost or cut with an ellipsis. Names (no-wrap columns) and numbers
(right-aligned columns) keep their whole lines, text columns wrap between words (Japanese text
between any two characters). The first layout that fits is printed: the table as it is; compact
(no vertical rules or edge); its text wrapped, boxed then compact; else stacked: its first
column (the row names) repeated beside as many of the other columns as fit, part after part,
the title above the first part and the caption below the last. A :class:`HeadedTable` (its
first column names groups of rows, e.g. the pair of systems of paired comparisons) that does
not fit as it is prints each name on a line of its own above its rows instead (headed). Only
the terminal's layout changes: the report renders the method's tables itself, cell for cell.
A rule's title (a section of ``taiwa demo``) too long for one line is printed whole below a
bare rule, never cut with an ellipsis.
"""

from __future__ import annotations

import copy
import dataclasses
import unicodedata
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleRenderable, RenderableType, RenderHook
from rich.measure import Measurement
from rich.padding import Padding
from rich.rule import Rule
from rich.table import Column, Table
from rich.text import Text

MIN_TEXT = 8
"""The narrowest a text column is made when a table cannot fit otherwise (a last resort)."""

INDENT = 2
"""How far the rows of a headed layout (:class:`HeadedTable`) stand in from their name."""


class HeadedTable(Table):
    """A table whose first column names a group of rows (consecutive rows with the same first
    cell): when the table does not fit as it is, :func:`fit_table` prints each name once, on a
    line of its own, with its rows below it, rather than wrapping the names in a column."""


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _unbreakable(token: str) -> int:
    """The widest piece of ``token`` that cannot be wrapped: a run of narrow characters (a
    name, a number); Japanese text may break between any two wide characters."""
    widest = run = 0
    for ch in token:
        if _wide(ch):
            widest, run = max(widest, run, 2), 0
        else:
            run += cell_len(ch)
    return max(widest, run)


def _as_text(console: Console, cell: Any) -> Text | None:
    if isinstance(cell, Text):
        return cell
    if isinstance(cell, str):
        return console.render_str(cell)
    return None


def _extent(
    console: Console, cells: Sequence[Any], whole: bool, names: bool = False
) -> tuple[int, int]:
    """The narrowest and the widest ``cells`` can be laid out: ``whole`` keeps every line
    whole, otherwise lines wrap between words, and inside Japanese text unless the cells are
    ``names`` (a table's first column: the row names)."""
    piece = cell_len if names else _unbreakable
    lo = hi = 0
    for cell in cells:
        text = _as_text(console, cell)
        if text is None:
            m = Measurement.get(console, console.options, cell)
            lo, hi = max(lo, m.minimum), max(hi, m.maximum)
            continue
        for line in text.plain.split("\n"):
            width = cell_len(line)
            hi = max(hi, width)
            if whole:
                lo = max(lo, width)
            else:
                lo = max(lo, max((piece(w) for w in line.split()), default=0))
    return lo, hi


def _header_extent(console: Console, column: Column) -> tuple[int, int]:
    """A header wraps only between words: each word of it stays whole."""
    text = _as_text(console, column.header)
    if text is None:
        return _extent(console, [column.header], whole=False)
    lines = text.plain.split("\n")
    lo = max((cell_len(w) for line in lines for w in line.split()), default=0)
    return lo, max((cell_len(line) for line in lines), default=0)


def _column_extent(console: Console, table: Table, column: Column) -> tuple[int, int]:
    """How narrow and how wide ``column`` can be: names (no-wrap columns) and numbers
    (right-aligned) keep whole lines; the first column's words stay whole; other text wraps
    between words and inside Japanese text."""
    if column.width is not None:
        return column.width, column.width
    whole = bool(column.no_wrap) or column.justify == "right"
    names = column is table.columns[0]
    lo, hi = _extent(console, list(column.cells), whole, names)
    h_lo, h_hi = _header_extent(console, column)
    lo, hi = max(lo, h_lo, column.min_width or 0), max(hi, h_hi, column.min_width or 0)
    if table.show_footer and column.footer:
        f_lo, f_hi = _extent(console, [column.footer], whole)
        lo, hi = max(lo, f_lo), max(hi, f_hi)
    return lo, max(lo, hi)


def _overhead(table: Table, count: int) -> int:
    """Columns that padding, rules and edges add to the cells of ``table`` cut to ``count``
    columns (rich's own arithmetic, so that the parts come out exactly as wide as planned)."""
    probe = copy.copy(table)
    probe.columns = [Column() for _ in range(count)]
    return probe._extra_width + sum(probe._get_padding_width(k) for k in range(count))


def _widths(lo: Sequence[int], hi: Sequence[int], budget: int) -> list[int]:
    """Each column at its widest when all fit; else at its narrowest plus a share of the room
    left in proportion to how much wider it could be; else squeezed (a last resort)."""
    if sum(hi) <= budget:
        return list(hi)
    if sum(lo) <= budget:
        room = budget - sum(lo)
        want = [h - low for low, h in zip(lo, hi, strict=True)]
        total = sum(want)
        out = [low + room * w // total for low, w in zip(lo, want, strict=True)]
        for k in sorted(range(len(out)), key=lambda k: want[k] - (out[k] - lo[k]), reverse=True):
            if sum(out) >= budget:
                break
            if out[k] < hi[k]:
                out[k] += 1
        return out
    # nothing else fits: the widest columns give way down to MIN_TEXT
    out = list(lo)
    while sum(out) > budget:
        k = max(range(len(out)), key=lambda k: out[k])
        if out[k] <= MIN_TEXT:
            break
        out[k] -= 1
    return out


def _compact(table: Table) -> Table:
    """``table`` without vertical rules, edge or doubled padding
    (``taiwa.display.tables.compact_table``'s
    look): about two columns fewer per column."""
    new = copy.copy(table)
    new.box = box.SIMPLE_HEAD
    new.show_edge = False
    new.pad_edge = False
    new.collapse_padding = True
    return new


def _part(table: Table, keep: Sequence[int], widths: Sequence[int], full: Sequence[int]) -> Table:
    """The columns ``keep`` of ``table`` at ``widths``: a column narrower than its widest line
    ``full`` wraps (``fold`` only splits what no space or Japanese text lets wrap)."""
    new = copy.copy(table)
    columns = []
    for k, (index, width) in enumerate(zip(keep, widths, strict=True)):
        col = table.columns[index]
        squeezed = width < full[index]
        columns.append(
            dataclasses.replace(
                col,
                width=width,
                min_width=None,
                max_width=None,
                ratio=None,
                overflow="fold" if squeezed or not col.no_wrap else col.overflow,
                no_wrap=bool(col.no_wrap) and not squeezed,
                _index=k,
            )
        )
    new.columns = columns
    new.expand = False
    new.width = None
    new.min_width = None
    return new


def fit_table(table: Table, console: Console, width: int) -> list[RenderableType]:
    """``table`` laid out for ``width`` columns, the first layout that fits: as it is; without
    vertical rules (compact); with text wrapped between words, boxed then compact; else
    stacked (compact), each part repeating the first column (the row names), the title above
    the first part and the caption below the last as lines of their own."""
    n = len(table.columns)
    if not n:
        return [table]
    extents = [_column_extent(console, table, c) for c in table.columns]
    lo = [e[0] for e in extents]
    hi = [e[1] for e in extents]
    everything = range(n)
    for widest in (hi, lo):
        for layout in (table, _compact(table)):
            if sum(widest) + _overhead(layout, n) <= width:
                widths = _widths(lo, hi, width - _overhead(layout, n))
                return [_part(layout, everything, widths, hi)]
        if isinstance(table, HeadedTable) and n > 1:
            headed = _headed(table, console, width, lo, hi)
            if headed is not None:
                return headed
    layout = _compact(table)
    if n < 3:  # nothing to stack: squeeze
        return [_part(layout, everything, _widths(lo, hi, width - _overhead(layout, n)), hi)]
    groups: list[list[int]] = [[]]
    for j in range(1, n):
        trial = [0, *groups[-1], j]
        if groups[-1] and sum(lo[k] for k in trial) + _overhead(layout, len(trial)) > width:
            groups.append([])
        groups[-1].append(j)
    out: list[RenderableType] = []
    if table.title:
        out.append(_line(table.title, "table.title"))
    for g, group in enumerate(groups):
        keep = [0, *group]
        budget = width - _overhead(layout, len(keep))
        widths = _widths([lo[k] for k in keep], [hi[k] for k in keep], budget)
        part = _part(layout, keep, widths, hi)
        if g:  # on a line of its own: a narrow part would wrap it
            out.append(_line(f"(continued, {g + 1} of {len(groups)})", "table.title"))
        part.title = None
        part.caption = None
        out.append(part)
    if table.caption:
        out.append(_line(table.caption, "table.caption"))
    return out


def _headed(
    table: HeadedTable, console: Console, width: int, lo: Sequence[int], hi: Sequence[int]
) -> list[RenderableType] | None:
    """``table`` with each group's name (its first cell) on a line of its own and the group's
    rows below it, indented by :data:`INDENT`, every part at the same column widths (so that
    the columns line up from part to part); None when the other columns do not fit either."""
    layout = _compact(table)
    n = len(table.columns)
    keep = list(range(1, n))
    budget = width - INDENT - _overhead(layout, n - 1)
    if sum(lo[1:]) > budget:
        return None
    widths = _widths(lo[1:], hi[1:], budget)
    cells = list(table.columns[0].cells)
    names = [_as_text(console, c) for c in cells]
    plain = [t.plain if t is not None else str(c) for t, c in zip(names, cells, strict=True)]
    out: list[RenderableType] = []
    if table.title:
        out.append(_line(table.title, "table.title"))
    head = _part(layout, keep, widths, hi)
    head.title = head.caption = None
    _keep_rows(head, 0, 0)
    out.append(Padding(head, (0, 0, 0, INDENT), expand=False))
    start = 0
    for k in range(1, len(plain) + 1):
        if k < len(plain) and plain[k] in ("", plain[start]):
            continue
        heading = names[start]
        out.append(heading if heading is not None else cells[start])
        part = _part(layout, keep, widths, hi)
        part.title = part.caption = None
        part.show_header = False
        _keep_rows(part, start, k)
        out.append(Padding(part, (0, 0, 0, INDENT), expand=False))
        start = k
    if table.caption:
        out.append(_line(table.caption, "table.caption"))
    return out


def _keep_rows(table: Table, start: int, stop: int) -> None:
    """Keep only the rows ``start`` to ``stop`` (excluded) of a part made by :func:`_part`."""
    table.rows = table.rows[start:stop]
    for col in table.columns:
        col._cells = list(col._cells[start:stop])


def _line(text: Any, style: str) -> RenderableType:
    """A table's title or caption printed on its own, wrapped at the console's width."""
    return Text.from_markup(text, style=style) if isinstance(text, str) else text


class FitTables(RenderHook):
    """The render hook of :func:`fitting_console`: every table printed is laid out by
    :func:`fit_table` for the console's width."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        out: list[ConsoleRenderable] = []
        for r in renderables:
            if isinstance(r, Table):
                out += fit_table(r, self.console, self.console.width)  # type: ignore[arg-type]
            elif isinstance(r, Rule):
                out += fit_rule(r, self.console, self.console.width)
            else:
                out.append(r)
        return out


def fit_rule(rule: Rule, console: Console, width: int) -> list[ConsoleRenderable]:
    """``rule`` as it is when its title fits on the line; else a bare rule with the whole title
    below it, wrapped between words (rich would cut the title with an ellipsis)."""
    if not rule.title:
        return [rule]
    title = (
        console.render_str(rule.title, style="rule.text")
        if isinstance(rule.title, str)
        else rule.title
    )
    if cell_len(title.plain) + 4 <= width:
        return [rule]
    return [Rule(characters=rule.characters, style=rule.style, end=rule.end), title]


def fitting_console(**kwargs: Any) -> Console:
    """A console (no emoji codes: ``:D`` in a reply stays as typed) whose tables fit its width;
    the CLI's are made on first use (:func:`taiwa.display.console.make_console`)."""
    console = Console(emoji=False, **kwargs)
    console.push_render_hook(FitTables(console))
    return console
