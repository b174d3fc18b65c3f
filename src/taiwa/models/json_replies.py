"""Ask a chat model for JSON, validate it, and re-ask with the validation error (bounded).

Used by dataset builders (the runner's stages re-ask through :class:`taiwa.harness.method.Retry`
with the same :func:`repair_turn`): every request goes
through up to ``attempts`` rounds; a reply that fails to parse or validate gets the model's own
output and the error appended as a repair turn. What is still invalid at the end is returned as
a failure with its reason, never silently dropped. Rounds are batched, so the model's
concurrency and the response cache apply.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from taiwa.models.base import ChatModel
from taiwa.models.types import ChatMessage, ChatRequest

T = TypeVar("T")

REPAIR = "出力が不正でした: {error}\n同じ指示に従い、修正した JSON のみを出力してください。"

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


@dataclass
class JsonOutcome(Generic[T]):
    """The validated value for one request, or why there is none."""

    id: str
    value: T | None
    error: str | None
    attempts: int
    raw: str | None = None


def repair_turn(output: str, error: str, repair: str | None = None) -> list[ChatMessage]:
    """The model's own invalid output and the validation error, appended to re-ask; ``repair``
    is the message (``{error}`` filled in), by default :data:`REPAIR` (corrected JSON)."""
    return [
        ChatMessage(role="assistant", content=output),
        ChatMessage(role="user", content=(repair or REPAIR).format(error=error)),
    ]


def extract_json(text: str) -> object:
    """The JSON object in ``text``: the whole text, else the outermost ``{...}`` span."""
    from taiwa.core.errors import InputError
    from taiwa.core.io.json_doc import JSONSyntaxError, loads

    cleaned = _FENCE.sub("", text.strip())
    try:
        return loads(cleaned, "the output")
    except JSONSyntaxError:
        start, end = cleaned.find("{"), cleaned.rfind("}")
        if start < 0 or end <= start:
            raise ValueError("no JSON object found in the output") from None
        try:
            return loads(cleaned[start : end + 1], "the output")
        except InputError as exc:  # bounded: nesting and numbers, as every JSON read
            raise ValueError(f"invalid JSON: {exc.got or exc.expected}") from None
    except InputError as exc:
        raise ValueError(f"invalid JSON: {exc.expected} (got {exc.got})") from None


async def generate_json(
    model: ChatModel,
    requests: list[ChatRequest],
    parse: Callable[[str], T],
    *,
    attempts: int = 3,
    reask_failed: bool = True,
) -> list[JsonOutcome[T]]:
    """Generate and validate; ``parse`` raises ``ValueError`` with a readable reason. A request
    that got no reply is sent again in the next round unless ``reask_failed`` is off (then,
    as in a run, the backend's own retries were its chances)."""
    if attempts < 1:
        raise ValueError(f"attempts must be >= 1, got {attempts}")
    pending = list(requests)
    done: dict[str, JsonOutcome[T]] = {}
    for attempt in range(1, attempts + 1):
        if not pending:
            break
        responses = await model.generate(pending)
        retry: list[ChatRequest] = []
        for req, res in zip(pending, responses, strict=True):
            if not res.ok or res.text is None:
                done[req.id] = JsonOutcome(req.id, None, res.error or "no output", attempt)
                if reask_failed:
                    retry.append(req)
                continue
            try:
                done[req.id] = JsonOutcome(req.id, parse(res.text), None, attempt, res.text)
            except ValueError as exc:
                done[req.id] = JsonOutcome(req.id, None, str(exc), attempt, res.text)
                repair = repair_turn(res.text, str(exc))
                retry.append(req.model_copy(update={"messages": [*req.messages, *repair]}))
        pending = retry
    return [done[r.id] for r in requests]
