"""SVG charts inlined in the page: the XML prolog dropped, every ``id`` (and each reference to
it) prefixed so that two figures never share one, and the size left to the page's CSS."""

from __future__ import annotations

import re

from taiwa.display.section import Html

_PROLOG = re.compile(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>", re.S)
_ID = re.compile(r'\bid="([^"]+)"')
_ACTIVE = re.compile(
    r"<script\b.*?</script\s*>|<foreignObject\b.*?</foreignObject\s*>", re.S | re.I
)
_HANDLER = re.compile(r"""\son[a-z]+\s*=\s*("[^"]*"|'[^']*')""", re.I)
_REF = re.compile(r'url\(#([^)]+)\)|(xlink:href|href)="#([^"]+)"')


def inline_svg(text: str, prefix: str) -> Html:
    """``text`` (an SVG document) as an inline ``<svg>`` element whose ids start with
    ``prefix``. Scripts, foreign objects and event handlers are dropped: a chart of a run
    directory is a file like any input."""
    body = _HANDLER.sub("", _ACTIVE.sub("", _PROLOG.sub("", text))).strip()
    body = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', body)

    def ref(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return f"url(#{prefix}-{m.group(1)})"
        return f'{m.group(2)}="#{prefix}-{m.group(3)}"'

    return Html(_REF.sub(ref, body))
