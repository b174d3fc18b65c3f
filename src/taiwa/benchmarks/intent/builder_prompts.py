"""The builder's prompts (Japanese) and the parsers of their JSON replies (seed 004 §2.1–2.3).

Three requests, each answered with one JSON object:

* extraction (§2.1): from a dialogue, pairs of a context sentence (speaker B) and the core
  sentence that answers it (speaker A), with the implied intent of the core sentence;
* additional contexts (§2.2): new context sentences after which the same core sentence
  implies a clearly different intent, each with that intent;
* the filter (§2.1, §2.3): is the intent too direct (it only restates the core sentence), is
  the exchange unnatural Japanese?

Replies are read with :func:`taiwa.models.json_replies.extract_json` (fenced blocks, text around the
object); a reply of the wrong shape raises ``ValueError`` with the reason, which the caller
sends back as a repair turn and, when the attempts run out, counts as unparseable.
"""

from __future__ import annotations

from dataclasses import dataclass

from taiwa.core.schema import Dialogue
from taiwa.models.json_replies import extract_json

SYSTEM = "あなたは日本語の対話と語用論に詳しいアノテーターです。指示に従い、JSON のみを出力してください。"  # noqa: E501

EXTRACT = """以下の日本語の対話から、言外の意図を含む発話のペアを最大 {n} 組抜き出してください。

- 文脈文: 話し手 B の発話（質問や話題の提示など）
- コア文: その直後の話し手 A の発話。字義どおりの意味とは別に、文脈から読み取れる意図（言外の意図）を含むもの
- 言外の意図: コア文によって A が間接的に伝えている内容を短い一文で

言外の意図がコア文の言い換えにすぎない（直接的すぎる）ものは選ばないでください。
文脈文とコア文は対話中の発話をそのまま、またはその一文を写してください。

【対話】
{dialogue}

次の形式の JSON で答えてください:
{{"candidates": [{{"context": "文脈文", "core": "コア文", "intent": "言外の意図"}}]}}"""  # noqa: E501

CONTEXTS = """次の対話では、コア文から下の「言外の意図」が読み取れます。

B（文脈文）: {context}
A（コア文）: {core}
言外の意図: {intent}

同じコア文「{core}」がまったく別の意図を伝えることになるような、新しい文脈文（B の発話）を {n} 件作ってください。
それぞれの文脈文のあとでコア文から読み取れる言外の意図も書いてください。意図は上の意図とも互いとも明確に異なるものにしてください。

次の形式の JSON で答えてください:
{{"contexts": [{{"context": "新しい文脈文", "intent": "その文脈での言外の意図"}}]}}"""  # noqa: E501

FILTER = """次の対話と、コア文（A の発話）から読み取れるとされた言外の意図を確認してください。

B: {context}
A: {core}
言外の意図: {intent}

次の 2 点を判定してください。
- too_direct: 言外の意図がコア文の字義どおりの意味とほぼ同じで、直接的すぎる
- unnatural: 日本語の対話として不自然である

次の形式の JSON で答えてください:
{{"too_direct": false, "unnatural": false, "reason": "判断の理由（短く）"}}"""


PLACEHOLDERS = frozenset(
    {"文脈文", "コア文", "言外の意図", "新しい文脈文", "その文脈での言外の意図"}
)
"""The example values of the prompts: a reply that copies one is not an answer."""


@dataclass(frozen=True)
class Extracted:
    """One (context, core, intent) triple as the model wrote it."""

    context: str
    core: str
    intent: str


@dataclass(frozen=True)
class Written:
    """One additional context with the intent the core sentence takes after it (§2.2)."""

    context: str
    intent: str


@dataclass(frozen=True)
class Verdict:
    """The LLM filter's answer for one candidate."""

    too_direct: bool
    unnatural: bool
    reason: str


def extraction_prompt(dialogue: Dialogue, n: int) -> tuple[str, str]:
    """``(system, user)`` asking for up to ``n`` candidates from ``dialogue`` (§2.1)."""
    lines = "\n".join(
        f"{k}. {u.speaker}: {' '.join(u.text.split())}"
        for k, u in enumerate(dialogue.utterances, start=1)
    )
    return SYSTEM, EXTRACT.format(n=n, dialogue=lines)


def contexts_prompt(context: str, core: str, intent: str, n: int) -> tuple[str, str]:
    """``(system, user)`` asking for ``n`` new contexts of ``core`` (§2.2)."""
    return SYSTEM, CONTEXTS.format(context=context, core=core, intent=intent, n=n)


def filter_prompt(context: str, core: str, intent: str) -> tuple[str, str]:
    """``(system, user)`` asking whether a candidate is too direct or unnatural."""
    return SYSTEM, FILTER.format(context=context, core=core, intent=intent)


def parse_candidates(text: str) -> list[Extracted]:
    """The candidates of an extraction reply; ``ValueError`` with the reason otherwise."""
    rows = _list_of_objects(text, "candidates")
    return [Extracted(*_texts(row, ("context", "core", "intent"), k)) for k, row in rows]


def parse_contexts(text: str) -> list[Written]:
    """The contexts of an additional-contexts reply; ``ValueError`` otherwise."""
    rows = _list_of_objects(text, "contexts")
    return [Written(*_texts(row, ("context", "intent"), k)) for k, row in rows]


def parse_verdict(text: str) -> Verdict:
    """The filter's verdict; ``ValueError`` otherwise."""
    data = extract_json(text)
    if not isinstance(data, dict):
        raise ValueError('expected a JSON object {"too_direct": ..., "unnatural": ...}')
    flags = []
    for key in ("too_direct", "unnatural"):
        value = data.get(key)
        if not isinstance(value, bool):
            raise ValueError(f"{key!r} must be true or false")
        flags.append(value)
    reason = data.get("reason")
    return Verdict(flags[0], flags[1], reason.strip() if isinstance(reason, str) else "")


def _list_of_objects(text: str, key: str) -> list[tuple[int, dict[str, object]]]:
    data = extract_json(text)
    rows = data.get(key) if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError(f'expected a JSON object {{"{key}": [...]}} with at least one entry')
    if not all(isinstance(r, dict) for r in rows):
        raise ValueError(f"every entry of {key!r} must be an object")
    return list(enumerate(rows))


def _texts(row: dict[str, object], keys: tuple[str, ...], k: int) -> list[str]:
    out = []
    for key in keys:
        value = row.get(key)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"entry {k}: {key!r} must be a non-blank string")
        text = " ".join(value.split())
        if text in PLACEHOLDERS:
            raise ValueError(f"entry {k}: {key!r} copies the example ({text}): write the text")
        out.append(text)
    return out
