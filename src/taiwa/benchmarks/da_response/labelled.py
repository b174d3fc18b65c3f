"""Sentence-labelled replies and gold-vs-flawed alternatives for the offline annotator (issue 16).

Two record shapes, both seed 000 App. A items extended:

- a labelled reply: a da-response item whose steps may carry ``sentence`` (the exact sentence
  of ``output.text`` the step labels; one step per sentence, in order). Training
  (``assistant_da/train.jsonl``), held-out (``assistant_da/heldout.jsonl``) and the 60
  benchmark items (``da_response/gold.jsonl``, no ``sentence``: split by
  :func:`~taiwa.annotators.sentence_annotator.split_sentences`) all load as such;
- an alternatives item: ``scenario_context``, ``input`` and ``alternatives``: one variant of
  kind ``gold`` and one or more of ``missing``, ``redundant`` or ``substituted``, each with
  ``output`` and ``output_dialogue_acts``; the gold variant's steps are the reference every
  variant is scored against (``assistant_da/alternatives.jsonl``).

A file may hold both shapes; a line with ``alternatives`` is an alternatives item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from taiwa.annotators.sentence_annotator import LabelledReply, split_sentences
from taiwa.benchmarks.da_response.dataset import (
    DAResponseItem,
    DialogueActs,
    InputTurn,
    OutputTurn,
    ScenarioContext,
)
from taiwa.core.errors import InputError
from taiwa.core.io import iter_rows, shown_path
from taiwa.core.schema import DAStep, Id, NonBlank
from taiwa.core.taxonomies import load_taxonomy

KINDS = ("gold", "missing", "redundant", "substituted")
FLAWS = KINDS[1:]


class SentenceStep(DAStep):
    """A step with the sentence of the reply it labels."""

    sentence: NonBlank | None = None


class SentenceActs(DialogueActs):
    steps: list[SentenceStep] = Field(min_length=1)  # type: ignore[assignment]


class LabelledItem(DAResponseItem):
    output_dialogue_acts: SentenceActs


class Variant(BaseModel):
    model_config = ConfigDict(extra="ignore")
    kind: Literal["gold", "missing", "redundant", "substituted"]
    output: OutputTurn
    output_dialogue_acts: SentenceActs


class AlternativesItem(BaseModel):
    """One request with its gold reply and flawed variants."""

    model_config = ConfigDict(extra="ignore")
    id: Id
    scenario_context: ScenarioContext
    input: InputTurn
    alternatives: list[Variant]

    @field_validator("alternatives")
    @classmethod
    def _one_gold(cls, variants: list[Variant]) -> list[Variant]:
        golds = sum(v.kind == "gold" for v in variants)
        if golds != 1 or len(variants) < 2:
            raise ValueError(
                f"one variant of kind 'gold' and at least one flawed variant ({', '.join(FLAWS)})"
            )
        return variants


@dataclass(frozen=True)
class Group:
    """An alternatives item: the reference steps (the gold variant's) and every variant as
    ``(kind, reply)``."""

    id: str
    context: str
    reference: LabelledReply
    variants: tuple[tuple[str, LabelledReply], ...]


def _reply(rid: str, context: str, text: str, acts: SentenceActs) -> LabelledReply:
    steps = acts.steps
    given = [s.sentence for s in steps]
    if all(given):
        sentences = tuple(str(s) for s in given)
    else:
        split = split_sentences(text)
        sentences = tuple(split) if len(split) == len(steps) else ()
    plain = tuple(DAStep(act=s.act, importance=s.importance, rationale=s.rationale) for s in steps)
    return LabelledReply(rid, context, sentences, plain, text)


def load_labelled(
    paths: Sequence[Path],
) -> tuple[list[LabelledReply], list[Group]]:
    """The labelled replies and the alternatives groups of ``paths``; a bad line raises
    :class:`~taiwa.core.errors.InputError` naming file, line and field. Ids are unique per file."""
    ctx = {"taxonomy": load_taxonomy("assistant7")}
    replies: list[LabelledReply] = []
    groups: list[Group] = []
    for path in paths:
        seen: dict[str, int] = {}
        for number, raw in iter_rows(path):
            model: type[BaseModel] = AlternativesItem if "alternatives" in raw else LabelledItem
            try:
                rec = model.model_validate(raw, context=ctx)
            except ValidationError as exc:
                raise InputError.from_validation(shown_path(path), number, exc) from None
            rid = str(getattr(rec, "id"))  # noqa: B009
            if rid in seen:
                raise InputError(
                    shown_path(path),
                    number,
                    "id",
                    "unique ids",
                    f"{rid!r} already on line {seen[rid]}",
                )
            seen[rid] = number
            if isinstance(rec, AlternativesItem):
                groups.append(_group(rec))
            elif isinstance(rec, LabelledItem):
                acts = rec.output_dialogue_acts
                replies.append(_reply(rid, rec.input.text, rec.output.text, acts))
    return replies, groups


def _group(rec: AlternativesItem) -> Group:
    variants = tuple(
        (
            v.kind,
            _reply(f"{rec.id}/{k}:{v.kind}", rec.input.text, v.output.text, v.output_dialogue_acts),
        )
        for k, v in enumerate(rec.alternatives)
    )
    reference = next(r for kind, r in variants if kind == "gold")
    return Group(rec.id, rec.input.text, reference, variants)
