"""Names as charts show them (issue 42): a system, a category or an act longer than a line of
a chart's label is wrapped at its separators or shortened from its start, never cut in the
middle (``builtin:random…random n (mean)`` read as two names run together)."""

from __future__ import annotations

from collections.abc import Sequence

CHART_LABEL = 30
"""The most characters a line of a chart's label holds (a system, a category, an act): a
longer name is wrapped at its separators, or shortened from its start (:func:`chart_label`). A
system named by a long path (``replay:/long/dir/ones.jsonl``) narrowed the axes to nothing: the
plot was squeezed into a corner and its labels ran off the figure. The tables beside the chart
show the name in full."""

LABEL_LINES = 2
"""The most lines a chart's label takes."""

BREAKS = (" ", " +|", " +|:/", " +|:/-_")
"""Where a name may be wrapped (after one of these characters), tried in this order: at a
space if that is enough, else also after ``+`` (a cascade's parts), then ``:`` and ``/`` (a
SPEC's kind, a path's directories), then ``-`` and ``_``."""


def chart_label(name: str, limit: int = CHART_LABEL, lines: int = LABEL_LINES) -> str:
    """``name`` as a chart shows it, never cut in the middle: whole when it fits ``limit``
    characters; else wrapped onto at most ``lines`` lines (:data:`BREAKS`:
    ``builtin:random: random n (mean)`` → ``builtin:random:`` / ``random n (mean)``); else
    shortened from its start, ``…`` in place of what is left out, so that its end (a path's
    file name, what tells runs apart) stays whole."""
    if len(name) <= limit:
        return name
    for breaks in BREAKS:
        wrapped = _wrapped(name, limit, lines, breaks)
        if wrapped is not None:
            return "\n".join(wrapped)
    for breaks in BREAKS:
        for start in [k for k in range(1, len(name)) if name[k - 1] in breaks]:
            wrapped = _wrapped("…" + name[start:], limit, lines, breaks)
            if wrapped is not None:
                return "\n".join(wrapped)
    text = "…" + name[-(limit * lines - 1) :]  # nowhere to wrap: its end, in full lines
    return "\n".join(text[k : k + limit] for k in range(0, len(text), limit))


def _wrapped(name: str, limit: int, lines: int, breaks: str) -> list[str] | None:
    """``name`` on at most ``lines`` lines of at most ``limit`` characters, broken after the
    characters ``breaks``, the last lines filled first (the first is the short one); None when
    it does not fit."""
    pieces, start = [], 0
    for k, ch in enumerate(name):
        if ch in breaks:
            pieces.append(name[start : k + 1])
            start = k + 1
    pieces.append(name[start:])
    out: list[str] = []
    for piece in reversed([p for p in pieces if p]):
        if out and len((piece + out[0]).strip()) <= limit:
            out[0] = piece + out[0]
        else:
            out.insert(0, piece)
    out = [line.strip() for line in out]
    if len(out) <= lines and all(len(line) <= limit for line in out):
        return out
    return None


def chart_labels(names: Sequence[str]) -> list[str]:
    """:func:`chart_label` of each name."""
    return [chart_label(n) for n in names]


def pair_label(a: str, b: str) -> str:
    """``a − b`` for a chart: on one line when it fits :data:`CHART_LABEL`, else ``a`` above
    ``− b``, each name on one line (:func:`chart_label`)."""
    one = f"{a} − {b}"
    if len(one) <= CHART_LABEL:
        return one
    return f"{chart_label(a, lines=1)}\n− {chart_label(b, CHART_LABEL - 2, lines=1)}"
