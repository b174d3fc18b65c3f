"""``openai:MODEL``: any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server, Ollama).

Uses the official async client with its own retries turned off: we retry 429, 5xx, timeouts,
connection errors and unparsable bodies with exponential backoff and jitter (tenacity), bound
concurrency with a semaphore and optionally limit requests per minute.
"""

from __future__ import annotations

import asyncio
import base64
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taiwa.errors import TaiwaError
from taiwa.models.base import ConcurrentModel, OnResponse
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class RateLimiter:
    """At most ``rpm`` request starts per minute (evenly spaced)."""

    def __init__(self, rpm: float | None) -> None:
        self.interval = 60.0 / rpm if rpm else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self._lock:
            now = time.monotonic()
            delay = self._next - now
            self._next = max(now, self._next) + self.interval
        if delay > 0:
            await asyncio.sleep(delay)


def _message(m: ChatMessage) -> dict[str, Any]:
    if isinstance(m.content, str):
        return {"role": m.role, "content": m.content}
    parts: list[dict[str, Any]] = []
    for p in m.content:
        if p.type == "text":
            parts.append({"type": "text", "text": p.text or ""})
        else:
            data = base64.b64encode(Path(p.audio_path or "").read_bytes()).decode("ascii")
            parts.append({"type": "input_audio", "input_audio": {"data": data, "format": "wav"}})
    return {"role": m.role, "content": parts}


def _content(body: Any) -> str | None:
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"unexpected chat completion body: {str(body)[:200]}") from None
    return None if content is None else str(content)


class OpenAICompatModel(ConcurrentModel):
    """Chat completions over HTTP. The API key comes from ``OPENAI_API_KEY`` (never stored)."""

    backend = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        concurrency: int = 16,
        rpm: float | None = None,
        timeout: float = 60.0,
        max_retries: int = 5,
        backoff: float = 0.5,
    ) -> None:
        import openai

        self.model_id = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.backoff = backoff
        self.limiter = RateLimiter(rpm)
        self.timeout = timeout
        self._openai = openai
        self.client: Any = None

    def _new_client(self) -> Any:
        # aiohttp as the transport (the SDK's `openai[aiohttp]` option) scales to high
        # concurrency far better than the default pool (benchmarks/runner_overhead.py).
        return self._openai.AsyncOpenAI(
            base_url=self.base_url,
            api_key=os.environ.get("OPENAI_API_KEY") or "EMPTY",
            timeout=self.timeout,
            max_retries=0,
            http_client=self._openai.DefaultAioHttpClient(timeout=self.timeout),
        )

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        """As :meth:`ConcurrentModel.generate`, with one HTTP client per batch, closed after."""
        async with self._new_client() as client:
            self.client = client
            try:
                return await super().generate(requests, on_response=on_response)
            finally:
                self.client = None

    def _retryable(self, exc: BaseException) -> bool:
        o = self._openai
        if isinstance(exc, o.APIStatusError):
            return bool(exc.status_code == 429 or exc.status_code >= 500)
        return isinstance(
            exc,
            o.APITimeoutError | o.APIConnectionError | o.APIResponseValidationError | ValueError,
        )

    async def check(self) -> None:
        """Fail early, with what to fix, when the server cannot be reached at all."""
        try:
            async with self._new_client() as client:
                await client.models.list()
        except self._openai.APIConnectionError as exc:
            raise TaiwaError(
                f"cannot reach the OpenAI-compatible server at {self.base_url} "
                f"({exc.__cause__ or exc}); is it running? check --base-url"
            ) from None
        except self._openai.AuthenticationError:
            raise TaiwaError(f"{self.base_url} rejected the API key: set OPENAI_API_KEY") from None
        except self._openai.APIError:
            pass  # some servers have no /models; the requests themselves will tell

    async def _complete(self, request: ChatRequest) -> str:
        from tenacity import (
            AsyncRetrying,
            retry_if_exception,
            stop_after_attempt,
            wait_random_exponential,
        )

        p = request.params
        kwargs: dict[str, Any] = {
            "model": self.model_id,
            "messages": [_message(m) for m in request.messages],
            "temperature": p.temperature,
            "max_tokens": p.max_tokens,
            "seed": p.seed,
        }
        if p.stop:
            kwargs["stop"] = p.stop
        if p.json_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "output", "schema": p.json_schema},
            }
        async for attempt in AsyncRetrying(
            retry=retry_if_exception(self._retryable),
            wait=wait_random_exponential(multiplier=self.backoff, max=30),
            stop=stop_after_attempt(self.max_retries + 1),
            reraise=True,
        ):
            with attempt:
                await self.limiter.wait()
                # The client's generic POST skips the SDK's per-field transform of the request and
                # its pydantic model of the reply, which dominate CPU at high concurrency.
                body = await self.client.post("/chat/completions", body=kwargs, cast_to=dict)
                content = _content(body)
                if content is None:
                    raise ValueError("the server returned no message content")
                return content
        raise AssertionError("unreachable")  # pragma: no cover
