"""The two helpers every terminal table uses: :func:`clip` (bounded, escaped cells) and
:func:`compact_table` (no vertical rules: fits 80 columns). Their own module so that table
modules :mod:`taiwa.display.tables` prints (e.g. :mod:`taiwa.display.comparison_table`) need not
import it;
:mod:`taiwa.display.tables` re-exports them."""

from __future__ import annotations

from rich import box
from rich.markup import escape
from rich.table import Table

CLIP = 200
"""Texts longer than this are cut in tables (the run directory keeps them whole): every cell
that shows input text (a reply, an utterance, an id, a system or act name) goes through
:func:`clip`, so rendering time stays bounded whatever the input holds."""


def clip(text: str, limit: int = CLIP) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, so tables stay bounded, and
    escaped: a reply holding ``[/b]`` shows as typed instead of breaking rich's markup."""
    return escape(text if len(text) <= limit else text[: limit - 1] + "…")


def compact_table(title: str, caption: str | None = None, *, kind: type[Table] = Table) -> Table:
    """A table (a ``kind``: :class:`~rich.table.Table` or a subclass) with no vertical rules and
    no edge: a wide table (ten columns and more) still fits an 80-column terminal."""
    return kind(
        title=title,
        title_justify="left",
        caption=caption,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
