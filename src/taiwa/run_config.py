"""The resolved configuration of a run: CLI flags and ``--config run.yaml`` map onto this."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taiwa.errors import InputError
from taiwa.models.types import GenerationParams


class RunConfig(BaseModel):
    """Everything that determines a run. API keys are never part of it (they come from env)."""

    model_config = ConfigDict(extra="forbid")

    benchmark: str
    model: str
    annotator: str | None = None
    base_url: str | None = None
    data: Path | None = None
    out: Path | None = None
    limit: int | None = Field(None, ge=1)
    concurrency: int = Field(16, ge=1)
    rpm: float | None = Field(None, gt=0)
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(5, ge=0)
    temperature: float = Field(0.0, ge=0)
    max_tokens: int = Field(512, ge=1)
    seed: int = 0
    cache_dir: Path | None = None
    no_cache: bool = False

    @property
    def params(self) -> GenerationParams:
        return GenerationParams(
            temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed
        )


def resolve_config(config_file: Path | None, overrides: dict[str, Any]) -> RunConfig:
    """Values from ``config_file`` (YAML), then every override that is not ``None``."""
    data: dict[str, Any] = {}
    if config_file is not None:
        if not config_file.is_file():
            raise InputError(str(config_file), None, None, "an existing YAML file", "no such file")
        try:
            loaded = yaml.safe_load(config_file.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise InputError(
                str(config_file), None, None, "valid YAML", str(exc).splitlines()[0]
            ) from None
        if not isinstance(loaded, dict):
            raise InputError(str(config_file), None, None, "a mapping of run settings")
        data.update({k.replace("-", "_"): v for k, v in loaded.items()})
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return RunConfig.model_validate(data)
    except ValidationError as exc:
        raise InputError.from_validation(str(config_file or "command line"), None, exc) from None
