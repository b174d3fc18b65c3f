"""What a failed exchange with an OpenAI-compatible server means (for
:mod:`taiwa.models.openai_transport`): :class:`RequestFailed` (retryable or not, a connection
that could not be made), :class:`FormatRejected` (a ``response_format`` the server refuses), the
server's own words with echoed secrets masked, ``Retry-After``, and the reply text of a body
that did arrive."""

from __future__ import annotations

import json
import math
import os
import time
from datetime import UTC
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io.json_doc import loads
from taiwa.core.redact import redact


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


GIVE_UP_AFTER = 32
"""Requests in a row that failed for good on the server's side (their retries spent on 5xx,
429, timeouts or unusable bodies, or the server unreachable for the whole retry window), with
no reply between them, after which a model stops: the server is taken as broken rather than
each later request waiting out its own retries (issue 40 §6: ``taiwa validate annotator``
against a server answering 500 to everything kept retrying for minutes). A server that fails
half of its requests fails a request for good with a probability of 0.5⁶ (the default five
retries), 32 in a row practically never (0.5³² = 2e-10 even with ``--max-retries 0``)."""


class FailureStreak:
    """Counts the requests of one model that failed for good in a row (:data:`GIVE_UP_AFTER`
    stops it with an :class:`~taiwa.core.errors.EndpointError`); any reply resets it."""

    def __init__(self, base_url: str, limit: int = GIVE_UP_AFTER) -> None:
        self.base_url = base_url
        self.limit = limit
        self.count = 0

    def answered(self) -> None:
        self.count = 0

    def failed(self, exc: RequestFailed) -> None:
        """One more request failed for good (``exc``); raises once :attr:`limit` are in a row."""
        from taiwa.core.errors import EndpointError

        self.count += 1
        if self.count >= self.limit:
            raise EndpointError(
                f"{redact(self.base_url)} failed {self.count} requests in a row after their "
                f"retries (the last: {exc}): stopping; is the server healthy?"
            ) from None


class FormatRejected(RequestFailed):
    """The server rejected the request's ``response_format`` (never retried)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)


def _error_text(raw: bytes) -> str:
    """The server's own words: ``error.message`` (or ``detail``) of a JSON body, else the body;
    secrets it echoes (an ``Authorization`` header, a key) masked."""
    return redact(_server_words(raw))


def _server_words(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    try:
        body = loads(text, "the response body")
    except InputError:
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


def retry_after_header(seconds: float, as_date: bool = False) -> str:
    """A ``Retry-After`` value for ``seconds`` from now: delta-seconds, or ``as_date`` an HTTP
    date (rounded up to the next whole second: the date format has no fractions)."""
    if not as_date:
        return f"{seconds:g}"
    from email.utils import formatdate

    return formatdate(math.ceil(time.time() + seconds), usegmt=True)


def _retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header in either form RFC 9110 §10.2.3 allows:
    delta-seconds (``120``) or an HTTP date (``Wed, 25 Nov 2026 20:00:03 GMT``, counted from
    ``now``, the epoch seconds of this moment by default); ``None`` when it is neither."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:  # an HTTP date is GMT
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if math.isfinite(seconds) else None


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
