"""Validate a DA sequence written by an LLM: ``{"steps": [{"act", "importance", "rationale"}]}``
(or a bare list of steps), acts in a given taxonomy, importances in [0, 1], renormalised to
sum 1 (seed 000 eq. 3). Reasons are one line, fit for a repair turn and for the record.

What is repaired rather than refused is counted by kind (:data:`RENORMALISED`,
:data:`DROPPED_UNKNOWN_ACT`), so the run summary can say how often (issue 16)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

from pydantic import ValidationError

from taiwa.core.errors import InputError
from taiwa.core.schema import DASequence, DAStep, Taxonomy
from taiwa.metrics.da_steps import TOLERANCE, ImportanceWarning, normalised_steps
from taiwa.models.json_replies import extract_json

RENORMALISED = "renormalised"
"""Importances that did not sum to 1 (beyond :data:`~taiwa.metrics.da_steps.TOLERANCE`)."""
DROPPED_UNKNOWN_ACT = "dropped_unknown_act"
"""Steps whose act is not in the taxonomy, left out (one count per step)."""


@dataclass(frozen=True)
class ParsedSteps:
    """The validated sequence and the repairs it needed (kind → count)."""

    sequence: DASequence
    repairs: dict[str, int] = field(default_factory=dict)


def validation_reason(exc: ValidationError) -> str:
    """A one-line reason for a model's invalid output."""
    return str(InputError.from_validation("output", None, exc)).removeprefix("output: ")


def parse_steps(text: str, taxonomy: Taxonomy) -> ParsedSteps:
    """The validated, renormalised sequence in ``text`` with its repairs; ``ValueError`` says
    what is wrong (no JSON, a malformed step, no step with a known act, importances summing
    to 0)."""
    data = extract_json(text)
    if isinstance(data, list):
        data = {"steps": data}
    try:
        seq = DASequence.model_validate(data)
    except ValidationError as exc:
        raise ValueError(validation_reason(exc)) from None
    repairs: dict[str, int] = {}
    known = [s for s in seq.steps if taxonomy.canonical(s.act) is not None]
    if len(known) < len(seq.steps):
        repairs[DROPPED_UNKNOWN_ACT] = len(seq.steps) - len(known)
        if not known:
            bad = next(s.act for s in seq.steps)
            raise ValueError(
                f"field 'steps.0.act': expected one of the {taxonomy.name} acts "
                f"{taxonomy.names} (got {bad!r})"
            )
    if not known:
        raise ValueError("field 'steps': expected at least one step")
    total = math.fsum(s.importance for s in known)
    if total > 0 and abs(total - 1) > TOLERANCE:
        repairs[RENORMALISED] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ImportanceWarning)
        _, weights = normalised_steps(known)
    steps = [
        DAStep(act=str(taxonomy.canonical(s.act)), importance=w, rationale=s.rationale)
        for s, w in zip(known, weights, strict=True)
    ]
    return ParsedSteps(DASequence(steps=steps), repairs)
