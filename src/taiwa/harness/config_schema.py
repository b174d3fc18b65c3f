"""The shape of a run's ``config.json`` (DESIGN.md, run directories; written by
:func:`taiwa.harness.provenance.provenance`), typed: :class:`RunConfigFile` is what
:class:`~taiwa.harness.run_reader.RunData` holds, so a reader asks ``run.config.stage_files``
rather than digging in a dict. Every field is checked for type and range where the file is
read (strict: no string for a number, no ``true`` for a count); a field an older taiwa did not
write takes its default. Errors name the file, the line and the field.

:class:`RunSettings` mirrors :class:`taiwa.harness.config.RunConfig` (the runner's side, which
a reader must not import); ``tests/test_run_reader.py`` checks that they name the same fields.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taiwa.core.errors import InputError
from taiwa.harness.summary_schema import line_of, shown

MAX_COUNT = 2**63 - 1

Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Positive = Annotated[int, Field(ge=1, le=MAX_COUNT)]
Seconds = Annotated[float, Field(ge=0, le=1e12, allow_inf_nan=False)]
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
StageFileName = Annotated[str, Field(pattern=r"^[^./\\\x00][^/\\\x00]{0,200}\.jsonl$")]
"""A stage file is a ``.jsonl`` file of the run directory itself: no path, no hidden file."""
Price = Annotated[float, Field(ge=0, le=1e6, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow", frozen=True)


class RunSettings(_Strict):
    """``config.json``'s ``config``: the run's resolved settings (``taiwa run`` flags and
    ``run.yaml``; paths as strings)."""

    method: str | None = None
    models: list[str] = Field(default_factory=list)
    roles: dict[str, str] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    base_url: str | None = None
    data: str | None = None
    out: str | None = None
    limit: Positive | None = None
    concurrency: Positive | None = None
    rpm: Annotated[float, Field(gt=0, le=1e12, allow_inf_nan=False)] | None = None
    timeout: Seconds | None = None
    max_retries: Count | None = None
    retry_window: Seconds | None = None
    max_retry_wait: Seconds | None = None
    temperature: Annotated[float, Field(ge=0, le=1e6, allow_inf_nan=False)] | None = None
    max_tokens: Positive | None = None
    seed: Count | None = None
    baseline: str | None = None
    cache_dir: str | None = None
    no_cache: bool | None = None
    prices: dict[str, Annotated[list[Price], Field(min_length=2, max_length=2)]] = Field(
        default_factory=dict
    )


class ModelInfo(_Strict):
    """A model the run loaded: its backend and the id the backend reports."""

    backend: str
    model_id: str


class RunConfigFile(_Strict):
    """A run's ``config.json``: what made the run (provenance) and where its stage files are."""

    method: str = Field(min_length=1)
    seed_paper: str = ""
    config: RunSettings = Field(default_factory=RunSettings)
    options: dict[str, Any] = Field(default_factory=dict)
    roles: dict[str, str] = Field(default_factory=dict)
    systems: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)
    stage_files: dict[str, StageFileName] | None = None
    """Stage name → file name (``None``: written by a taiwa before stage files were named)."""
    taiwa_version: str | None = None
    git_commit: str | None = None
    models: dict[str, ModelInfo] = Field(default_factory=dict)
    seeds: dict[str, Count] = Field(default_factory=dict)
    prompt_sha256: dict[str, Digest] = Field(default_factory=dict)
    input_sha256: dict[str, Digest] = Field(default_factory=dict)
    run_key: str | None = None

    @property
    def bootstrap_seed(self) -> int:
        """The seed the run's bootstrap used (0 when not recorded)."""
        return self.seeds.get("bootstrap", 0)

    def data_digest(self) -> tuple[str, str]:
        """The dataset's file name and the SHA-256 of its content (the name again when the
        digest is not recorded)."""
        data = self.config.data
        name = Path(data).name if data else "the default data"
        return name, self.input_sha256.get(str(data), name)


def parse_config(path: Path, obj: dict[str, Any], text: str) -> RunConfigFile:
    """``config.json``'s object (read from ``path``, ``text`` its text) as a
    :class:`RunConfigFile`, or the :class:`InputError` naming the first wrong field, its line
    and what was found."""
    try:
        config = RunConfigFile.model_validate(obj)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
        name = ".".join(str(p) for p in loc) or None
        if err["type"] == "missing":
            raise InputError(
                str(path), line_of(text, loc[:-1]), name, "this field to be present"
            ) from None
        expected = _expected(err)
        got = shown(err.get("input"))
        raise InputError(str(path), line_of(text, loc), name, expected, got) from None
    if len(set(config.systems)) != len(config.systems):
        twice = next(s for s in config.systems if config.systems.count(s) > 1)
        raise InputError(
            str(path), line_of(text, ["systems"]), "systems", "each system once", repr(twice)
        )
    return config


def _expected(err: Any) -> str:
    """A pydantic error as what was expected (``an integer``, ``a number >= 0``)."""
    kind, ctx = err["type"], err.get("ctx") or {}
    words = {
        "int_type": "a whole number",
        "float_type": "a number",
        "string_type": "a string",
        "bool_type": "true or false",
        "dict_type": "an object",
        "list_type": "an array",
        "tuple_type": "an array [IN, OUT]",
        "model_type": "an object",
        "string_pattern_mismatch": _pattern_text(ctx.get("pattern", "")),
        "finite_number": "a finite number",
    }
    if kind in words:
        return words[kind]
    for bound in ("ge", "gt", "le", "lt"):
        if bound in ctx:
            sign = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}[bound]
            return f"a number {sign} {ctx[bound]}"
    if "min_length" in ctx:
        return f"at least {ctx['min_length']} character(s) or item(s)"
    return str(err.get("msg", "another value"))[:80]


def _pattern_text(pattern: str) -> str:
    if "jsonl" in pattern:
        return "a .jsonl file name inside the run directory"
    if "64" in pattern:
        return "a SHA-256 digest (64 hex digits)"
    return f"text matching {pattern}"
