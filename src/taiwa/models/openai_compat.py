"""``openai:MODEL``: any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server, Ollama).

The protocol side: how a request becomes the body of a chat completion, over the transport of
:mod:`taiwa.models.openai_transport` (sessions, retries, endpoint checks).

* Content: text-only messages go out with ``content`` as a string (llama.cpp-style chat templates
  fail on a list of parts); a list of parts is sent only when a message carries audio.
* Structured output (``params.json_schema``): ``response_format`` ``json_schema`` (OpenAI, vLLM),
  else ``json_object`` with ``schema`` (llama-cpp-python's server), else none (plain prompting;
  the caller validates). The first structured request probes while the others wait; the mode the
  endpoint accepted is kept in :attr:`OpenAICompatModel.structured_mode` for the rest of the run.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from pathlib import Path
from typing import Any, Literal

from taiwa.models.base import tally
from taiwa.models.openai_errors import FormatRejected
from taiwa.models.openai_transport import OpenAITransport, _dumps
from taiwa.models.types import ChatMessage, ChatRequest, Reply

log = logging.getLogger(__name__)

StructuredMode = Literal["json_schema", "json_object", "none"]
#: ``response_format`` variants for ``params.json_schema``, in the order they are tried.
STRUCTURED_MODES: tuple[StructuredMode, ...] = ("json_schema", "json_object", "none")


def _message(m: ChatMessage) -> dict[str, Any]:
    content = m.content
    if isinstance(content, str):
        return {"role": m.role, "content": content}
    if not m.has_audio:
        # A string, not a list of text parts: llama.cpp-style chat templates expect a string
        # (llama-cpp-python's server answers HTTP 500 to a list).
        return {"role": m.role, "content": m.text}
    parts: list[dict[str, Any]] = []
    for p in content:
        if p.type == "text":
            parts.append({"type": "text", "text": p.text or ""})
        else:
            data = base64.b64encode(Path(p.audio_path or "").read_bytes()).decode("ascii")
            parts.append({"type": "input_audio", "input_audio": {"data": data, "format": "wav"}})
    return {"role": m.role, "content": parts}


def _response_format(mode: StructuredMode, schema: dict[str, Any]) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "output", "schema": schema}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


class OpenAICompatModel(OpenAITransport):
    """Chat completions over HTTP with structured-output negotiation (see the module
    docstring)."""

    def __init__(self, model: str, **transport: Any) -> None:
        super().__init__(model, **transport)
        #: The ``response_format`` variant this endpoint accepted (None until a structured
        #: request has succeeded); recorded by the run.
        self.structured_mode: StructuredMode | None = None
        self._rejected_modes: set[StructuredMode] = set()
        self._probe: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    async def _complete(self, request: ChatRequest) -> Reply:
        p = request.params
        body: dict[str, Any] = {
            "model": self.model_id,
            "messages": [_message(m) for m in request.messages],
            "temperature": p.temperature,
            "max_tokens": p.max_tokens,
            "seed": p.seed,
        }
        if p.stop:
            body["stop"] = p.stop
        if p.json_schema is None:
            return await self._post(_dumps(body), probing=False)
        return await self._structured(body, p.json_schema)

    async def _structured(self, body: dict[str, Any], schema: dict[str, Any]) -> Reply:
        """A structured request; the first one probes the modes while the others wait."""
        if self.structured_mode is None:
            loop = asyncio.get_running_loop()
            probe = self._probe
            if probe is None or probe[0] is not loop:
                event = asyncio.Event()
                self._probe = (loop, event)
                try:
                    return await self._negotiate(body, schema)
                finally:
                    self._probe = None
                    event.set()
            await probe[1].wait()
            # Decided, or the probe failed for another reason (e.g. the server is down): then
            # the waiters go on in parallel rather than one after another.
        return await self._negotiate(body, schema)

    async def _negotiate(self, body: dict[str, Any], schema: dict[str, Any]) -> Reply:
        while True:
            decided = self.structured_mode
            probing = decided is None
            mode: StructuredMode = (
                next(m for m in STRUCTURED_MODES if m not in self._rejected_modes)
                if decided is None
                else decided
            )
            fmt = _response_format(mode, schema)
            payload = _dumps(body if fmt is None else {**body, "response_format": fmt})
            try:
                text = await self._post(payload, probing=probing and fmt is not None)
            except FormatRejected as exc:
                log.info("%s rejects response_format %s: %s", self.base_url, mode, exc)
                self._rejected_modes.add(mode)
                tally(probes=1)
                continue
            if self.structured_mode is None:
                self.structured_mode = mode
                log.info("%s: structured output via response_format %s", self.base_url, mode)
            return text
