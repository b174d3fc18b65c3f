"""Errors that reach the user as one line: the CLI prints them and exits with their
``exit_code`` (2: bad input or option, fixed before running; 1: the run could not go on)."""

from __future__ import annotations

import json
import re
from typing import Any

_SECRET_FIELD = re.compile(
    r"(?i)(?:api[-_]?key|apikey|secret|password|passwd|auth|(?:^|[-_.])token$|access[-_]?token)"
)


class TaiwaError(Exception):
    """A problem the user can fix (bad input, bad option); shown without a traceback."""

    exit_code = 2


class EndpointError(TaiwaError):
    """A model endpoint that cannot serve the run (refused connection, unreachable, key rejected,
    no such URL or model): retrying cannot help, so the run stops at once."""

    exit_code = 1


class InputError(TaiwaError):
    """Bad input: which file, which line, which field, what was expected and what was found."""

    def __init__(
        self,
        file: str,
        line: int | None,
        field: str | None,
        expected: str,
        got: str | None = None,
    ) -> None:
        self.file, self.line, self.field, self.expected, self.got = file, line, field, expected, got
        where = file if line is None else f"{file}:{line}"
        what = f"field '{_clip(field)}': " if field else ""
        found = f" (got {_clip(got)})" if got is not None else ""
        super().__init__(f"{where}: {what}expected {expected}{found}")

    @classmethod
    def from_validation(cls, file: str, line: int | None, exc: Any) -> InputError:
        """The first error of a pydantic ``ValidationError``, located."""
        from taiwa.core.schema import error_text  # pydantic is loaded: exc is its error

        err = exc.errors(include_url=False)[0]
        field = _loc(err["loc"])
        missing = err["type"] == "missing"
        msg = error_text(err)
        if missing:
            expected = "this field to be present"
        elif err["type"] == "value_error":
            expected = msg.removeprefix("expected ")
        else:
            expected = msg[0].lower() + msg[1:]
        got = None if missing else _short(err.get("input"))
        if got is not None and _SECRET_FIELD.search(field or ""):
            got = "***"  # never echo a key back
        return cls(file, line, field or None, expected, got)


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


MESSAGE_PART = 400
"""The most characters of a field name or a found value an error message shows: a value taken
from a damaged file (a 100,000-character system name) is cut in the middle, never echoed."""


def _clip(text: str, limit: int = MESSAGE_PART) -> str:
    if len(text) <= limit:
        return text
    head, tail = text[: limit - 80], text[-60:]
    return f"{head}…[{len(text) - len(head) - len(tail):,} characters]…{tail}"


def _short(value: Any, limit: int = 60) -> str:
    text = (
        repr(value)
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, default=str)
    )
    return text if len(text) <= limit else text[: limit - 1] + "…"
