"""A small OpenAI-compatible chat server for tests, benchmarks and dry runs.

``python -m taiwa.stub_server --port 8765 --latency 0.2`` serves ``/v1/models`` and
``/v1/chat/completions``. The reply echoes the last user message (``"echo: ..."``), or a JSON
object when ``response_format`` asks for one. Faults can be scripted per request: ``faults``
lists the HTTP status (or ``"timeout"``, ``"badjson"``, ``"invalid"``: a validation error the
way llama-cpp-python's server reports it) to return for the first requests, and ``replies`` the
message contents (e.g. malformed JSON) to return before echoing again.

For tests of the client it also records the last request bodies and ``Authorization`` headers,
can reject ``response_format`` types (``reject_formats``, answered like llama-cpp-python's
server does), and can answer ``/v1/models`` with another status (``models_status``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class StubState:
    """Behaviour and counters of a running stub server."""

    latency: float = 0.0
    hang: float = 3.0
    faults: list[int | str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    hits: int = 0
    ok: int = 0
    seen: list[str] = field(default_factory=list)
    #: ``response_format`` types to refuse (``"json_schema"``, ``"json_object"``), with this status
    reject_formats: tuple[str, ...] = ()
    reject_status: int = 500
    rejected: int = 0
    models_status: int = 200
    #: the last request bodies (parsed JSON) and ``Authorization`` headers, newest last
    bodies: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=256))
    auth: deque[str | None] = field(default_factory=lambda: deque(maxlen=256))
    lock: threading.Lock = field(default_factory=threading.Lock)


def _reply(body: dict[str, Any]) -> str:
    user = [m for m in body.get("messages", []) if m.get("role") == "user"]
    last = user[-1]["content"] if user else ""
    if isinstance(last, list):
        last = "".join(p.get("text", "") for p in last if p.get("type") == "text")
    if body.get("response_format"):
        return json.dumps({"answer": last}, ensure_ascii=False)
    return f"echo: {last}"


# llama-cpp-python 0.3.x's server (llama_cpp.server) answers HTTP 500 with this message to
# ``response_format: {"type": "json_schema", ...}``; it accepts ``"text"`` and ``"json_object"``.
REJECT_MESSAGE = (
    "1 validation error:\n  {{'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': '{kind}', "
    "'ctx': {{'expected': \"'text' or 'json_object'\"}}}}\n"
)


def _reject_format(kind: str, status: int) -> web.Response:
    """What llama-cpp-python's server answers to a ``response_format`` type it does not know."""
    message = REJECT_MESSAGE.format(kind=kind)
    return web.json_response(
        {"error": {"message": message, "type": "internal_server_error"}}, status=status
    )


def make_app(state: StubState) -> web.Application:
    async def models(_: web.Request) -> web.Response:
        if state.models_status != 200:
            msg = {"error": {"message": f"scripted {state.models_status}"}}
            return web.json_response(msg, status=state.models_status)
        return web.json_response({"object": "list", "data": [{"id": "stub", "object": "model"}]})

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        fmt = body.get("response_format")
        with state.lock:
            state.hits += 1
            state.bodies.append(body)
            state.auth.append(request.headers.get("Authorization"))
            fault = state.faults.pop(0) if state.faults else None
            reject = isinstance(fmt, dict) and fmt.get("type") in state.reject_formats
            if reject:
                state.rejected += 1
        if reject:
            return _reject_format(str(fmt.get("type")), state.reject_status)
        if fault == "timeout":
            await asyncio.sleep(state.hang)
        if fault == "badjson":
            return web.Response(text="{not json", content_type="application/json")
        if fault == "invalid":  # llama-cpp-python's server on a request that fails validation
            message = "1 validation error:\n  {'type': 'list_type', 'loc': ('body', 'messages')}"
            return web.json_response({"error": {"message": message}}, status=500)
        if isinstance(fault, int):
            return web.json_response({"error": {"message": f"scripted {fault}"}}, status=fault)
        if state.latency:
            await asyncio.sleep(state.latency)
        with state.lock:
            scripted = state.replies.pop(0) if state.replies else None
        text = scripted if scripted is not None else _reply(body)
        with state.lock:
            state.ok += 1
            state.seen.append(text)
        return web.json_response(
            {
                "id": f"chatcmpl-{state.hits}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "stub"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        )

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    return app


@contextmanager
def serve(state: StubState, host: str = "127.0.0.1") -> Iterator[str]:
    """Run the stub on a free port in a background thread; yields its base URL."""
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    holder: dict[str, Any] = {}

    async def start() -> None:
        runner = web.AppRunner(make_app(state), handle_signals=False, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, host, 0, backlog=1024)
        await site.start()
        holder["runner"] = runner
        holder["port"] = runner.addresses[0][1]
        ready.set()

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        loop.run_forever()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("stub server did not start")
    try:
        yield f"http://{host}:{holder['port']}/v1"
    finally:
        asyncio.run_coroutine_threadsafe(holder["runner"].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    args = ap.parse_args()
    loop = None
    with contextlib.suppress(ImportError):
        import uvloop

        loop = uvloop.new_event_loop()
    web.run_app(
        make_app(StubState(latency=args.latency)), host=args.host, port=args.port, loop=loop
    )


if __name__ == "__main__":
    main()
