"""Chat requests and responses shared by every model backend."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def audio_sha256(path: str) -> str:
    """SHA-256 of an audio file's bytes (what a request's audio is keyed by in the cache); a
    file that cannot be read raises :class:`~taiwa.core.errors.TaiwaError` naming it."""
    from taiwa.core.errors import TaiwaError

    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise TaiwaError(f"audio file {path}: {exc.strerror or exc}") from None


_KEY_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))
"""The cache key's canonical JSON (one encoder, not one per call)."""


class ContentPart(BaseModel):
    """A piece of user content: text, or audio (a WAV file path) for speech models."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["text", "audio"]
    text: str | None = None
    audio_path: str | None = None


class ChatMessage(BaseModel):
    """One chat message; ``content`` is text or a list of text/audio parts."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str | list[ContentPart]

    @property
    def text(self) -> str:
        """The text of the message (text parts joined; audio parts are skipped)."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text or "" for p in self.content if p.type == "text")

    @property
    def has_audio(self) -> bool:
        return not isinstance(self.content, str) and any(p.type == "audio" for p in self.content)


class GenerationParams(BaseModel):
    """Sampling parameters; ``json_schema`` asks for JSON output where the backend supports it."""

    model_config = ConfigDict(extra="forbid")

    temperature: float = Field(0.0, ge=0.0)
    max_tokens: int = Field(512, ge=1)
    seed: int = 0
    stop: list[str] | None = None
    json_schema: dict[str, Any] | None = None


class ChatRequest(BaseModel):
    """A request for one sample: its id, the conversation so far and the parameters."""

    model_config = ConfigDict(extra="forbid")

    id: str
    messages: list[ChatMessage]
    params: GenerationParams = Field(default_factory=GenerationParams)

    def cache_key(self, backend: str, model: str) -> str:
        """SHA-256 of everything that determines the reply (not the sample id): the backend,
        the model's identity (``model``), the parameters and the messages; an audio part counts
        by the SHA-256 of its file's bytes, never by its path (a changed file is a new request).
        """
        payload = self.model_dump(mode="json", include={"params", "messages"})
        for message in payload["messages"]:
            if isinstance(message["content"], list):
                for part in message["content"]:
                    if part.get("audio_path") is not None:
                        part["audio_sha256"] = audio_sha256(part.pop("audio_path"))
        payload["backend"] = backend
        payload["model"] = model
        text = _KEY_ENCODER.encode(payload)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def last_user_text(self) -> str:
        for m in reversed(self.messages):
            if m.role == "user":
                return m.text
        return ""


class Usage(BaseModel):
    """Tokens one reply cost: ``prompt_tokens`` in, ``completion_tokens`` out, as the server's
    ``usage`` reports them or as a local backend counted them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)


class Reply(BaseModel):
    """What a backend's ``_complete`` may return instead of bare text: the text and its usage."""

    model_config = ConfigDict(extra="forbid")

    text: str
    usage: Usage | None = None


class ChatResponse(BaseModel):
    """The reply to one request, or the reason it failed (``error``); never silently dropped."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str | None = None
    error: str | None = None
    cached: bool = False
    latency_s: float | None = None
    meta: dict[str, Any] | None = None
    """What a composite model records beside the reply (a cascade: the transcript and the
    ASR seconds); cached with the reply, written into the stage's row."""
    usage: Usage | None = None
    """The tokens the reply cost (``None``: the backend did not say); cached with the reply,
    so a cached reply reports the tokens it cost when it was made."""
    retries: int = 0
    """Requests the backend repeated for this one (a 5xx, 429, timeout or dropped connection:
    :class:`~taiwa.models.base.Tally`); 0 for a reply served from the cache."""

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None
