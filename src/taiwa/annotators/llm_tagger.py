"""A chat model as a dialogue-act tagger: one act per utterance, given the utterance before it.

The prompt lists the taxonomy's acts with their definitions and a few labelled examples
handed in by the caller (a method's own data); the model answers ``{"act": "<name>"}``
(JSON-schema constrained where the backend supports it, temperature 0). :func:`parse_act`
validates an answer; what it repairs rather than refuses is counted by kind
(:data:`ALIAS_ACT`, :data:`ACT_FROM_TEXT`), like :mod:`.steps_json` does for DA sequences, and
a refused answer is re-asked with the reason (:class:`~taiwa.harness.method.Retry` in a run,
:meth:`LLMTagger.tag_many` outside one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taiwa.core.schema import Taxonomy
from taiwa.harness.method import RE_ASKED
from taiwa.models.json_replies import extract_json

if TYPE_CHECKING:
    from taiwa.models.base import ChatModel
    from taiwa.models.types import ChatRequest, GenerationParams

ALIAS_ACT = "alias_act"
"""An act named by its Japanese/English alias, or with stray spaces or brackets."""
ACT_FROM_TEXT = "act_from_text"
"""No JSON, but exactly one act named in the text."""
INVALID = "invalid"
"""Still no act after the last attempt (that utterance stays untagged)."""

_STRIP = " \t\n「」『』\"'[]【】()（）"


@dataclass(frozen=True)
class Example:
    """A labelled utterance for the prompt."""

    context: str
    utterance: str
    act: str


def act_schema(taxonomy: Taxonomy) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"act": {"type": "string", "enum": taxonomy.names}},
        "required": ["act"],
    }


def system_prompt(taxonomy: Taxonomy, examples: Sequence[Example]) -> str:
    """Definitions, examples and the output format, in Japanese."""
    lines = [
        "あなたは日本語の会話の対話行為を判定するアノテーターです。",
        "「判定する発話」の対話行為を、次の中から一つだけ選んでください。「直前の発話」は"
        "文脈として示すだけで、判定の対象ではありません。",
        "",
    ]
    for a in taxonomy.acts:
        lines.append(f"- {a.name}（{a.en}）: {a.definition}")
    if examples:
        lines += ["", "例:"]
        for e in examples:
            lines.append(f'{user_prompt(e.context, e.utterance)}\n→ {{"act": "{e.act}"}}')
    lines += ["", '出力は JSON だけにしてください: {"act": "<対話行為名>"}']
    return "\n".join(lines)


def user_prompt(context: str, utterance: str) -> str:
    return f"直前の発話: {context or '（なし）'}\n判定する発話: {utterance}"


@dataclass(frozen=True)
class ParsedAct:
    act: str
    repairs: dict[str, int] = field(default_factory=dict)


def parse_act(text: str, taxonomy: Taxonomy) -> ParsedAct:
    """The act in a model's answer; ``ValueError`` with a one-line reason when there is none."""
    try:
        data = extract_json(text)
    except ValueError:
        named = {a.name for a in taxonomy.acts if a.name in text}
        if len(named) == 1:
            return ParsedAct(named.pop(), {ACT_FROM_TEXT: 1})
        raise
    raw = data.get("act") if isinstance(data, dict) else None
    if not isinstance(raw, str):
        raise ValueError("field 'act': expected a string naming one act")
    if raw in taxonomy.names:
        return ParsedAct(raw)
    act = taxonomy.canonical(raw.strip(_STRIP))
    if act is None:
        raise ValueError(f"field 'act': expected one of the {taxonomy.name} acts {taxonomy.names}")
    return ParsedAct(act, {ALIAS_ACT: 1})


def count(repairs: dict[str, int], kind: str, n: int = 1) -> None:
    repairs[kind] = repairs.get(kind, 0) + n


class TagPrompt:
    """Builds the requests of one taxonomy and example set."""

    def __init__(self, taxonomy: Taxonomy, examples: Sequence[Example], params: GenerationParams):
        from taiwa.models.types import ChatMessage

        self.taxonomy = taxonomy
        self.params = params.model_copy(update={"json_schema": act_schema(taxonomy)})
        self.system = ChatMessage(role="system", content=system_prompt(taxonomy, examples))

    def request(self, rid: str, context: str, utterance: str) -> ChatRequest:
        from taiwa.models.types import ChatMessage, ChatRequest

        user = ChatMessage(role="user", content=user_prompt(context, utterance))
        return ChatRequest(id=rid, messages=[self.system, user], params=self.params)


class LLMTagger:
    """``tag_many`` through a chat model outside a run (``taiwa validate tagger SPEC``):
    re-asks invalid answers up to ``attempts`` times (a request that got no reply is not asked
    again: its retries are spent, as in a run); ``repairs`` counts by kind."""

    def __init__(self, model: ChatModel, spec: str, prompt: TagPrompt, attempts: int = 2) -> None:
        self.model = model
        self.name = spec
        self.spec = spec
        self.prompt = prompt
        self.acts = tuple(prompt.taxonomy.names)
        self.attempts = attempts
        self.repairs: dict[str, int] = {}

    def tag_many(self, contexts: Sequence[str], replies: Sequence[str]) -> list[str | None]:
        from taiwa.models.json_replies import generate_json

        requests = [
            self.prompt.request(f"tag-{k}", c, r)
            for k, (c, r) in enumerate(zip(contexts, replies, strict=True))
        ]
        outcomes = asyncio.run(
            generate_json(
                self.model,
                requests,
                lambda text: parse_act(text, self.prompt.taxonomy),
                attempts=self.attempts,
                reask_failed=False,
            )
        )
        out: list[str | None] = []
        for o in outcomes:
            if o.attempts > 1:
                count(self.repairs, RE_ASKED, o.attempts - 1)
            if o.value is None:
                count(self.repairs, INVALID)
                out.append(None)
                continue
            for kind, n in o.value.repairs.items():
                count(self.repairs, kind, n)
            out.append(o.value.act)
        return out
