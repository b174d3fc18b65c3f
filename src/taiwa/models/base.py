"""The :class:`ChatModel` protocol and a base class that runs requests concurrently."""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from taiwa.core.errors import EndpointError
from taiwa.core.redact import redact
from taiwa.models.types import ChatRequest, ChatResponse, Reply

OnResponse = Callable[[ChatResponse], None]


@dataclass
class Tally:
    """Requests a backend made on its own, beyond one per request it was handed: ``retries``
    (an attempt repeated after a 5xx, 429, timeout or dropped connection) and ``probes``
    (requests a server refused while the backend looked for a structured-output mode it
    accepts, e.g. llama_cpp.server's HTTP 500 to ``json_schema``)."""

    retries: int = 0
    probes: int = 0


TALLY: ContextVar[Tally | None] = ContextVar("taiwa_tally", default=None)
"""Where the backend counts the requests it makes on its own: set by the caller (the run's
per-role counts) around ``generate``; the backend's worker tasks inherit it."""


def tally(retries: int = 0, probes: int = 0) -> None:
    """Count requests a backend made on its own in the caller's :data:`TALLY` (if any)."""
    t = TALLY.get()
    if t is not None:
        t.retries += retries
        t.probes += probes


@runtime_checkable
class ChatModel(Protocol):
    """Anything that answers chat requests.

    ``backend`` and ``model_id`` name the model in run directories; ``identity`` is everything
    besides the request that determines its replies (endpoint and model name, the SHA-256 of the
    weights, backend settings): the response cache keys on it, so a changed model never gets
    another's cached replies.
    ``generate`` returns one response per request, in order; a failed request becomes a
    response with ``error`` set. ``on_response`` is called as each response completes.
    ``check`` fails early (one-line :class:`~taiwa.core.errors.TaiwaError`) when the model cannot
    answer at all; ``cacheable`` is false for models that only read answers from a file.
    """

    backend: str
    model_id: str
    identity: str
    cacheable: bool

    async def check(self) -> None: ...

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]: ...


def refuse_audio(request: ChatRequest, spec: str) -> None:
    """Stop the run (one line) when a text-only backend is handed audio, rather than answer
    the text around it as if the audio were not there."""
    if any(m.has_audio for m in request.messages):
        raise EndpointError(
            f"{spec} takes text only but was given audio: use an audio chat model (openai:MODEL) "
            "or a cascade (cascade:whisper-base+LLM)"
        )


class ConcurrentModel(ABC):
    """Base for backends: subclasses implement :meth:`_complete` for one request.

    Up to ``concurrency`` requests run at once; exceptions become per-request errors.
    """

    backend: str
    model_id: str
    identity: str
    concurrency = 1
    cacheable = True
    #: the backend reports the tokens each reply cost (``ChatResponse.usage``; a reply
    #: without it counts as unknown); false for models that are not token-based
    counts_tokens = False

    async def check(self) -> None:  # noqa: B027 - optional hook, a no-op unless overridden
        """Nothing to check for in-process backends."""

    @abstractmethod
    async def _complete(self, request: ChatRequest) -> str | Reply:
        """The reply text for one request, or a :class:`Reply` with the tokens it cost (raise
        to record an error for it)."""

    def _limit(self) -> tuple[asyncio.Semaphore, list[EndpointError]]:
        """The model's request limit in the running event loop, shared by every ``generate``
        call on it at once (e.g. one judge serving every system's stage, a SPEC used by two
        roles, or a stage's two waves): ``concurrency`` requests in flight per model, not per
        call; and the endpoint's refusal, once one came, so that no call sends more."""
        loop = asyncio.get_running_loop()
        held = self.__dict__.get("_limit_in")
        if held is None or held[0] is not loop:
            held = (loop, asyncio.Semaphore(max(1, self.concurrency)), [])
            self.__dict__["_limit_in"] = held
        return held[1], held[2]

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        """Replies in request order. ``concurrency`` workers take the requests one by one (no
        task per request: a chunk of thousands costs no more memory than its requests), each
        request within the model's shared limit (:meth:`_limit`)."""
        replies: list[ChatResponse | None] = [None] * len(requests)
        todo = iter(enumerate(requests))
        limit, fatal = self._limit()

        async def worker() -> None:
            for i, req in todo:  # shared: each request goes to exactly one worker
                async with limit:
                    res = await one(req)
                replies[i] = res
                if on_response is not None:
                    on_response(res)

        async def one(req: ChatRequest) -> ChatResponse:
            if fatal:  # no new request once the endpoint has refused to serve
                raise fatal[0]
            start = time.perf_counter()
            mine = Tally()  # this request's own retries, handed on to the caller's tally
            outer = TALLY.set(mine)
            try:
                got = await self._complete(req)
                reply = got if isinstance(got, Reply) else Reply(text=got)
                return ChatResponse(
                    id=req.id,
                    text=reply.text,
                    usage=reply.usage,
                    latency_s=time.perf_counter() - start,
                    retries=mine.retries,
                )
            except EndpointError as exc:
                fatal.append(exc)
                raise  # the endpoint cannot serve any request: the run stops
            except Exception as exc:  # recorded per sample, never dropped
                return ChatResponse(
                    id=req.id, error=redact(f"{type(exc).__name__}: {exc}"), retries=mine.retries
                )
            finally:
                TALLY.reset(outer)
                tally(mine.retries, mine.probes)

        workers = [
            asyncio.ensure_future(worker())
            for _ in range(min(max(1, self.concurrency), len(requests)))
        ]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for t in workers:  # the others stop too (their finished replies are already cached)
                t.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        return [r for r in replies if r is not None]
