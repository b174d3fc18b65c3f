"""The resolved configuration of a run: ``taiwa run`` flags and ``--config run.yaml`` map onto
this one record, which is stored in ``config.json``. API keys are never part of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io import read_yaml, shown
from taiwa.core.schema import error_text
from taiwa.models.spec import ModelOptions
from taiwa.models.types import GenerationParams

MAX_COUNT = 2**63 - 1
"""The largest count or seed a run takes (what a machine integer holds): larger values, from
a flag or run.yaml, are refused before anything is allocated."""

MAX_CONCURRENCY = 4_096
"""The most requests in flight per model (``--concurrency``)."""


class RunConfig(BaseModel):
    """Everything that determines a run.

    ``models`` are the systems under test (``--model``, repeatable); ``roles`` the helper
    models a method declares (``--role annotator=offline``); ``options`` the method's own
    settings (``-o key=value``), validated by the method's options model.
    """

    model_config = ConfigDict(extra="forbid")

    method: str = Field(min_length=1)
    models: list[str] = Field(default_factory=list)
    roles: dict[str, str] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    base_url: str | None = None
    data: Path | None = None
    out: Path | None = None
    limit: int | None = Field(None, ge=1, le=MAX_COUNT)
    concurrency: int = Field(16, ge=1, le=MAX_CONCURRENCY)
    rpm: float | None = Field(None, gt=0, allow_inf_nan=False)
    timeout: float = Field(60.0, gt=0, allow_inf_nan=False)
    max_retries: int = Field(5, ge=0, le=1_000)
    retry_window: float = Field(120.0, ge=0, allow_inf_nan=False)
    max_retry_wait: float = Field(600.0, gt=0, allow_inf_nan=False)
    temperature: float = Field(0.0, ge=0, allow_inf_nan=False)
    max_tokens: int = Field(512, ge=1, le=MAX_COUNT)
    seed: int = Field(0, ge=0, le=MAX_COUNT)
    baseline: str | None = None
    cache_dir: Path | None = None
    no_cache: bool = False
    prices: dict[str, tuple[float, float]] = Field(default_factory=dict)
    """USD per million tokens in and out, by SPEC or model name (``taiwa.harness.cost``);
    not part of the run's key."""
    _given_as: dict[str, str] = PrivateAttr(default_factory=dict)
    """How the user wrote each setting (``limit`` → ``--limit``, ``options.distance`` →
    ``-o distance``, or ``run.yaml: field 'options.distance'``), for error messages."""

    def __eq__(self, other: object) -> bool:
        """Equal settings are an equal config, however they were given."""
        if not isinstance(other, RunConfig):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    def given_as(self, key: str) -> str | None:
        """How the user wrote ``key`` (``"options.distance"``, ``"roles.judge"``, ``"limit"``),
        or ``None`` when it was not given (:func:`resolve_config`)."""
        return self._given_as.get(key)

    @model_validator(mode="before")
    @classmethod
    def _one_model(cls, data: Any) -> Any:
        """``model: X`` (one system) is accepted for ``models: [X]``; a ``model`` that is neither
        a SPEC nor a list of them is left for validation to name (``models[0]``)."""
        if isinstance(data, dict) and "model" in data:
            data = dict(data)
            one = data.pop("model")
            more = one if isinstance(one, list) else [one]
            before = data.get("models", [])
            data["models"] = [*before, *more] if isinstance(before, list) else before
        return data

    @property
    def params(self) -> GenerationParams:
        return GenerationParams(
            temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed
        )

    @property
    def model_options(self) -> ModelOptions:
        return ModelOptions(
            base_url=self.base_url,
            concurrency=self.concurrency,
            rpm=self.rpm,
            timeout=self.timeout,
            max_retries=self.max_retries,
            retry_window=self.retry_window,
            max_retry_wait=self.max_retry_wait,
            cache_dir=self.cache_dir,
        )


def _yaml_mapping(path: Path) -> dict[str, Any]:
    loaded = read_yaml(path)
    if not isinstance(loaded, dict):
        got = "an empty file" if loaded is None else type(loaded).__name__
        raise InputError(str(path), None, None, "a mapping of run settings", got)
    return {k.replace("-", "_"): v for k, v in loaded.items()}


def flag_name(key: str) -> str:
    """The ``taiwa run`` flag of a setting: ``max_tokens`` → ``--max-tokens``, ``models`` →
    ``--model``, ``options.distance`` → ``-o distance``, ``roles.judge`` → ``--role judge``."""
    head, _, sub = key.partition(".")
    if head == "options":
        return f"-o {sub}" if sub else "-o"
    if head == "roles":
        return f"--role {sub}" if sub else "--role"
    return "--model" if head == "models" else f"--{head.replace('_', '-')}"


def resolve_config(
    config_file: Path | None, overrides: dict[str, Any], flags: dict[str, str] | None = None
) -> RunConfig:
    """Values from ``config_file`` (YAML), then every override that is not ``None`` or empty.

    ``roles``, ``options`` and ``prices`` are merged key by key (the command line wins). An
    invalid value names the flag it came from (:func:`flag_name`, or ``flags[key]`` for a
    shorthand such as ``roles.judge`` → ``--judge``) or the file and field."""
    data: dict[str, Any] = _yaml_mapping(config_file) if config_file is not None else {}
    given: dict[str, str] = {}
    for key, value in data.items():
        subs = value.keys() if key in ("roles", "options") and isinstance(value, dict) else ()
        for k in [key, *(f"{key}.{sub}" for sub in subs)]:
            given[k] = f"{config_file}: field {k!r}"
    for key, value in overrides.items():
        if value is None or (isinstance(value, list | dict) and not value):
            continue
        subs = value.keys() if isinstance(value, dict) else ()
        for k in [key, *(f"{key}.{sub}" for sub in subs)]:
            given[k] = (flags or {}).get(k) or flag_name(k)
        if key in ("roles", "options", "prices") and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        elif key == "models":
            data.pop("model", None)
            data[key] = value
        else:
            data[key] = value
    try:
        cfg = RunConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        top = str(err["loc"][0]) if err["loc"] else ""
        if top in overrides and given.get(top, "").startswith("-"):
            msg = error_text(err)
            raise TaiwaError(
                f"{given[top]}: {msg[0].lower() + msg[1:]} (got {shown(err.get('input'))})"
            ) from None
        raise InputError.from_validation(str(config_file or "command line"), None, exc) from None
    cfg._given_as = given
    return cfg


def parse_assignments(items: list[str], what: str) -> dict[str, str]:
    """``["k=v", ...]`` from ``-o`` / ``--role``; a malformed item is a one-line error."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise TaiwaError(f"{what} expects KEY=VALUE, got {shown(item)}")
        out[key.strip().replace("-", "_")] = value.strip()
    return out
