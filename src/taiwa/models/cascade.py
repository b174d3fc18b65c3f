"""``cascade:ASR+LLM``: a cascaded speech system (DESIGN.md, SPECs): the ASR transcribes each
audio part, the transcript takes the audio's place in the message, and any text
:class:`~taiwa.models.base.ChatModel` answers (seed 000 §4 compares such systems with
end-to-end audio models).

Recognition runs in one worker thread, one file at a time, while the text model answers the
requests already transcribed (up to its own concurrency). Each reply carries, in
``ChatResponse.meta``, the ``transcript``, the ``asr_seconds`` recognition took and the
``audio_seconds`` heard; the response cache stores them with the reply and the generate stage
writes them into ``responses.jsonl``. A request without audio goes to the text model as is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from taiwa.core.errors import EndpointError
from taiwa.core.redact import redact
from taiwa.models.asr import ASR
from taiwa.models.base import ChatModel, OnResponse
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, ContentPart

Meta = dict[str, object]


def transcribed(request: ChatRequest, asr: ASR) -> tuple[ChatRequest, Meta | None]:
    """``request`` with every audio part replaced by its transcript, and what was recorded."""
    if not any(m.has_audio for m in request.messages):
        return request, None
    texts: list[str] = []
    seconds = audio_seconds = 0.0
    messages: list[ChatMessage] = []
    for m in request.messages:
        if not m.has_audio or isinstance(m.content, str):
            messages.append(m)
            continue
        parts: list[ContentPart] = []
        for p in m.content:
            if p.type != "audio":
                parts.append(p)
                continue
            heard = asr.transcribe(p.audio_path or "")
            texts.append(heard.text)
            seconds += heard.seconds
            audio_seconds += heard.audio_seconds
            parts.append(ContentPart(type="text", text=heard.text))
        messages.append(m.model_copy(update={"content": parts}))
    meta: Meta = {
        "transcript": "\n".join(texts),
        "asr_seconds": round(seconds, 4),
        "audio_seconds": round(audio_seconds, 4),
    }
    return request.model_copy(update={"messages": messages}), meta


class CascadeModel:
    """An ASR followed by a text chat model; answers audio requests as a speech system."""

    backend = "cascade"
    cacheable = True

    def __init__(self, asr: ASR, llm: ChatModel) -> None:
        self.asr = asr
        self.llm = llm
        self.model_id = f"{asr.name}+{llm.model_id}"
        self.identity = f"{asr.identity}|{llm.backend}|{llm.identity}"
        self.concurrency = max(1, int(getattr(llm, "concurrency", 1)))

    async def check(self) -> None:
        """The text model's own check; the ASR model is loaded here, before the first sample."""
        await self.llm.check()
        load = getattr(self.asr, "model", None)
        if callable(load):
            await asyncio.to_thread(load)

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        """Replies in request order: each request transcribed, then answered by the text
        model; a request whose audio cannot be recognised fails alone (its error says why)."""
        replies: list[ChatResponse | None] = [None] * len(requests)
        queue: asyncio.Queue[tuple[int, ChatRequest, Meta | None] | None] = asyncio.Queue(
            maxsize=2 * self.concurrency
        )
        workers = min(self.concurrency, len(requests))

        def done(i: int, res: ChatResponse) -> None:
            replies[i] = res
            if on_response is not None:
                on_response(res)

        async def hear() -> None:
            for i, req in enumerate(requests):
                try:
                    text_req, meta = await asyncio.to_thread(transcribed, req, self.asr)
                except EndpointError:
                    raise
                except Exception as exc:  # recorded per sample, never dropped
                    error = redact(f"ASR: {type(exc).__name__}: {exc}")
                    done(i, ChatResponse(id=req.id, error=error))
                    continue
                await queue.put((i, text_req, meta))
            for _ in range(workers):
                await queue.put(None)

        async def answer() -> None:
            while (item := await queue.get()) is not None:
                i, req, meta = item
                res = (await self.llm.generate([req]))[0]
                done(i, res.model_copy(update={"meta": meta}) if meta else res)

        tasks = [asyncio.ensure_future(hear())]
        tasks += [asyncio.ensure_future(answer()) for _ in range(workers)]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return [r for r in replies if r is not None]
