"""Secrets never leave the process: keys and URL credentials are masked in everything taiwa
writes or prints (run files, error rows, log lines, messages).

Masked: the value of ``OPENAI_API_KEY`` (and of any ``*_API_KEY``/``*_TOKEN`` variable set),
and any run of :data:`MIN_FRAGMENT` or more of its characters (a server quoting the key's
last characters back, as some providers do, is masked too),
``Bearer`` tokens, ``sk-``-style keys, the ``user:password@`` part of URLs, and the values of
query parameters or ``name: value`` / ``name=value`` pairs whose name says key, token, secret,
password or signature (``?api-key=…``, ``api_key: …`` in run.yaml, an echoed
``Authorization`` header; not a bare ``key``, a word too common to mask).
"""

from __future__ import annotations

import os
import re

MASK = "***"

MIN_FRAGMENT = 6
"""The shortest run of a key's characters masked wherever it appears in a message."""

_SECRET_NAME = (
    r"(?:[\w-]*(?:api[-_]?key|apikey|subscription[-_]?key|token|secret|password|passwd|signature)"
    r"|sig|authorization)"
)
_PATTERNS = (
    # Authorization: Bearer abc / "Authorization": "Bearer abc" / bearer abc
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"),
    # sk-..., sk-proj-..., (OpenAI-style keys) anywhere
    re.compile(r"\b(sk-)[A-Za-z0-9_-]{8,}"),
    # scheme://user:pass@host -> scheme://***@host (lookbehinds and possessive runs keep every
    # pattern linear in the text's length)
    re.compile(r"(?i)((?<![a-z0-9+.-])[a-z][a-z0-9+.-]*+://)[^/\s@:]*+:[^/\s@]*+(@)"),
    # ?api-key=abc&x=1 / name=value / name: value / "name": "value"
    re.compile(
        rf"(?i)((?<![\w-])(?={_SECRET_NAME}[\"']?\s*[=:])[\w-]++[\"']?\s*[=:]\s*[\"']?)"
        rf"(?!{re.escape(MASK)})[^\s&\"',;}}]++"
    ),
)


def _env_secrets() -> list[str]:
    names = [n for n in os.environ if n.endswith(("_API_KEY", "_TOKEN", "_SECRET"))]
    values = {os.environ[n] for n in names}
    return sorted((v for v in values if len(v) >= 6), key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every secret it contains replaced by ``***``."""
    if not text:
        return text
    for secret in _env_secrets():
        text = _mask_fragments(text.replace(secret, MASK), secret)
    for pattern in _PATTERNS:
        text = pattern.sub(
            lambda m: m.group(1) + MASK + (m.group(2) if m.re.groups > 1 else ""), text
        )
    return text


def _mask_fragments(text: str, secret: str) -> str:
    """``text`` with every run of at least :data:`MIN_FRAGMENT` characters that also occurs in
    ``secret`` masked (each run as long as it keeps matching part of the secret)."""
    n = MIN_FRAGMENT
    grams = {secret[j : j + n] for j in range(len(secret) - n + 1)}
    if len(text) < n or not grams:
        return text
    out: list[str] = []
    start = i = 0
    while i <= len(text) - n:
        if text[i : i + n] not in grams:
            i += 1
            continue
        end = i + n
        while end < len(text) and text[i : end + 1] in secret:
            end += 1
        out += [text[start:i], MASK]
        start = i = end
    return "".join(out) + text[start:] if out else text
