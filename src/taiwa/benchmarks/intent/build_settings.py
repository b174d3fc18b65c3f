"""How the intent builder asks its model (seed 004 §2.1–2.2): the build's settings and one
greedy JSON request per prompt, its reply parsed and repaired by re-asking
(:func:`taiwa.models.json_replies.generate_json`); shared by the builder's steps and the LLM
filter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from taiwa.models.base import ChatModel
from taiwa.models.json_replies import JsonOutcome, generate_json
from taiwa.models.types import ChatMessage, ChatRequest, GenerationParams

T = TypeVar("T")


@dataclass(frozen=True)
class BuildSettings:
    """How many candidates and contexts to ask for, and the generation settings."""

    per_dialogue: int = 2
    contexts: int = 2
    seed: int = 0
    max_tokens: int = 512
    attempts: int = 2
    source: str = "taiwa build intent"


def json_request(
    rid: str, prompt: tuple[str, str], settings: BuildSettings, schema: dict[str, Any]
) -> ChatRequest:
    """One greedy request for JSON (``schema`` constrains the reply where the backend can)."""
    system, user = prompt
    params = GenerationParams(
        temperature=0.0, max_tokens=settings.max_tokens, seed=settings.seed, json_schema=schema
    )
    messages = [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]
    return ChatRequest(id=rid, messages=messages, params=params)


async def ask_json(
    model: ChatModel,
    requests: list[ChatRequest],
    parse: Callable[[str], T],
    settings: BuildSettings,
) -> list[JsonOutcome[T]]:
    """The replies, parsed, each repaired up to ``settings.attempts`` times."""
    return await generate_json(model, requests, parse, attempts=settings.attempts)
