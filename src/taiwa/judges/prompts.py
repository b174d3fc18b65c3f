"""Japanese judge prompts for chit-chat replies, single (1–10) and pairwise (A / B / tie).

Modelled on MT-bench's reference-guided judge prompts (Zheng+ 2023, FastChat
``judge_prompts.jsonl``: ``single-math-v1`` with ``[[rating]]``, ``pair-math-v1`` with
``[[A]]`` / ``[[B]]`` / ``[[C]]``), translated and adapted to seed 001 (「元論文のPromptを
ベースに翻訳・改良、両方Referenceありの形式を採用」): the judge evaluates whether the reply
makes the dialogue **enjoyable, natural and consistent with the context** (楽しく、自然で、
文脈に一貫した), and, since the speaker is not an assistant, does **not** count conciseness or
accuracy (簡潔さや正確性は評価に含めない). The reference is one good human continuation, not
the only right answer; neither length nor order (pairwise) may sway the verdict.

Each prompt is a system message (the judge's instruction) and a user message (the task
instruction the systems were given, the dialogue context, the reference and the answer(s)).
Without a reference the ``*_NO_REF`` variants are used (MT-bench's ``single-v1`` /
``pair-v2`` shape). :data:`PROMPTS` holds every text by name, for a method to hash into
``config.json``.
"""

from __future__ import annotations

from taiwa.models.types import ChatMessage

# ----------------------------------------------------------------------- the judge's instruction

_ROLE_SINGLE = (
    "あなたは公平な審査員です。以下に示す雑談対話の文脈に続けて、ある対話システムが出力した"
    "応答の品質を評価してください。"
)
_ROLE_PAIRWISE = (
    "あなたは公平な審査員です。以下に示す雑談対話の文脈に続けて、2つの対話システム（AとB）が"
    "出力した応答を比較し、どちらがより優れているかを判定してください。"
)
_CRITERIA = (
    "この対話は人同士の他愛ない雑談であり、応答者は質問に答えるアシスタントではありません。"
    "応答によって対話が楽しく、自然で、文脈に一貫したものになっているかを評価してください。"
    "楽しさとは、相手が話を続けたくなるような反応や話題の展開があることです。"
    "自然さとは、人同士の雑談として違和感のない内容と口調であることです。"
    "文脈への一貫性とは、これまでの話題や話者の発言と矛盾せず、指示された話者と形式に沿って"
    "いることです。アシスタントではないので、簡潔さや情報の正確性は評価に含めないでください。"
)
_REFERENCE_NOTE = (
    "参考として、同じ文脈で実際に人が書いた続き（参照応答）が与えられます。参照応答は良い続きの"
    "一例であり、唯一の正解ではありません。内容が参照応答と違っていても、楽しく、自然で、"
    "文脈に一貫していれば高く評価してください。"
)
_UNBIASED_SINGLE = "応答の長さに評価を左右されないでください。できるだけ客観的に評価してください。"
_UNBIASED_PAIRWISE = (
    "応答が提示された順序に判定を左右されないようにし、位置による偏りを避けてください。"
    "応答の長さに判定を左右されないでください。システムの名前で有利・不利をつけないでください。"
    "できるだけ客観的に判定してください。"
)
_FORMAT_SINGLE = (
    "{explain}その後、1から10の整数で応答を評価してください。評価は必ず「[[評価]]」の形式に"
    "厳密に従って書いてください。例：「評価：[[5]]」"
)
_FORMAT_PAIRWISE = (
    "{explain}その後、最終的な判定を必ず次の形式に厳密に従って出力してください："
    "Aの応答が優れていれば「[[A]]」、Bの応答が優れていれば「[[B]]」、同程度であれば「[[C]]」。"
)


def _system(role: str, unbiased: str, output: str, explain: str, reference: bool) -> str:
    note = _REFERENCE_NOTE if reference else ""
    parts = [role + _CRITERIA, note, unbiased, output.format(explain=explain)]
    return "\n".join(p for p in parts if p)


SINGLE_SYSTEM = _system(
    _ROLE_SINGLE,
    _UNBIASED_SINGLE,
    _FORMAT_SINGLE,
    "まず評価対象の応答を参照応答と比べながら短く説明し、",
    reference=True,
)
"""The single judge's instruction, reference-guided (MT-bench ``single-math-v1``, seed 001)."""

SINGLE_SYSTEM_NO_REF = _system(
    _ROLE_SINGLE, _UNBIASED_SINGLE, _FORMAT_SINGLE, "まず応答について短く説明し、", reference=False
)
"""The single judge's instruction for a sample without a reference (MT-bench ``single-v1``)."""

PAIRWISE_SYSTEM = _system(
    _ROLE_PAIRWISE,
    _UNBIASED_PAIRWISE,
    _FORMAT_PAIRWISE,
    "まず両方の応答を参照応答と比べながら短く説明し、",
    reference=True,
)
"""The pairwise judge's instruction, reference-guided (MT-bench ``pair-math-v1``, seed 001)."""

PAIRWISE_SYSTEM_NO_REF = _system(
    _ROLE_PAIRWISE,
    _UNBIASED_PAIRWISE,
    _FORMAT_PAIRWISE,
    "まず両方の応答を比べながら短く説明し、",
    reference=False,
)
"""The pairwise judge's instruction for a sample without a reference (MT-bench ``pair-v2``)."""

# ------------------------------------------------------------------------------- the task

_QUESTION = "[対話システムへの指示]\n{instruction}\n\n[文脈]\n{context}\n\n"
_REFERENCE = "[参照応答の開始]\n{reference}\n[参照応答の終了]\n\n"
_ANSWER = "[評価対象の応答の開始]\n{answer}\n[評価対象の応答の終了]"
_ANSWERS = (
    "[システムAの応答の開始]\n{answer_a}\n[システムAの応答の終了]\n\n"
    "[システムBの応答の開始]\n{answer_b}\n[システムBの応答の終了]"
)

SINGLE_TEMPLATE = _QUESTION + _REFERENCE + _ANSWER
"""Fields: ``instruction``, ``context``, ``reference``, ``answer``."""
SINGLE_TEMPLATE_NO_REF = _QUESTION + _ANSWER
"""Fields: ``instruction``, ``context``, ``answer``."""
PAIRWISE_TEMPLATE = _QUESTION + _REFERENCE + _ANSWERS
"""Fields: ``instruction``, ``context``, ``reference``, ``answer_a``, ``answer_b``."""
PAIRWISE_TEMPLATE_NO_REF = _QUESTION + _ANSWERS
"""Fields: ``instruction``, ``context``, ``answer_a``, ``answer_b``."""

PROMPTS: dict[str, str] = {
    "judge_single_system": SINGLE_SYSTEM,
    "judge_single_system_no_ref": SINGLE_SYSTEM_NO_REF,
    "judge_single_template": SINGLE_TEMPLATE,
    "judge_single_template_no_ref": SINGLE_TEMPLATE_NO_REF,
    "judge_pairwise_system": PAIRWISE_SYSTEM,
    "judge_pairwise_system_no_ref": PAIRWISE_SYSTEM_NO_REF,
    "judge_pairwise_template": PAIRWISE_TEMPLATE,
    "judge_pairwise_template_no_ref": PAIRWISE_TEMPLATE_NO_REF,
}
"""Every judge prompt text by name (a method merges these into its ``prompts``)."""


def single_messages(
    instruction: str, context: str, reference: str | None, answer: str
) -> list[ChatMessage]:
    """The chat asking for a 1–10 rating of ``answer`` (reference-guided when there is one)."""
    fields = {"instruction": instruction, "context": context, "answer": answer}
    if reference is None:
        return _chat(SINGLE_SYSTEM_NO_REF, SINGLE_TEMPLATE_NO_REF.format(**fields))
    return _chat(SINGLE_SYSTEM, SINGLE_TEMPLATE.format(reference=reference, **fields))


def pairwise_messages(
    instruction: str, context: str, reference: str | None, answer_a: str, answer_b: str
) -> list[ChatMessage]:
    """The chat asking which of ``answer_a`` (shown as A) and ``answer_b`` (B) is better."""
    fields = {
        "instruction": instruction,
        "context": context,
        "answer_a": answer_a,
        "answer_b": answer_b,
    }
    if reference is None:
        return _chat(PAIRWISE_SYSTEM_NO_REF, PAIRWISE_TEMPLATE_NO_REF.format(**fields))
    return _chat(PAIRWISE_SYSTEM, PAIRWISE_TEMPLATE.format(reference=reference, **fields))


def _chat(system: str, user: str) -> list[ChatMessage]:
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]
