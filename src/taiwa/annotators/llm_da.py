"""LLM dialogue-act tagger (seed 000 §4.1): the same taxonomy, definitions and schema as the
dataset generator; invalid output is repaired by re-asking (bounded), then recorded as failure."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from pydantic import ValidationError

from taiwa.annotators.base import Annotation, ReplyToAnnotate
from taiwa.datasets.da_response import DialogueActs, steps_json_schema
from taiwa.errors import InputError
from taiwa.llm_json import extract_json, generate_json
from taiwa.metrics.da_steps import ImportanceWarning
from taiwa.models.base import ChatModel
from taiwa.models.types import ChatMessage, ChatRequest, GenerationParams
from taiwa.prompts.seed000 import annotation_prompt
from taiwa.schema import DASequence
from taiwa.taxonomies import load_taxonomy


def validation_reason(exc: ValidationError) -> str:
    """A one-line reason for a model's invalid output (for the repair turn and the record)."""
    return str(InputError.from_validation("output", None, exc)).removeprefix("output: ")


def parse_steps(text: str) -> DASequence:
    """Validate an annotation: assistant7 acts, importances in [0, 1], renormalised to sum 1."""
    data = extract_json(text)
    if isinstance(data, list):
        data = {"steps": data}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ImportanceWarning)
            acts = DialogueActs.model_validate(
                data, context={"taxonomy": load_taxonomy("assistant7")}
            )
    except ValidationError as exc:
        raise ValueError(validation_reason(exc)) from None
    return DASequence(steps=acts.steps)


class LLMDATagger:
    """Annotates replies with a chat model, JSON-schema constrained where the backend allows."""

    def __init__(
        self, model: ChatModel, *, attempts: int = 3, max_tokens: int = 512, seed: int = 0
    ) -> None:
        self.model = model
        self.attempts = attempts
        self.params = GenerationParams(
            temperature=0.0, max_tokens=max_tokens, seed=seed, json_schema=steps_json_schema()
        )
        self.name = f"llm:{model.backend}:{model.model_id}"

    def request(self, reply: ReplyToAnnotate) -> ChatRequest:
        system, user = annotation_prompt(reply.user_text, reply.reply)
        messages = [
            ChatMessage(role="system", content=system),
            ChatMessage(role="user", content=user),
        ]
        return ChatRequest(id=reply.id, messages=messages, params=self.params)

    async def annotate(self, replies: Sequence[ReplyToAnnotate]) -> list[Annotation]:
        outcomes = await generate_json(
            self.model, [self.request(r) for r in replies], parse_steps, attempts=self.attempts
        )
        return [Annotation(o.id, o.value, o.error, o.attempts) for o in outcomes]
