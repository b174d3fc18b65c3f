"""The ``prompts`` dataset: ``{"id", "prompt", "system"?, "reference"?}`` or
``{"id", "messages": [...], "reference"?}`` per line."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taiwa.io import index_by_id, read_records
from taiwa.models.types import ChatMessage


class PromptSample(BaseModel):
    """One chat prompt with an optional reference reply."""

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


def load_prompts(path: Path) -> list[PromptSample]:
    """Read and validate; ids must be unique."""
    records = read_records(path, PromptSample)
    index_by_id(path, records)
    return [rec for _, rec in records]
