"""Validate a DA sequence written by an LLM: ``{"steps": [{"act", "importance", "rationale"}]}``
(or a bare list of steps), acts in a given taxonomy, importances in [0, 1], renormalised to
sum 1 (seed 000 eq. 3). Reasons are one line, fit for a repair turn and for the record."""

from __future__ import annotations

import warnings

from pydantic import ValidationError

from taiwa.errors import InputError
from taiwa.llm_json import extract_json
from taiwa.metrics.da_steps import ImportanceWarning, normalised_steps
from taiwa.schema import DASequence, DAStep, Taxonomy


def validation_reason(exc: ValidationError) -> str:
    """A one-line reason for a model's invalid output."""
    return str(InputError.from_validation("output", None, exc)).removeprefix("output: ")


def parse_steps(text: str, taxonomy: Taxonomy) -> DASequence:
    """The validated, renormalised sequence in ``text``; ``ValueError`` says what is wrong."""
    data = extract_json(text)
    if isinstance(data, list):
        data = {"steps": data}
    try:
        seq = DASequence.model_validate(data, context={"taxonomy": taxonomy})
    except ValidationError as exc:
        raise ValueError(validation_reason(exc)) from None
    if not seq.steps:
        raise ValueError("field 'steps': expected at least one step")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportanceWarning)
        _, weights = normalised_steps(seq.steps)
    return DASequence(
        steps=[
            DAStep(act=s.act, importance=w, rationale=s.rationale)
            for s, w in zip(seq.steps, weights, strict=True)
        ]
    )
