"""What the item view shows of one item (issue 43), as data: a few kinds of block that the
report's item view (:mod:`taiwa.report.item_view`, drawn in the browser) and ``taiwa show``
(:mod:`taiwa.display.item_console`) both render, so that a method declares its per-item
evidence once (``Method.evidence``, :mod:`taiwa.harness.evidence`) and never renders it.

- :class:`TextBlock`: a text with marked spans (cohesive words);
- :class:`TurnsBlock`: a dialogue, one turn per line, with a note per turn (its role, its act);
- :class:`TableBlock`: a table whose rows carry a mark (the gold option, the chosen one, a
  judge's flip);
- :class:`AlignmentBlock`: two sequences aligned position by position, each position with its
  edit and cost, and the breakdown of the total as recorded (an edit distance's alignment).

Marks are words of a small vocabulary, styled alike on the page and in the terminal
(:data:`MARKS`). Every block turns into JSON (:func:`block_json`) for the report's embedded data.
Knows no method."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MARKS = {
    "hit": "a marked word (e.g. one side of a cohesive pair)",
    "hit2": "a second kind of marked word (the other side)",
    "good": "right, or what gold says",
    "bad": "wrong, or failed",
    "gold": "the gold answer",
    "chosen": "the answer a system gave",
    "flip": "a verdict that changed when the order was swapped",
    "match": "an aligned pair that is the same",
    "substitution": "an aligned pair that differs",
    "deletion": "in the reply only (redundant)",
    "insertion": "in the gold sequence only (missing)",
    "muted": "context, of less weight",
}
"""The marks a block may carry, and what each means."""

Span = tuple[int, int, str]
"""``(start, end, mark)``: characters ``start:end`` of a text carry ``mark``."""


@dataclass(frozen=True)
class TextBlock:
    """A titled text, with marked spans."""

    title: str
    text: str
    marks: Sequence[Span] = ()


@dataclass(frozen=True)
class Turn:
    """One turn of a dialogue: who speaks, what, a note (role, act, label) and marked spans;
    ``mark`` marks the whole turn (e.g. ``muted`` for context, ``gold`` for a reference)."""

    speaker: str
    text: str
    note: str = ""
    marks: Sequence[Span] = ()
    mark: str = ""


@dataclass(frozen=True)
class TurnsBlock:
    """A dialogue, turn by turn."""

    title: str
    turns: Sequence[Turn]


@dataclass(frozen=True)
class TableBlock:
    """A table of texts; ``row_marks`` gives each row's mark (``""``: none)."""

    title: str
    head: Sequence[str]
    rows: Sequence[Sequence[str]]
    row_marks: Sequence[str] = ()
    caption: str = ""


@dataclass(frozen=True)
class Aligned:
    """One position of an alignment: the edit (a mark: ``match``, ``substitution``,
    ``deletion``, ``insertion``), the top and bottom entries (``""`` for a gap) and the cost."""

    op: str
    top: str
    bottom: str
    cost: float


@dataclass(frozen=True)
class AlignmentBlock:
    """Two sequences aligned (``top``: the label of the upper one, e.g. the reply's acts),
    with ``totals``: the breakdown of the distance as the run recorded it, by edit."""

    title: str
    top: str
    bottom: str
    columns: Sequence[Aligned]
    totals: Sequence[tuple[str, float]] = field(default_factory=tuple)


Block = TextBlock | TurnsBlock | TableBlock | AlignmentBlock


def _spans(spans: Sequence[Span]) -> list[list[Any]]:
    return [[s, e, m] for s, e, m in spans]


def block_json(block: Block) -> dict[str, Any]:
    """A block as the report's embedded data holds it (short keys: ``k`` the kind, ``t`` the
    title)."""
    if isinstance(block, TextBlock):
        return {"k": "text", "t": block.title, "x": block.text, "m": _spans(block.marks)}
    if isinstance(block, TurnsBlock):
        turns = [[t.speaker, t.text, t.note, _spans(t.marks), t.mark] for t in block.turns]
        return {"k": "turns", "t": block.title, "turns": turns}
    if isinstance(block, TableBlock):
        marks = list(block.row_marks) or [""] * len(block.rows)
        return {
            "k": "table",
            "t": block.title,
            "head": list(block.head),
            "rows": [list(r) for r in block.rows],
            "marks": marks,
            "cap": block.caption,
        }
    cols = [[c.op, c.top, c.bottom, round(c.cost, 6)] for c in block.columns]
    return {
        "k": "align",
        "t": block.title,
        "top": block.top,
        "bottom": block.bottom,
        "cols": cols,
        "totals": [[k, round(v, 6)] for k, v in block.totals],
    }


def number(value: Any, digits: int = 3) -> str:
    """A number as the item view shows it (``–`` for none; a whole number without a point)."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}".rstrip("0").rstrip(".") if value == value else "–"
    return str(value)
