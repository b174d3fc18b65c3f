"""The HTTP side of ``openai:MODEL`` (DESIGN.md, OpenAI-compatible transport): a lean aiohttp
client for ``POST {base_url}/chat/completions`` (the official SDK costs about 1 ms of CPU per
request, too much at 64-way concurrency).

* Retries: 429, 408, 5xx, timeouts, connection errors and unusable bodies (not JSON, no
  ``choices[0].message.content``) are retried ``max_retries`` times with exponential backoff and
  full jitter (capped at 30 s, at least ``Retry-After``: delta-seconds or an HTTP date, itself
  cut to ``max_retry_wait``, with a note); any other 4xx is recorded at once; a
  server that cannot be reached is retried for ``retry_window`` seconds. After
  :data:`~taiwa.models.openai_errors.GIVE_UP_AFTER` requests in a row failed for good, the
  model stops (:class:`~taiwa.core.errors.EndpointError`), in a run as in ``taiwa validate``.
* 401/403/404 stop the run (:class:`~taiwa.core.errors.EndpointError`); a rejected
  ``response_format`` while probing is a :class:`FormatRejected` for the protocol side
  (:mod:`taiwa.models.openai_compat`) to try the next mode.
* ``aiohttp`` is imported only when a request is made, so importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import EndpointError, InputError, TaiwaError
from taiwa.core.io.json_doc import loads
from taiwa.core.redact import redact
from taiwa.models.base import ConcurrentModel, OnResponse, tally
from taiwa.models.openai_errors import (
    FailureStreak,
    FormatRejected,
    RequestFailed,
    _connect_error,
    _content_text,
    _error_text,
    _key_rejected,
    _retry_after,
    _unreachable,
)
from taiwa.models.queue_watch import QueueWatch
from taiwa.models.types import ChatRequest, ChatResponse, Reply, Usage

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    import aiohttp

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BACKOFF_CAP = 30.0  # seconds, the longest backoff between two attempts
MAX_RETRY_WAIT = 600.0
"""Seconds a request waits at most for one ``Retry-After`` by default (``--max-retry-wait``):
a longer one is cut to this, with a note saying so."""
RECONNECT_CAP = 5.0  # seconds between attempts to reach a server that refuses connections

_FORMAT_WORDS = ("response_format", "json_schema", "json_object")

# The HTTP session of the current generate() batch (a context variable: the model's shared
# session, see OpenAITransport.generate; None outside a batch).
_SESSION: ContextVar[aiohttp.ClientSession | None] = ContextVar(
    "taiwa_openai_session", default=None
)


class RateLimiter:
    """At most ``rpm`` request starts per minute (evenly spaced)."""

    def __init__(self, rpm: float | None) -> None:
        self.interval = 60.0 / rpm if rpm else 0.0
        self._next = 0.0

    async def wait(self) -> None:
        if not self.interval:
            return
        # No lock needed: nothing awaits between reading and advancing the slot, and the event
        # loop runs one coroutine at a time (a lock would also tie the limiter to one loop).
        now = time.monotonic()
        delay = self._next - now
        self._next = max(now, self._next) + self.interval
        if delay > 0:
            await asyncio.sleep(delay)


_BODY_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _dumps(body: dict[str, Any]) -> bytes:
    return _BODY_ENCODER.encode(body).encode("utf-8")


def _usage(body: Any) -> Usage | None:
    """The reply's ``usage`` (prompt and completion tokens), None when absent or malformed."""
    got = body.get("usage") if isinstance(body, dict) else None
    if not isinstance(got, dict):
        return None
    tokens = got.get("prompt_tokens"), got.get("completion_tokens")
    if not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in tokens):
        return None
    return Usage(prompt_tokens=tokens[0], completion_tokens=tokens[1])


def checked_base_url(url: str) -> str:
    """The base URL, refused (one line, credentials masked) unless it is http(s)://host… with
    no ``user:password@`` (the key goes in ``OPENAI_API_KEY``, never into files or logs)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
        if ok and parts.hostname:  # a name DNS can hold (a label of 64+ characters crashed)
            parts.hostname.encode("idna")
            ok = len(parts.hostname) <= 253
    except (ValueError, UnicodeError):
        ok = False
    if not ok:
        raise TaiwaError(
            f"bad --base-url {redact(url)[:200]!r}: expected http(s)://HOST[:PORT]/PATH, "
            "e.g. http://localhost:8000/v1"
        )
    if parts.username is not None or parts.password is not None:
        raise TaiwaError(
            f"--base-url {redact(url)!r} carries credentials: put the key in OPENAI_API_KEY "
            "instead (it is sent as a Bearer token and never written anywhere)"
        )
    return url


def _endpoint(base_url: str, path: str) -> str:
    """``base_url`` with ``/path`` appended to its path; a query (``?api-version=…``) kept."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=f"{parts.path.rstrip('/')}/{path}"))


@dataclass
class _Shared:
    """A model's HTTP session in one event loop and the batches using it now."""

    session: aiohttp.ClientSession
    users: int = 0
    loop: asyncio.AbstractEventLoop = field(default_factory=asyncio.get_running_loop)


class OpenAITransport(ConcurrentModel):
    """Chat completions over HTTP: sessions, retries, the endpoint check. The API key comes from
    ``OPENAI_API_KEY`` (never stored)."""

    backend = "openai"
    counts_tokens = True

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
        retry_window: float = 120.0,
        max_retry_wait: float = MAX_RETRY_WAIT,
    ) -> None:
        self.model_id = model
        base = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.base_url = checked_base_url(base.rstrip("/"))
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.backoff = backoff
        #: seconds during which a request whose server cannot be reached keeps being retried
        #: (beyond ``max_retries``), so that a restart of the serving engine loses nothing
        self.retry_window = retry_window
        #: the longest wait for one ``Retry-After``; longer ones are cut to it (noted once)
        self.max_retry_wait = max_retry_wait
        self.retry_waits_cut = 0
        self.limiter = RateLimiter(rpm)
        #: requests that failed for good in a row: :data:`GIVE_UP_AFTER` of them stop the model
        self.streak = FailureStreak(self.base_url)
        self.timeout = timeout
        #: HTTP requests made (every attempt counts), for tests and run statistics.
        self.http_requests = 0
        #: timeouts that came from waiting for a free slot of the server (:meth:`run_notes`)
        self.queue = QueueWatch(redact(self.base_url), self.timeout, concurrency)
        self._chat_url = _endpoint(self.base_url, "chat/completions")
        self.identity = f"{redact(self.base_url)}|{model}"

    # -- HTTP session -------------------------------------------------------------------------

    @staticmethod
    def _headers() -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get("OPENAI_API_KEY")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _session(self, timeout: float, limit: int) -> aiohttp.ClientSession:
        import aiohttp

        return aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=max(1, limit)),
            headers=self._headers(),
            timeout=aiohttp.ClientTimeout(total=timeout),
        )

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        """As :meth:`ConcurrentModel.generate`, on the model's HTTP session: opened by the
        first batch, shared by the batches running at once (one pool of connections, within
        the model's ``concurrency`` as its requests are), closed when the last one ends."""
        session = self._join_session()
        token = _SESSION.set(session)
        try:
            return await super().generate(requests, on_response=on_response)
        finally:
            _SESSION.reset(token)
            await self._leave_session(session)

    def _join_session(self) -> aiohttp.ClientSession:
        shared: _Shared | None = self.__dict__.get("_shared")
        if shared is None or shared.loop is not asyncio.get_running_loop():
            shared = _Shared(self._session(self.timeout, self.concurrency))
            self.__dict__["_shared"] = shared
        shared.users += 1
        return shared.session

    async def _leave_session(self, session: aiohttp.ClientSession) -> None:
        shared: _Shared | None = self.__dict__.get("_shared")
        if shared is not None and shared.session is session:
            shared.users -= 1
            if shared.users > 0:
                return
            del self.__dict__["_shared"]
        await session.close()

    async def check(self) -> None:
        """Fail early, with what to fix, when the server cannot be reached or refuses the key."""
        import aiohttp

        url = _endpoint(self.base_url, "models")
        timeout = min(self.timeout, 30.0)
        try:
            async with self._session(timeout, 1) as session, session.get(url) as resp:
                status = resp.status
                raw = await resp.read()
        except TimeoutError:
            raise EndpointError(
                f"cannot reach the OpenAI-compatible server at {self.base_url} (no answer to "
                f"GET /models within {timeout} s); is it running? check --base-url"
            ) from None
        except aiohttp.ClientError as exc:
            raise EndpointError(
                f"cannot reach the OpenAI-compatible server at {self.base_url} "
                f"({_connect_error(exc, url)}); is it running? check --base-url"
            ) from None
        if status in (401, 403):
            raise EndpointError(_key_rejected(self.base_url, status, _error_text(raw)))
        # 404 or anything else: some servers have no /models; the requests themselves will tell.

    # -- one request ---------------------------------------------------------------------

    async def _post(self, payload: bytes, *, probing: bool) -> Reply:
        """POST one chat completion, retrying what may succeed on another attempt: up to
        ``max_retries`` times (never before a ``Retry-After``), and for as long as
        ``retry_window`` while the server cannot be reached."""
        session = _SESSION.get()
        if session is None:
            raise RuntimeError("OpenAICompatModel requests run inside generate()")
        attempt = 0  # attempts that got an answer (or timed out)
        reconnects = 0  # attempts that could not reach the server, in a row
        down_since: float | None = None
        while True:
            await self.limiter.wait()
            try:
                reply = await self._attempt(session, payload, probing)
                self.streak.answered()
                return reply
            except RequestFailed as exc:
                if not exc.retryable:
                    raise
                now = time.monotonic()
                down_since = (down_since or now) if exc.connection else None
                reconnects = reconnects + 1 if exc.connection else 0
                try:
                    delay = self._retry_delay(
                        exc, reconnects if exc.connection else attempt, now - (down_since or now)
                    )
                except RequestFailed as final:  # its retries spent: one more in a row
                    self.streak.failed(final)
                    raise
                attempt += 0 if exc.connection else 1
                tally(retries=1)
            await asyncio.sleep(delay)

    def _retry_delay(self, exc: RequestFailed, attempt: int, down_for: float) -> float:
        """Seconds to wait before the next attempt, or the final failure. ``attempt`` counts
        the retries so far (of reaching the server, for a connection failure)."""
        if exc.connection:
            if down_for >= self.retry_window:
                raise RequestFailed(
                    f"{exc} (unreachable for {down_for:.0f} s, --retry-window "
                    f"{self.retry_window:g})",
                    retryable=False,
                ) from None
            cap = min(RECONNECT_CAP, self.backoff * 2.0 ** (attempt - 1))
            return random.uniform(0.0, min(cap, self.retry_window - down_for))
        if attempt >= self.max_retries:  # attempt: the retries so far
            raise RequestFailed(
                f"{exc} (gave up after {attempt + 1} attempts)", retryable=False
            ) from None
        delay = random.uniform(0.0, min(BACKOFF_CAP, self.backoff * 2.0**attempt))
        if exc.retry_after is None:
            return delay
        if exc.retry_after > self.max_retry_wait:
            self.retry_waits_cut += 1
            if self.retry_waits_cut == 1:
                log.warning(
                    "note: %s asked to wait %.0f s (Retry-After); waiting %g s "
                    "(--max-retry-wait) before retrying",
                    self.base_url,
                    exc.retry_after,
                    self.max_retry_wait,
                )
            return self.max_retry_wait
        return max(delay, exc.retry_after)

    def run_notes(self) -> list[str]:
        """Notes for the run's summary: timeouts that came from queueing (:class:`QueueWatch`)."""
        return self.queue.notes()

    async def _attempt(
        self, session: aiohttp.ClientSession, payload: bytes, probing: bool
    ) -> Reply:
        import aiohttp

        url = self._chat_url
        self.http_requests += 1
        started, status = self.queue.start(), 0
        try:
            async with session.post(url, data=payload) as resp:
                status = resp.status
                raw = await resp.read()
                retry_after = resp.headers.get("Retry-After") if status == 429 else None
        except TimeoutError:
            self.queue.timed_out()
            raise RequestFailed(f"timeout after {self.timeout} s", retryable=True) from None
        except aiohttp.ClientError as exc:
            raise RequestFailed(
                _connect_error(exc, url), retryable=True, connection=_unreachable(exc)
            ) from None
        finally:
            self.queue.end(started, answered=200 <= status < 300)
        if 200 <= status < 300:
            try:
                body = loads(raw.decode("utf-8"), "the response body")
                content = body["choices"][0]["message"]["content"]
            except (ValueError, InputError):
                snippet = _error_text(raw)[:200]
                raise RequestFailed(
                    f"unparsable response body (HTTP {status}): {snippet}", retryable=True
                ) from None
            except (KeyError, IndexError, TypeError):
                snippet = _error_text(raw)[:200]
                raise RequestFailed(
                    f"no choices[0].message.content in the response: {snippet}", retryable=True
                ) from None
            return Reply(text=_content_text(content, raw), usage=_usage(body))
        message = _error_text(raw)
        if status in (401, 403):
            raise EndpointError(_key_rejected(self.base_url, status, message))
        if status == 404:
            raise EndpointError(
                f"{url} answered HTTP 404 ({message[:200]}): check --base-url (most servers "
                f"serve under /v1) and the model name {self.model_id!r}"
            )
        if (
            probing
            and (400 <= status < 500 or status in (500, 501))
            and status not in (408, 429)
            and any(w in message.lower() for w in _FORMAT_WORDS)
        ):
            raise FormatRejected(f"HTTP {status}: {message[:200]}")
        # llama-cpp-python's server answers HTTP 500 to a request that fails its validation
        # ("1 validation error: {... 'loc': ('body', ...)"): as malformed as a 400, never retried.
        invalid = status == 500 and "validation error" in message and "'loc': ('body'" in message
        raise RequestFailed(
            f"HTTP {status}: {message[:200]}",
            retryable=(status in (408, 429) or status >= 500) and not invalid,
            retry_after=_retry_after(retry_after),
        )
