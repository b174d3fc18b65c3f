"""The question of seed 004 §2.3, put to annotators and to the models alike.

The text is the seed's, section by section (【対話文】【質問】【選択肢】). The options are
numbered so that an answer can name one by its number; a model is then asked for the number
(:data:`ANSWER_INSTRUCTION`, ours: the seed shows no model prompt)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taiwa.benchmarks.intent.dataset import IntentItem
    from taiwa.models.types import ChatMessage

HEADER = "以下の対話文を読んで、その後の質問に答えてください。"
QUESTION = (
    "発話者 A は、「{core}」と言うことによって、以下のどのような意図を伝えていると感じました"
    "か？もっともよく当てはまると感じたものを選んでください。"
)
ANSWER_INSTRUCTION = "回答は、もっともよく当てはまる選択肢の番号を1つだけ答えてください。"


def question_text(context: str, core: str, options: Sequence[str]) -> str:
    """Seed 004 §2.3's question: B says the context sentence, A the core sentence."""
    numbered = "\n".join(f"{k}. {opt}" for k, opt in enumerate(options, start=1))
    return (
        f"{HEADER}\n\n【対話文】\nB: {context}\nA: {core}\n\n"
        f"【質問】\n{QUESTION.format(core=core)}\n\n【選択肢】\n{numbered}"
    )


def model_prompt(context: str, core: str, options: Sequence[str]) -> str:
    """What a model is asked: the question, then the answer instruction."""
    return f"{question_text(context, core, options)}\n\n{ANSWER_INSTRUCTION}"


PROMPTS = {
    "question": question_text("{context}", "{core}", ["{option}"]),
    "answer": ANSWER_INSTRUCTION,
}
"""The templates hashed into a run's config.json."""


def messages(item: IntentItem) -> list[ChatMessage]:
    """Seed 004 §2.3's question as one user message, then the answer instruction."""
    from taiwa.models.types import ChatMessage

    return [ChatMessage(role="user", content=model_prompt(item.context, item.core, item.options))]
