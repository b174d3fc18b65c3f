"""Small HTML builders: every text from data goes through :func:`esc` (``html.escape``), and
what comes back is :class:`~taiwa.display.section.Html`, safe to insert as is."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from taiwa.display.section import Html


def esc(text: object) -> Html:
    """``text`` escaped for HTML (quotes included)."""
    return Html(html.escape(str(text), quote=True))


def tag(name: str, *children: object, cls: str = "", **attrs: str) -> Html:
    """``<name class=cls attrs>children</name>``; a child that is not :class:`Html` is escaped."""
    attr = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items())
    if cls:
        attr = f' class="{esc(cls)}"' + attr
    inner = "".join(c if isinstance(c, Html) else esc(c) for c in children)
    return Html(f"<{name}{attr}>{inner}</{name}>")


def join(parts: Iterable[Html], sep: str = "") -> Html:
    return Html(sep.join(parts))


def highlight(text: str, words: Sequence[str], cls: str = "hit") -> Html:
    """``text`` escaped, with every occurrence of each of ``words`` marked (``<mark>``); the
    longest word wins where two overlap."""
    marked = [False] * len(text)
    for w in sorted({w for w in words if w}, key=len, reverse=True):
        start = text.find(w)
        while start >= 0:
            if not any(marked[start : start + len(w)]):
                for k in range(start, start + len(w)):
                    marked[k] = True
            start = text.find(w, start + len(w))
    out: list[str] = []
    k = 0
    while k < len(text):
        end = k
        while end < len(text) and marked[end] == marked[k]:
            end += 1
        piece = html.escape(text[k:end])
        out.append(f'<mark class="{cls}">{piece}</mark>' if marked[k] else piece)
        k = end
    return Html("".join(out))
