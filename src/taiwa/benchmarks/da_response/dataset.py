"""The da-response dataset item, exactly seed 000 App. A, plus ``id`` and an optional ``audio``.

Acts must be ``assistant7`` acts; importances lie in [0, 1] and sum to 1 per item: a sum that
is off is renormalised with an :class:`~taiwa.metrics.da_steps.ImportanceWarning`, a sum of 0
(or no step at all) is an error.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from taiwa.core.io import iter_records, unique_ids
from taiwa.core.schema import DASequence, DAStep, Id, NonBlank, Text
from taiwa.core.taxonomies import load_taxonomy
from taiwa.metrics.da_steps import TOLERANCE, ImportanceWarning


class ScenarioContext(BaseModel):
    model_config = ConfigDict(extra="ignore")
    background: NonBlank


class InputTurn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["USER", "user"] = "USER"
    text: NonBlank
    locale: Text = "ja-JP"


class OutputTurn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["ASSISTANT", "assistant"] = "ASSISTANT"
    text: NonBlank


class DialogueActs(BaseModel):
    """``output_dialogue_acts``: the steps, renormalised to sum 1 (seed 000 eq. 3)."""

    model_config = ConfigDict(extra="ignore")
    steps: list[DAStep] = Field(min_length=1)

    @field_validator("steps")
    @classmethod
    def _sum_to_one(cls, steps: list[DAStep], info: ValidationInfo) -> list[DAStep]:
        total = math.fsum(s.importance for s in steps)
        if total <= 0:
            raise ValueError("importances that sum to more than 0 (they are renormalised to 1)")
        if abs(total - 1) > TOLERANCE:
            warnings.warn(
                f"importances sum to {total:.4g}, renormalised to 1 (seed 000 eq. 3)",
                ImportanceWarning,
                stacklevel=2,
            )
            return [s.model_copy(update={"importance": s.importance / total}) for s in steps]
        return steps


class DAResponseItem(BaseModel):
    """One single-turn item: situation, user request, optimal reply and its DA sequence."""

    model_config = ConfigDict(extra="ignore")

    id: Id
    scenario_context: ScenarioContext
    input: InputTurn
    output: OutputTurn
    output_dialogue_acts: DialogueActs
    audio: NonBlank | None = None

    @property
    def gold(self) -> DASequence:
        return DASequence(steps=self.output_dialogue_acts.steps)


def numbered_items(path: str | Path) -> Iterator[tuple[int, DAResponseItem]]:
    """Every item of a dataset file (JSONL/CSV/Parquet) with its line number, validated one at a
    time (ids not yet checked)."""
    return iter_records(path, DAResponseItem, context={"taxonomy": load_taxonomy("assistant7")})


def iter_da_response(path: str | Path) -> Iterator[DAResponseItem]:
    """Read and validate a dataset file one item at a time; ids must be unique (audio mode:
    :func:`taiwa.benchmarks.da_response.audio.iter_heard`)."""
    return unique_ids(path, numbered_items(path))


def load_da_response(path: str | Path) -> list[DAResponseItem]:
    """Every item of ``path`` (see :func:`iter_da_response`)."""
    return list(iter_da_response(path))


def item_json_schema() -> dict[str, object]:
    """JSON schema for constrained generation of one item (acts restricted to assistant7)."""
    acts = load_taxonomy("assistant7").names
    step = {
        "type": "object",
        "properties": {
            "act": {"type": "string", "enum": acts},
            "importance": {"type": "number", "minimum": 0, "maximum": 1},
            "rationale": {"type": "string", "maxLength": 60},
        },
        "required": ["act", "importance", "rationale"],
    }
    return {
        "type": "object",
        "properties": {
            "scenario_context": {
                "type": "object",
                "properties": {"background": {"type": "string", "maxLength": 160}},
                "required": ["background"],
            },
            "input": {
                "type": "object",
                "properties": {
                    "role": {"type": "string", "enum": ["USER"]},
                    "text": {"type": "string", "maxLength": 80},
                    "locale": {"type": "string", "enum": ["ja-JP"]},
                },
                "required": ["role", "text", "locale"],
            },
            "output": {
                "type": "object",
                "properties": {
                    "role": {"type": "string", "enum": ["ASSISTANT"]},
                    "text": {"type": "string", "maxLength": 160},
                },
                "required": ["role", "text"],
            },
            "output_dialogue_acts": {
                "type": "object",
                "properties": {
                    "steps": {"type": "array", "items": step, "minItems": 1, "maxItems": 6}
                },
                "required": ["steps"],
            },
        },
        "required": ["scenario_context", "input", "output", "output_dialogue_acts"],
    }


def steps_json_schema() -> dict[str, object]:
    """JSON schema of an annotation: ``{"steps": [...]}``."""
    schema = item_json_schema()
    odas = schema["properties"]["output_dialogue_acts"]  # type: ignore[index]
    return dict(odas)
