"""The item view's blocks (:mod:`taiwa.display.evidence`) in the terminal (``taiwa show``, issue
43): texts with their marked words styled, dialogues and tables as ``rich`` tables (laid out
for the terminal's width by :mod:`taiwa.display.fit`, so that nothing is cut or broken
mid-word at 80 columns), an alignment one edit per row with the recorded breakdown under it.
The marks look alike on the page and here (:data:`STYLES`). Knows no method."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from taiwa.display.evidence import (
    AlignmentBlock,
    Block,
    Span,
    TableBlock,
    TextBlock,
    TurnsBlock,
    number,
)
from taiwa.display.ja_wrap import Wrapped, has_wide

STYLES = {
    "hit": "black on yellow",
    "hit2": "black on cyan",
    "good": "green",
    "bad": "red",
    "gold": "bold green",
    "chosen": "yellow",
    "flip": "bold red",
    "match": "green",
    "substitution": "yellow",
    "deletion": "red",
    "insertion": "blue",
    "muted": "dim",
}
"""How each mark (:data:`taiwa.display.evidence.MARKS`) is styled in the terminal."""

SIGNS = {"gold": "★", "chosen": "▸", "flip": "⇄", "good": "✓", "bad": "✗"}
"""A sign beside a marked table row, so that the mark reads without colour too."""


def marked_text(text: str, marks: Sequence[Span] = ()) -> Text:
    """``text`` with its marked spans styled (and in brackets, readable without colour)."""
    out = Text()
    at = 0
    for start, end, mark in sorted(marks):
        if start < at:
            continue
        out.append(text[at:start])
        out.append(f"[{text[start:end]}]", style=STYLES.get(mark, "bold"))
        at = end
    out.append(text[at:])
    return out


def _title(text: str) -> Text:
    return Text(text, style="bold dim")


def _table(title: str, head: Sequence[str]) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold dim", show_lines=False)
    for k, h in enumerate(head):
        table.add_column(h, overflow="fold", no_wrap=k == 0)
    return table


def block_renderables(block: Block) -> list[RenderableType]:
    """What ``block`` prints as: lines and tables (fitted by the console's render hook)."""
    if isinstance(block, TextBlock):
        if not block.text:
            return [_title(block.title)]
        return [_title(block.title), Wrapped(marked_text(block.text, block.marks))]
    if isinstance(block, TurnsBlock):
        notes = any(t.note for t in block.turns)
        table = _table(block.title, ["who", "utterance", "note"] if notes else ["who", "utterance"])
        for t in block.turns:
            style = STYLES.get(t.mark, "") if t.mark else ""
            cells: list[RenderableType] = [t.speaker, Wrapped(marked_text(t.text, t.marks))]
            cells += [t.note] if notes else []
            table.add_row(*cells, style=style)
        return [table]
    if isinstance(block, TableBlock):
        marks = list(block.row_marks) or [""] * len(block.rows)
        signed = any(m in SIGNS for m in marks)
        table = _table(block.title, ["", *block.head] if signed else list(block.head))
        for row, mark in zip(block.rows, marks, strict=True):
            # the row's name (its first cell) stays whole; Japanese cells wrap as Japanese
            cells = [row[0], *(Wrapped(c) if has_wide(c) else c for c in row[1:])] if row else []
            shown: list[RenderableType] = [SIGNS.get(mark, ""), *cells] if signed else cells
            table.add_row(*shown, style=STYLES.get(mark, ""))
        return [table, *_caption(block.caption)]
    return _alignment(block)


def _alignment(block: AlignmentBlock) -> list[RenderableType]:
    table = _table(block.title, ["#", block.top, block.bottom, "edit", "cost"])
    table.columns[4].justify = "right"
    for k, c in enumerate(block.columns, start=1):
        table.add_row(
            str(k), c.top or "—", c.bottom or "—", c.op, number(c.cost), style=STYLES.get(c.op)
        )
    totals = " · ".join(f"{k} {number(v)}" for k, v in block.totals)
    return [table, *_caption(f"recorded breakdown: {totals}" if totals else "")]


def _caption(text: str) -> list[RenderableType]:
    """A table's caption on lines of its own below it, at the console's width (a caption of
    the table wraps at the table's)."""
    return [Wrapped(text, style="dim")] if text else []
