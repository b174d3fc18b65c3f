"""Per-method options: ``-o key=value`` (or ``options:`` in run.yaml) validated by the method's
pydantic model, with one-line errors and a listing for ``taiwa list`` / ``taiwa run M --help``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from pydantic import BaseModel, ValidationError

from taiwa.core.errors import TaiwaError
from taiwa.core.io import parse_yaml, shown, shown_path
from taiwa.core.schema import MAX_TEXT_CHARS, error_text


def comma_list(value: Any) -> Any:
    """``a,b`` on the command line is the list ``["a", "b"]`` (a ``mode="before"`` validator for
    list options); lists from run.yaml pass as they are."""
    return [v.strip() for v in value.split(",") if v.strip()] if isinstance(value, str) else value


def _scalar(value: Any) -> Any:
    """Command-line strings are read as YAML scalars (``2`` → 2, ``true`` → True); anything
    else (lists, mappings from run.yaml) is passed on as it is."""
    if not isinstance(value, str):
        return value
    try:
        parsed = parse_yaml(value, "option")
    except TaiwaError:  # not YAML (or nested too deep): the string itself
        return value
    return parsed if isinstance(parsed, str | int | float | bool) or parsed is None else value


def parse_options(
    method: str,
    model: type[BaseModel],
    given: dict[str, Any],
    given_as: Callable[[str], str | None] = lambda key: None,
) -> BaseModel:
    """Validate ``given`` against the method's options model; unknown keys list the known.
    An error names the option as the user wrote it (``given_as(key)``: ``-o distance``,
    ``--input-mode``, ``run.yaml: field 'options.distance'``) when that is known."""

    def option(key: str) -> str:
        where = given_as(key)
        return f"option {shown(key)} of {method}" + (
            f" ({shown_path(where, 200)})" if where else ""
        )

    fields = model.model_fields
    unknown = sorted(set(given) - set(fields))
    if unknown:
        known = ", ".join(fields) or "none"
        where = given_as(unknown[0])
        what = f" ({shown_path(where, 200)})" if where else ""
        raise TaiwaError(f"{method} has no option {shown(unknown[0])}{what} (options: {known})")
    for key, value in given.items():
        if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
            raise TaiwaError(
                f"{option(key)}: at most {MAX_TEXT_CHARS:,} characters (got {len(value):,})"
            )
    values = {k: _scalar(v) for k, v in given.items()}
    for key, value in values.items():
        if isinstance(value, bool) and not _takes(fields[key].annotation, bool):
            got = str(value).lower()
            raise TaiwaError(f"{option(key)}: takes no true/false (got {got})")
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        key = ".".join(str(p) for p in err["loc"]) or "options"
        msg = error_text(err)
        got = shown(err.get("input"))
        where = given_as(str(err["loc"][0])) if err["loc"] else None
        label = f"option {shown(key)} of {method}" + (f" ({where})" if where else "")
        raise TaiwaError(f"{label}: {msg} (got {got})") from None


def _takes(annotation: Any, kind: type) -> bool:
    """Whether a field annotation admits ``kind`` itself (pydantic would turn ``true`` into 1
    for an ``int`` field: a yes/no given where a number is meant is refused instead)."""
    if annotation is kind or annotation is Any:
        return True
    return any(_takes(arg, kind) for arg in get_args(annotation))


def describe_options(model: type[BaseModel]) -> list[tuple[str, str, str]]:
    """``(name, default, help)`` for every option, in declaration order."""
    out = []
    for name, info in model.model_fields.items():
        default = info.get_default(call_default_factory=True)
        shown = ",".join(map(str, default)) if isinstance(default, list | tuple) else default
        out.append((name, str(shown), info.description or ""))
    return out
