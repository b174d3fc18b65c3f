"""Per-method options: ``-o key=value`` (or ``options:`` in run.yaml) validated by the method's
pydantic model, with one-line errors and a listing for ``taiwa list`` / ``taiwa run M --help``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from taiwa.errors import TaiwaError


def _scalar(value: Any) -> Any:
    """Command-line strings are read as YAML scalars (``2`` → 2, ``true`` → True); anything
    else (lists, mappings from run.yaml) is passed on as it is."""
    if not isinstance(value, str):
        return value
    import yaml

    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return value
    return parsed if isinstance(parsed, str | int | float | bool) or parsed is None else value


def parse_options(method: str, model: type[BaseModel], given: dict[str, Any]) -> BaseModel:
    """Validate ``given`` against the method's options model; unknown keys list the known."""
    fields = model.model_fields
    unknown = sorted(set(given) - set(fields))
    if unknown:
        known = ", ".join(fields) or "none"
        raise TaiwaError(f"{method} has no option {unknown[0]!r} (options: {known})")
    try:
        return model.model_validate({k: _scalar(v) for k, v in given.items()})
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        key = ".".join(str(p) for p in err["loc"]) or "options"
        msg = str(err["msg"]).removeprefix("Value error, ")
        raise TaiwaError(f"option {key!r} of {method}: {msg} (got {err.get('input')!r})") from None


def describe_options(model: type[BaseModel]) -> list[tuple[str, str, str]]:
    """``(name, default, help)`` for every option, in declaration order."""
    out = []
    for name, info in model.model_fields.items():
        default = info.get_default(call_default_factory=True)
        shown = ",".join(map(str, default)) if isinstance(default, list | tuple) else default
        out.append((name, str(shown), info.description or ""))
    return out
