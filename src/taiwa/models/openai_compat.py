"""``openai:MODEL``: any OpenAI-compatible chat endpoint (OpenAI, vLLM, llama.cpp server, Ollama).

A lean aiohttp client for ``POST {base_url}/chat/completions`` (DESIGN.md, OpenAI-compatible
transport; the official SDK costs about 1 ms of CPU per request, too much at 64-way concurrency).

* Retries: 429, 408, 5xx, timeouts, connection errors and unusable bodies (not JSON, no
  ``choices[0].message.content``) are retried ``max_retries`` times with exponential backoff and
  full jitter (capped at 30 s, at least ``Retry-After``); any other 4xx is recorded at once.
* Content: text-only messages go out with ``content`` as a string (llama.cpp-style chat templates
  fail on a list of parts); a list of parts is sent only when a message carries audio.
* Structured output (``params.json_schema``): ``response_format`` ``json_schema`` (OpenAI, vLLM),
  else ``json_object`` with ``schema`` (llama-cpp-python's server), else none (plain prompting;
  the caller validates). The first structured request probes while the others wait; the mode the
  endpoint accepted is kept in :attr:`OpenAICompatModel.structured_mode` for the rest of the run.
* ``aiohttp`` is imported only when a request is made, so importing this module stays cheap.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import random
import time
from collections.abc import Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from taiwa.errors import EndpointError, TaiwaError
from taiwa.models.base import ConcurrentModel, OnResponse
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse
from taiwa.redact import redact

if TYPE_CHECKING:
    import aiohttp

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BACKOFF_CAP = 30.0  # seconds, the longest backoff between two attempts
MAX_RETRY_AFTER = 600.0  # seconds: a longer Retry-After fails the request instead of waiting
RECONNECT_CAP = 5.0  # seconds between attempts to reach a server that refuses connections

StructuredMode = Literal["json_schema", "json_object", "none"]
#: ``response_format`` variants for ``params.json_schema``, in the order they are tried.
STRUCTURED_MODES: tuple[StructuredMode, ...] = ("json_schema", "json_object", "none")
_FORMAT_WORDS = ("response_format", "json_schema", "json_object")

# The HTTP session of the current generate() batch (a context variable, so that two batches
# running at once on one model each use their own session).
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


class RequestFailed(Exception):
    """One HTTP exchange failed; ``retryable`` says whether another attempt may help and
    ``connection`` whether the server could not be reached at all (retried for a while)."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        connection: bool = False,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after
        self.connection = connection


class FormatRejected(RequestFailed):
    """The server rejected the request's ``response_format`` (never retried)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)


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


_BODY_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _dumps(body: dict[str, Any]) -> bytes:
    return _BODY_ENCODER.encode(body).encode("utf-8")


def _error_text(raw: bytes) -> str:
    """The server's own words: ``error.message`` (or ``detail``) of a JSON body, else the body;
    secrets it echoes (an ``Authorization`` header, a key) masked."""
    return redact(_server_words(raw))


def _server_words(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except ValueError:
        return " ".join(text.split())
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and err.get("message") is not None:
            msg = err["message"]
            return msg if isinstance(msg, str) else json.dumps(msg, ensure_ascii=False)
        if isinstance(err, str):
            return err
        for key in ("detail", "message"):
            if body.get(key) is not None:
                v = body[key]
                return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return " ".join(text.split())


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: rare for APIs, the backoff covers it


def checked_base_url(url: str) -> str:
    """The base URL, refused (one line, credentials masked) unless it is http(s)://host… with
    no ``user:password@`` (the key goes in ``OPENAI_API_KEY``, never into files or logs)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:
        ok = False
    if not ok:
        raise TaiwaError(
            f"bad --base-url {redact(url)!r}: expected http(s)://HOST[:PORT]/PATH, "
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


def _unreachable(exc: Exception) -> bool:
    """The server could not be reached or dropped the connection (not a slow or bad answer)."""
    import aiohttp

    return isinstance(
        exc, aiohttp.ClientConnectorError | aiohttp.ServerDisconnectedError | aiohttp.ClientOSError
    )


def _key_rejected(base_url: str, status: int, message: str) -> str:
    has_key = bool(os.environ.get("OPENAI_API_KEY"))
    what = "the API key in OPENAI_API_KEY" if has_key else "the request without an API key"
    fix = "check OPENAI_API_KEY" if has_key else "set OPENAI_API_KEY"
    return f"{base_url} rejected {what} (HTTP {status}: {message[:200]}): {fix}"


def _connect_error(exc: Exception, url: str) -> str:
    import aiohttp

    if isinstance(exc, aiohttp.ClientConnectorError):
        if isinstance(exc.os_error, ConnectionRefusedError):
            return f"connection refused: {url}"
        return f"cannot connect: {url} ({exc.os_error})"
    return f"connection error: {url} ({type(exc).__name__}: {exc})"


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
        retry_window: float = 120.0,
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
        self.limiter = RateLimiter(rpm)
        self.timeout = timeout
        #: The ``response_format`` variant this endpoint accepted (None until a structured
        #: request has succeeded); recorded by the run.
        self.structured_mode: StructuredMode | None = None
        #: HTTP requests made (every attempt counts), for tests and run statistics.
        self.http_requests = 0
        self._chat_url = _endpoint(self.base_url, "chat/completions")
        self.identity = f"{redact(self.base_url)}|{model}"
        self._rejected_modes: set[StructuredMode] = set()
        self._probe: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

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
        """As :meth:`ConcurrentModel.generate`, with one HTTP session per batch, closed after."""
        async with self._session(self.timeout, self.concurrency) as session:
            token = _SESSION.set(session)
            try:
                return await super().generate(requests, on_response=on_response)
            finally:
                _SESSION.reset(token)

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

    # -- requests -----------------------------------------------------------------------------

    async def _complete(self, request: ChatRequest) -> str:
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

    async def _structured(self, body: dict[str, Any], schema: dict[str, Any]) -> str:
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

    async def _negotiate(self, body: dict[str, Any], schema: dict[str, Any]) -> str:
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
                continue
            if self.structured_mode is None:
                self.structured_mode = mode
                log.info("%s: structured output via response_format %s", self.base_url, mode)
            return text

    async def _post(self, payload: bytes, *, probing: bool) -> str:
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
                return await self._attempt(session, payload, probing)
            except RequestFailed as exc:
                if not exc.retryable:
                    raise
                now = time.monotonic()
                down_since = (down_since or now) if exc.connection else None
                reconnects = reconnects + 1 if exc.connection else 0
                delay = self._retry_delay(
                    exc, reconnects if exc.connection else attempt, now - (down_since or now)
                )
                attempt += 0 if exc.connection else 1
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
        if exc.retry_after > MAX_RETRY_AFTER:
            raise RequestFailed(
                f"{exc} (Retry-After {exc.retry_after:g} s is longer than taiwa waits)",
                retryable=False,
            ) from None
        return max(delay, exc.retry_after)

    async def _attempt(self, session: aiohttp.ClientSession, payload: bytes, probing: bool) -> str:
        import aiohttp

        url = self._chat_url
        self.http_requests += 1
        try:
            async with session.post(url, data=payload) as resp:
                status = resp.status
                raw = await resp.read()
                retry_after = resp.headers.get("Retry-After") if status == 429 else None
        except TimeoutError:
            raise RequestFailed(f"timeout after {self.timeout} s", retryable=True) from None
        except aiohttp.ClientError as exc:
            raise RequestFailed(
                _connect_error(exc, url), retryable=True, connection=_unreachable(exc)
            ) from None
        if 200 <= status < 300:
            try:
                content = json.loads(raw)["choices"][0]["message"]["content"]
            except ValueError:
                snippet = _error_text(raw)[:200]
                raise RequestFailed(
                    f"unparsable response body (HTTP {status}): {snippet}", retryable=True
                ) from None
            except (KeyError, IndexError, TypeError):
                snippet = _error_text(raw)[:200]
                raise RequestFailed(
                    f"no choices[0].message.content in the response: {snippet}", retryable=True
                ) from None
            return _content_text(content, raw)
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


def _content_text(content: Any, raw: bytes) -> str:
    """The reply text of ``choices[0].message.content``: a string, or a list of content parts
    (their text parts joined, as some servers send); anything else is a failed attempt."""
    if isinstance(content, str):
        return content
    if (
        isinstance(content, list)
        and content
        and all(
            isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            for p in content
        )
    ):
        return "".join(p["text"] for p in content)
    if content is None:
        raise RequestFailed("the server returned no message content", retryable=True)
    got = _error_text(raw)[:200]
    raise RequestFailed(f"the message content is not text: {got}", retryable=True)
