"""The annotate stage of da-response (seed 000 §4.1): each reply becomes a DA sequence with
importances, by one of three annotators (the ``annotator`` role):

- a model SPEC: the LLM tagger with the seed's taxonomy, definitions and few-shot example
  (App. A.2–A.3), JSON-schema constrained; invalid output is re-asked with the validation
  error (``annotator_attempts`` rounds), then recorded as an annotation failure;
- ``offline``: the sentence-level naive Bayes tagger trained on the bundled gold set;
- ``replay:FILE``: sequences you already have (``{"id", "steps"}`` lines).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from taiwa.annotators.replay import load_sequences
from taiwa.annotators.sentence_tagger import SentenceDATagger
from taiwa.annotators.steps_json import parse_steps
from taiwa.benchmarks.da_response.dataset import DAResponseItem, load_da_response, steps_json_schema
from taiwa.benchmarks.da_response.prompts import annotation_prompt
from taiwa.harness.method import Retry, Row, StageBase, StageFailure, Upstream
from taiwa.harness.stages import LocalStage
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, GenerationParams
from taiwa.samples import sample_path
from taiwa.schema import DASequence
from taiwa.taxonomies import load_taxonomy

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

    def requests(self, sample: DAResponseItem, upstream: Upstream) -> Sequence[ChatRequest]:
        system, user = annotation_prompt(sample.input.text, _reply(upstream))
        messages = [
            ChatMessage(role="system", content=system),
            ChatMessage(role="user", content=user),
        ]
        return [ChatRequest(id=sample.id, messages=messages, params=self.params)]

    def finish(
        self, sample: DAResponseItem, upstream: Upstream, replies: Sequence[ChatResponse]
    ) -> Row | Retry:
        try:
            return steps_row(parse_steps(replies[0].text or "", self.taxonomy))
        except ValueError as exc:
            return Retry(str(exc))


@cache
def default_tagger() -> SentenceDATagger:
    """The offline tagger trained on the whole bundled sample set (deterministic, < 1 s)."""
    items = load_da_response(sample_path("da_response/gold.jsonl"))
    return SentenceDATagger.train([(it.output.text, it.gold) for it in items])


def _offline(sample: DAResponseItem, upstream: Upstream) -> Row:
    seq = default_tagger().tag(_reply(upstream))
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
