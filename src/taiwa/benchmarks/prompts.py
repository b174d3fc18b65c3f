"""``prompts``: the smallest benchmark, a list of chat prompts with optional reference replies.

It exercises the harness end to end: each reply is scored by its length, its share of Japanese
characters and, when a reference is given, Japanese ROUGE-1/2/L against it (seed 001, 簡易評価).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taiwa.io import read_records
from taiwa.metrics import rouge_ja
from taiwa.metrics.stats import bootstrap_ci
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, GenerationParams
from taiwa.samples import sample_path

from .base import Scored

_JA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")
_VISIBLE = re.compile(r"\S")


class PromptSample(BaseModel):
    """``{"id", "prompt", "system"?, "reference"?}`` or ``{"id", "messages": [...]}``."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1)
    prompt: str | None = None
    system: str | None = None
    messages: list[ChatMessage] | None = None
    reference: str | None = None

    @model_validator(mode="after")
    def _prompt_or_messages(self) -> PromptSample:
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("expected exactly one of 'prompt' (text) or 'messages' (a chat)")
        return self

    def chat(self) -> list[ChatMessage]:
        if self.messages is not None:
            return self.messages
        head = [ChatMessage(role="system", content=self.system)] if self.system else []
        return [*head, ChatMessage(role="user", content=self.prompt or "")]


def japanese_share(text: str) -> float:
    """Share of visible characters that are kana or kanji."""
    visible = len(_VISIBLE.findall(text))
    return len(_JA.findall(text)) / visible if visible else 0.0


class PromptsBenchmark:
    name = "prompts"
    prompts: dict[str, str] = {}  # noqa: RUF012 - the prompts are the data

    def default_data(self) -> Path:
        return sample_path("prompts/tiny.jsonl")

    def load(self, path: Path) -> list[PromptSample]:
        return [rec for _, rec in read_records(path, PromptSample)]

    def requests(
        self, samples: Sequence[PromptSample], params: GenerationParams
    ) -> list[ChatRequest]:
        return [ChatRequest(id=s.id, messages=s.chat(), params=params) for s in samples]

    def score(
        self,
        samples: Sequence[PromptSample],
        responses: Sequence[ChatResponse],
        seed: int,
        annotations: Sequence[object] | None = None,
    ) -> Scored:
        rows = []
        for s, r in zip(samples, responses, strict=True):
            row: dict[str, object] = {"id": s.id, "ok": r.ok}
            if not r.ok or r.text is None:
                row["error"] = r.error
            else:
                row.update(chars=len(r.text), japanese_share=japanese_share(r.text))
                if s.reference is not None:
                    row.update(rouge_ja(r.text, s.reference).as_dict())
            rows.append(row)
        ok = [row for row in rows if row["ok"]]
        summary: dict[str, object] = {"n": len(rows), "errors": len(rows) - len(ok)}
        for key in ("chars", "japanese_share", "rouge1", "rouge2", "rougeL"):
            values = [float(row[key]) for row in ok if key in row]  # type: ignore[arg-type]
            if values:
                summary[key] = bootstrap_ci(values, seed=seed).as_dict()
        return Scored(rows, summary)
