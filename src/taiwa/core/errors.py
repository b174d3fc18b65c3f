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


FIELD_CHARS = 160
"""The longest field name an error shows (longer ones are cut in the middle)."""


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
        if field and len(field) > FIELD_CHARS:  # a 100,000-character key in a path
            field = field[: FIELD_CHARS // 2] + "…" + field[-FIELD_CHARS // 2 :]
        what = f"field '{field}': " if field else ""
        found = f" (got {got})" if got is not None else ""
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


def _short(value: Any, limit: int = 60) -> str:
    text = (
        repr(value)
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, default=str)
    )
    return text if len(text) <= limit else text[: limit - 1] + "…"
