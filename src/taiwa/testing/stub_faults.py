"""The stub server's injected faults (:mod:`taiwa.testing.stub_server`, ``fail_rate`` /
``fail_kinds``):
which kinds there are, drawing one, and the response each one gives."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from taiwa.models.openai_errors import retry_after_header

FAULT_KINDS = (
    "500",
    "429",
    "reset",
    "truncated",
    "html",
    "empty",
    "slow",
    "503",
    "null",
    "error200",
    "cut",
    "badutf8",
    "number",
)


def _random_fault(state: Any) -> str | None:
    """A fault kind drawn for this request (``state``: the stub's StubState), or None."""
    if state.fail_rate <= 0 or state.rng.random() >= state.fail_rate:
        return None
    kinds = state.fail_kinds or FAULT_KINDS
    kind = kinds[state.rng.randrange(len(kinds))]
    state.failed[kind] += 1
    return kind


async def _injected(kind: str, request: web.Request, state: Any) -> web.StreamResponse:
    """The response of one injected fault."""
    auth = request.headers.get("Authorization") if state.echo_auth else None
    echoed = f" (request header Authorization: {auth})" if auth else ""
    if kind == "429":
        return web.json_response(
            {"error": {"message": f"rate limited{echoed}"}},
            status=429,
            headers={"Retry-After": retry_after_header(state.retry_after, state.retry_after_date)},
        )
    if kind == "reset":
        if request.transport is not None:
            request.transport.abort()  # the connection drops without an answer
        raise asyncio.CancelledError
    if kind == "truncated":
        cut = '{"choices": [{"message": {"content": "途'
        return web.Response(text=cut, content_type="application/json")
    if kind == "html":
        return web.Response(
            text=f"<html><body><h1>502 Bad Gateway</h1>{echoed}</body></html>",
            status=502,
            content_type="text/html",
        )
    if kind == "empty":
        return web.json_response({"id": "x", "object": "chat.completion", "choices": []})
    if kind == "slow":
        await asyncio.sleep(state.hang)
        return web.json_response({"error": {"message": "too late"}}, status=500)
    if kind == "503":
        return web.json_response({"error": {"message": f"overloaded{echoed}"}}, status=503)
    if kind in ("null", "number"):  # a message whose content is not text
        message = {"role": "assistant", "content": None if kind == "null" else 42}
        return web.json_response({"object": "chat.completion", "choices": [{"message": message}]})
    if kind == "error200":  # an error object with status 200, as some proxies send
        return web.json_response({"error": {"message": f"upstream failed{echoed}"}})
    if kind == "badutf8":
        return web.Response(body=b'{"choices": "\xff\xfe"}', content_type="application/json")
    if kind == "cut":  # the headers promise more body than comes before the connection drops
        response = web.StreamResponse(headers={"Content-Length": "4096"})
        response.content_type = "application/json"
        await response.prepare(request)
        await response.write(b'{"choices": [')
        if request.transport is not None:
            request.transport.abort()
        raise asyncio.CancelledError
    return web.json_response({"error": {"message": f"injected 500{echoed}"}}, status=500)
