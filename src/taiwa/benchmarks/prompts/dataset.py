"""The ``prompts`` dataset: ``{"id", "prompt", "system"?, "reference"?}`` or
``{"id", "messages": [...], "reference"?}`` per line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from taiwa.core.errors import InputError
from taiwa.core.io import iter_records, shown, unique_ids
from taiwa.core.schema import Id, NonBlank, non_blank
from taiwa.models.types import ChatMessage


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
    WAV file with samples in it (checked here, before any model call)."""
    return unique_ids(path, _audio_checked(path, iter_records(path, PromptSample)))


def _audio_checked(
    path: Path, records: Iterator[tuple[int, PromptSample]]
) -> Iterator[tuple[int, PromptSample]]:
    for number, sample in records:
        for i, message in enumerate(sample.messages or ()):
            if isinstance(message.content, str):
                continue
            for j, part in enumerate(message.content):
                if part.type == "audio":
                    _check_audio(path, number, f"messages[{i}].content[{j}]", part.audio_path)
        yield number, sample


def _check_audio(path: Path, line: int, where: str, audio: str | None) -> None:
    from taiwa.speech.wav import AudioFormatError, check_wav_with_audio

    if audio is None:
        raise InputError(str(path), line, f"{where}.audio_path", "a WAV path", None)
    try:
        check_wav_with_audio(audio)
    except AudioFormatError as exc:
        raise InputError(str(path), line, f"{where}.audio_path", str(exc), shown(audio)) from None


def load_prompts(path: Path) -> list[PromptSample]:
    """Every sample of ``path`` (see :func:`iter_prompts`)."""
    return list(iter_prompts(path))
