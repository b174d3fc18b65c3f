"""The prompt of da-distribution's systems (seed 002: a reply to the last utterance of a
chat)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taiwa.benchmarks.da_distribution.dataset import ContextItem
    from taiwa.models.types import ChatMessage

SYSTEM_PROMPT = (
    "あなたは気軽な雑談の相手です。相手の最後の発話に対して、日本語で自然な返事を一言"
    "（1〜2文）だけ返してください。"
)
"""The systems' instruction (ours: seed 002's systems were fine-tuned reply generators that
needed none; a chat LLM needs to be told it is chatting)."""


def messages(item: ContextItem) -> list[ChatMessage]:
    """The chat a system answers: the history (the replying speaker's own turns as the
    assistant's), then the context as the user's last turn."""
    return context_messages(item.history, item.context)


def context_messages(history: Sequence[str], context: str) -> list[ChatMessage]:
    """:func:`messages` of a context's ``history`` and its last utterance ``context``."""
    from taiwa.models.types import ChatMessage

    turns = [*history, context]
    out = [ChatMessage(role="system", content=SYSTEM_PROMPT)]
    for k, text in enumerate(turns):
        mine = (len(turns) - 1 - k) % 2 == 1
        out.append(ChatMessage(role="assistant" if mine else "user", content=text))
    return out
