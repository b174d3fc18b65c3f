"""Seed 001's instructions and prompt layout, and the chat a system under test receives.

The instructions are seed 001's (各タスクの詳細) word for word. The seed prints the first in
full and abbreviates the other two after their first sentence with （省略）; they are
completed here with the same remaining sentences (:data:`COMMON`), which are the task-neutral
requirements the issue lists (no greetings-only reply, do not end the dialogue, natural and
enjoyable, same format as the context, no emoji, URLs or personal data). The first sentence
of the next-speaker instruction keeps the seed's space in 「話者 SPK1の発話」.

The layout is the seed's 補足：正規表現による抜き出しについて figure: ``指示:``, ``入力:`` with
the labelled context, then ``出力:`` and, for the single-turn tasks, the target speaker's
label (「出力: ASSISTANT: までをモデルに入力」). A continuation has no target speaker (the
system writes the labels), so its prompt ends at ``出力:``.
"""

from __future__ import annotations

from collections.abc import Mapping

from taiwa.benchmarks.chitchat.dataset import ChitchatItem, render_turns
from taiwa.models.types import ChatMessage

COMMON = (
    "対話は挨拶のみにならないようにし、対話を終わらせないようにしてください。"
    "対話の内容は文脈に合わせて話題を展開し、自然に、楽しく、相手を不快にさせないものにしてください。"
    "出力は対話のみとし、対話の形式は文脈と合わせてください。"
    "発話には絵文字や顔文字、URLや個人情報については含めないでください。"
)
"""The sentences after the first, shared by the three instructions (seed 001, first task)."""

INSTRUCTIONS: Mapping[str, str] = {
    "next_utterance": (
        "{target}として、次の{labels}らのテキストチャットの文脈に続けて発話を1つ出力してください。"
        + COMMON
    ),
    "next_speaker": (
        "次の{labels}らのテキストチャットについて、与えられた文脈に続けて話者 {target}の発話を"
        "1つ出力してください。" + COMMON
    ),
    "continuation": (
        "次の{labels}らのテキストチャットについて、与えられた文脈に続けて{n}つの発話を"
        "出力してください。" + COMMON
    ),
}
"""Per task: ``{labels}`` are the speaker labels joined by 、, ``{target}`` the speaker to
answer as, ``{n}`` the number of turns to write."""

LAYOUT = "指示: {instruction}\n\n入力:\n{context}\n\n出力:{cue}"
"""The prompt; ``{cue}`` is a line break and ``TARGET:`` for the single-turn tasks, empty for
a continuation."""

PROMPTS: Mapping[str, str] = {**INSTRUCTIONS, "layout": LAYOUT}
"""Everything that shapes the systems' prompts (the method hashes these into config.json)."""


def instruction(item: ChitchatItem) -> str:
    """The seed 001 instruction of ``item``."""
    return INSTRUCTIONS[item.task].format(
        labels="、".join(item.labels), target=item.target or "", n=item.n_turns
    )


def render_prompt(item: ChitchatItem) -> str:
    """The whole prompt: instruction, labelled context and the ``出力:`` cue."""
    cue = f"\n{item.target}:" if item.target is not None else ""
    return LAYOUT.format(instruction=instruction(item), context=render_turns(item.context), cue=cue)


def chat_messages(item: ChitchatItem) -> list[ChatMessage]:
    """The chat a system under test receives: the prompt as one user message (seed 001 fills
    each model's own chat template from its model card with this prompt)."""
    return [ChatMessage(role="user", content=render_prompt(item))]


def judge_question(item: ChitchatItem) -> tuple[str, str]:
    """What a judge is shown of the task (``taiwa.judges``' ``question`` callable): the
    instruction the systems were given and the labelled context."""
    return instruction(item), render_turns(item.context)
