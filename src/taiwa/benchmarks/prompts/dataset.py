"""The ``prompts`` dataset: ``{"id", "prompt", "system"?, "reference"?}`` or
``{"id", "messages": [...], "reference"?}`` per line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from taiwa.core.errors import InputError
from taiwa.core.io import iter_records, unique_ids
from taiwa.core.schema import Id, NonBlank, non_blank
from taiwa.models.types import ChatMessage
from taiwa.speech.wav_check import BENCHMARK_AUDIO

AUDIO = BENCHMARK_AUDIO
"""What a system hears in an audio part: the benchmark format of seed 000 §3.3 (24 kHz / 16-bit
/ mono, at most 120 s a file), checked as in every method; another format is refused."""


class PromptSample(BaseModel):
    """One chat prompt with an optional reference reply."""

    model_config = ConfigDict(extra="ignore")

    id: Id
    prompt: NonBlank | None = None
    system: NonBlank | None = None
    messages: list[ChatMessage] | None = Field(None, min_length=1)
    reference: NonBlank | None = None

    @field_validator("messages")
    @classmethod
    def _a_chat(cls, messages: list[ChatMessage] | None) -> list[ChatMessage] | None:
        """Every message says something (text or audio), and a user speaks."""
        if messages is None:
            return None
        for i, m in enumerate(messages):
            if not m.has_audio:
                try:
                    non_blank(m.text)
                except ValueError as exc:
                    raise ValueError(f"message {i}: {exc}") from None
        if not any(m.role == "user" for m in messages):
            raise ValueError("a chat with at least one 'user' message")
        return messages

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


def iter_prompts(path: Path) -> Iterator[PromptSample]:
    """Read and validate one sample at a time; ids must be unique; every audio part must be a
    WAV in the format of :data:`AUDIO` (checked here, before any model call, the same way as in
    every method) and its path becomes absolute (a relative one is read from the dataset's
    folder)."""
    return unique_ids(path, _audio_checked(path, iter_records(path, PromptSample)))


def _audio_checked(
    path: Path, records: Iterator[tuple[int, PromptSample]]
) -> Iterator[tuple[int, PromptSample]]:
    for number, sample in records:
        if sample.messages is not None and any(m.has_audio for m in sample.messages):
            sample = sample.model_copy(
                update={
                    "messages": [_heard(path, number, i, m) for i, m in enumerate(sample.messages)]
                }
            )
        yield number, sample


def _heard(path: Path, line: int, i: int, message: ChatMessage) -> ChatMessage:
    """``message`` with each audio part checked and its path made absolute."""
    from taiwa.speech.wav_check import checked_audio

    if isinstance(message.content, str):
        return message
    parts = []
    for j, part in enumerate(message.content):
        if part.type == "audio":
            where = f"messages[{i}].content[{j}].audio_path"
            if part.audio_path is None:
                raise InputError(str(path), line, where, "a WAV path", None)
            wav = checked_audio(path, line, where, part.audio_path, AUDIO)
            part = part.model_copy(update={"audio_path": str(wav)})
        parts.append(part)
    return message.model_copy(update={"content": parts})


def load_prompts(path: Path) -> list[PromptSample]:
    """Every sample of ``path`` (see :func:`iter_prompts`)."""
    return list(iter_prompts(path))
