"""The annotate stage of da-response (seed 000 §4.1): each reply becomes a DA sequence with
importances, by one of three annotators (the ``annotator`` role):

- a model SPEC: the LLM tagger with the seed's taxonomy, definitions and few-shot example
  (App. A.2–A.3), JSON-schema constrained; invalid output is re-asked with the validation
  error (``annotator_attempts`` rounds), then recorded as an annotation failure; outputs
  accepted after a repair (importances renormalised, steps with unknown acts dropped) carry
  their repairs, which the run summary counts per kind;
- ``offline``: the shared DA classifier applied sentence by sentence with an act × position
  importance model (:mod:`.offline`), trained on the bundled ``assistant_da`` set;
- ``replay:FILE``: sequences you already have (``{"id", "steps"}`` lines).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from taiwa.annotators.replay import load_sequences
from taiwa.annotators.steps_json import parse_steps
from taiwa.benchmarks.da_response.dataset import DAResponseItem, steps_json_schema
from taiwa.benchmarks.da_response.prompts import annotation_prompt
from taiwa.core.schema import DASequence
from taiwa.core.taxonomies import load_taxonomy
from taiwa.harness.method import REPAIRS, Retry, Row, StageBase, StageFailure, Upstream
from taiwa.harness.stages import LocalStage
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, GenerationParams

ROLE = "annotator"
OUTPUT = "annotations.jsonl"


def steps_row(seq: DASequence) -> Row:
    return {"steps": [s.model_dump(exclude_none=True) for s in seq.steps]}


def _reply(upstream: Upstream) -> str:
    return str(upstream["generate"]["text"] or "")


class LLMAnnotateStage(StageBase):
    """Asks the annotator model for the DA sequence of each reply; re-asks on invalid output."""

    def __init__(self, attempts: int, max_tokens: int, seed: int) -> None:
        super().__init__(name="annotate", role=ROLE, output=OUTPUT, attempts=attempts)
        self.params = GenerationParams(
            temperature=0.0, max_tokens=max_tokens, seed=seed, json_schema=steps_json_schema()
        )
        self.taxonomy = load_taxonomy("assistant7")

    def request(self, rid: str, user_text: str, reply: str) -> ChatRequest:
        """The annotation request for one reply to ``user_text``."""
        system, user = annotation_prompt(user_text, reply)
        messages = [
            ChatMessage(role="system", content=system),
            ChatMessage(role="user", content=user),
        ]
        return ChatRequest(id=rid, messages=messages, params=self.params)

    def requests(self, sample: DAResponseItem, upstream: Upstream) -> Sequence[ChatRequest]:
        return [self.request(sample.id, sample.input.text, _reply(upstream))]

    def finish(
        self, sample: DAResponseItem, upstream: Upstream, replies: Sequence[ChatResponse]
    ) -> Row | Retry:
        try:
            parsed = parse_steps(replies[0].text or "", self.taxonomy)
        except ValueError as exc:
            return Retry(str(exc))
        row = steps_row(parsed.sequence)
        if parsed.repairs:
            row[REPAIRS] = parsed.repairs
        return row


def _offline(sample: DAResponseItem, upstream: Upstream) -> Row:
    from taiwa.benchmarks.da_response.shipped_annotator import default_annotator

    seq = default_annotator().annotate(sample.input.text, _reply(upstream))
    if not seq.steps:
        raise StageFailure("empty reply: no sentence to tag")
    return steps_row(seq)


def _replay(path: str) -> Any:
    sequences = load_sequences(path, load_taxonomy("assistant7"))

    def lookup(sample: DAResponseItem, upstream: Upstream) -> Row:
        if sample.id not in sequences:
            raise StageFailure(f"no sequence for id {sample.id!r} in {path}")
        return steps_row(sequences[sample.id])

    return lookup


def annotate_stage(spec: str, attempts: int, max_tokens: int, seed: int) -> Any:
    """The stage for the annotator ``spec`` (see the module docstring)."""
    if spec == "offline":
        return LocalStage("annotate", _offline, output=OUTPUT, role=ROLE)
    if spec.startswith("replay:"):
        return LocalStage(
            "annotate", _replay(spec.removeprefix("replay:")), output=OUTPUT, role=ROLE
        )
    return LLMAnnotateStage(attempts, max_tokens, seed)
