"""Unicode normalisation for Japanese text."""

from __future__ import annotations

import unicodedata


def nfkc(text: str) -> str:
    """NFKC-normalise: full-width ASCII to half-width, half-width kana to full-width, etc."""
    return unicodedata.normalize("NFKC", text)
