"""Japanese text wrapped for the terminal by the rules of Japanese line breaking (kinsoku shori,
JIS X 4051 §4 in its simple form): no line starts with a closing bracket, a punctuation mark,
a small kana or a prolonged-sound mark, and none ends with an opening bracket; Latin words
break at spaces. ``rich`` folds Japanese text at any character ("…ください\\n。"), which reads as
a broken line; :class:`Wrapped` lays a :class:`~rich.text.Text` out itself at the width it is
given (a paragraph, or a table cell at its column's width) and keeps its styles."""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterator

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.text import Text

NO_START = frozenset(
    "、。，．,.・：；:;？！?!ー―‐～〜…‥）)］]｝}〕〉》」』】〙〗〟’”»"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ々〻ゝゞヽヾ"
)
"""Characters a line may not start with."""

NO_END = frozenset("（(［[｛{〔〈《「『【〘〖〝‘“«")
"""Characters a line may not end with."""


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def has_wide(text: object) -> bool:
    """Whether ``text`` is a string holding a wide (Japanese) character."""
    return isinstance(text, str) and any(_wide(ch) for ch in text)


def _may_break(before: str, after: str) -> bool:
    """Whether a line may end after ``before`` and the next start with ``after``."""
    if after in NO_START or before in NO_END:
        return False
    if before == " ":
        return after != " "
    return _wide(before) or _wide(after)


def break_offsets(line: str, width: int) -> list[int]:
    """Where ``line`` (no newline) breaks to fit ``width`` cells: a break goes at the last
    place the rules allow on the line; a line with no such place is cut where it is full."""
    offsets: list[int] = []
    start = 0
    used = 0
    last = -1  # the last allowed break on the current line
    for i, ch in enumerate(line):
        if i > start and _may_break(line[i - 1], ch):
            last = i
        w = cell_len(ch)
        if used + w > width and i > start and ch != " ":
            cut = last if last > start else i
            offsets.append(cut)
            start, last = cut, -1
            used = cell_len(line[start:i])
        used += w
    return offsets


def unbreakable(line: str) -> int:
    """The widest piece of ``line`` the rules keep together (what a column needs at least)."""
    cuts = [0, *(i for i in range(1, len(line)) if _may_break(line[i - 1], line[i])), len(line)]
    return max(cell_len(line[a:b].rstrip()) for a, b in itertools.pairwise(cuts))


def wrap_text(text: Text, width: int) -> Iterator[Text]:
    """The lines of ``text`` at ``width`` cells, each line's trailing spaces dropped."""
    for line in text.split("\n", allow_blank=True):
        if not line.plain:
            yield line
            continue
        for piece in line.divide(break_offsets(line.plain, max(width, 2))):
            piece.rstrip()
            yield piece


class Wrapped:
    """A :class:`~rich.text.Text` that wraps by :func:`break_offsets` wherever it is printed (a
    paragraph or a table cell); it measures as its widest unbreakable piece and longest line."""

    def __init__(self, text: Text | str, style: str = "") -> None:
        self.text = Text(text, style=style) if isinstance(text, str) else text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        yield from wrap_text(self.text, options.max_width)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        lines = self.text.plain.split("\n")
        lo = max((unbreakable(x) for x in lines), default=0)
        hi = max((cell_len(x) for x in lines), default=0)
        return Measurement(min(lo, options.max_width), min(hi, options.max_width))
