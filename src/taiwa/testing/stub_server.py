"""A small OpenAI-compatible chat server for tests, benchmarks and dry runs.

``python -m taiwa.testing.stub_server --port 8765 --latency 0.2`` serves ``/v1/models`` and
``/v1/chat/completions``. The reply echoes the last user message (``"echo: ..."``), or a JSON
object when ``response_format`` asks for one. Faults can be scripted per request: ``faults``
lists the HTTP status (or ``"timeout"``, ``"badjson"``, ``"invalid"``: a validation error the
way llama-cpp-python's server reports it) to return for the first requests, and ``replies`` the
message contents (e.g. malformed JSON) to return before echoing again.

For tests of the client it also records the last request bodies and ``Authorization`` headers,
can reject ``response_format`` types (``reject_formats``, answered like llama-cpp-python's
server does), and can answer ``/v1/models`` with another status (``models_status``).

Fault injection (``tests/faults``): with ``fail_rate`` > 0 each request fails with that
probability (seeded), as one of ``fail_kinds`` (:data:`FAULT_KINDS`: 500, 429 with
``Retry-After``, a reset connection, truncated JSON, an HTML error page, empty ``choices``, a
reply slower than the client's timeout, 503, a ``null`` or numeric message content, an error
object with status 200, a body cut off mid-way, invalid UTF-8); ``failed`` counts them by
kind (``retry_after_date``: the 429's ``Retry-After`` as an HTTP date). ``echo_auth`` makes
error bodies echo the ``Authorization`` header (as careless proxies do). ``outage()`` closes the
listening socket and every connection for a while, then listens on the same port again.

Audio chat models: every ``input_audio`` content part is decoded (strict base64) and read as a
WAV file; its format lands in ``audio`` (sample rate, channels, sample width, frames, SHA-256 of
the bytes) and a part that is not base64 WAV in ``audio_format`` (24 kHz / mono / 16-bit by
default; ``None`` accepts any WAV) is answered with HTTP 400, as a strict server would.

Scripted judges and systems (``tests/test_judges.py``): ``script`` computes the reply from the
parsed request body instead of the echo (after ``replies``), e.g. by the ``model`` asked for.
``slots`` answers that many requests at once, the others queued, as a serving engine's slots."""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import contextlib
import hashlib
import io
import json
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from taiwa.testing.stub_faults import FAULT_KINDS as FAULT_KINDS  # re-exported
from taiwa.testing.stub_faults import _injected, _random_fault


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
    #: random faults: probability per request, the kinds drawn from, the RNG's seed
    fail_rate: float = 0.0
    fail_kinds: tuple[str, ...] = ()
    fail_seed: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    retry_after: float = 1.0
    retry_after_date: bool = False
    echo_auth: bool = False  #: error bodies echo the request's Authorization header
    #: (monotonic time, status) of every chat request, for timing checks (Retry-After)
    times: list[tuple[float, int | str]] = field(default_factory=list)
    #: how often each last user message was asked (retries included)
    asked: Counter[str] = field(default_factory=Counter)
    rng: random.Random = field(default_factory=random.Random)

    def __post_init__(self) -> None:
        self.rng.seed(self.fail_seed)

    #: the last request bodies (parsed JSON) and ``Authorization`` headers, newest last
    bodies: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=256))
    auth: deque[str | None] = field(default_factory=lambda: deque(maxlen=256))
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: computes the reply text from the request body (instead of the echo) when set
    script: Callable[[dict[str, Any]], str] | None = None
    #: (sample rate, channels, sample width in bytes) every ``input_audio`` WAV must have
    audio_format: tuple[int, int, int] | None = (24_000, 1, 2)
    #: every ``input_audio`` part received: its WAV header and the SHA-256 of its bytes
    audio: list[dict[str, Any]] = field(default_factory=list)
    #: replies carry ``usage`` (:func:`stub_usage`); false: no ``usage`` at all
    usage: bool = True
    #: tokens reported in every answered reply's ``usage``, summed (for cost checks)
    tokens_in: int = 0
    tokens_out: int = 0
    #: requests answered at once (0: any number), as a server's slots: the others wait their
    #: turn for their ``latency`` (llama-cpp-python's server has one slot)
    slots: int = 0


def stub_usage(body: dict[str, Any], text: str) -> dict[str, int]:
    """The stub's token counts: one token per character of the messages' text in, of the reply
    out (predictable, so tests can check the sums)."""
    prompt = 0
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            prompt += len(content)
        elif isinstance(content, list):
            prompt += sum(len(p.get("text") or "") for p in content if isinstance(p, dict))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": len(text),
        "total_tokens": prompt + len(text),
    }


def _last_user(body: dict[str, Any]) -> str:
    user = [m for m in body.get("messages", []) if m.get("role") == "user"]
    last = user[-1]["content"] if user else ""
    if isinstance(last, list):
        last = "".join(p.get("text", "") for p in last if p.get("type") == "text")
    return str(last)


def _reply(body: dict[str, Any]) -> str:
    last = _last_user(body)
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


def _audio_parts(body: dict[str, Any], wanted: tuple[int, int, int] | None) -> list[Any]:
    """The decoded ``input_audio`` parts of a request (dicts), or the first problem (a str)."""
    import wave

    out: list[Any] = []
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict) or part.get("type") != "input_audio":
                continue
            audio = part.get("input_audio") or {}
            if audio.get("format") != "wav":
                return [f"input_audio.format must be 'wav', got {audio.get('format')!r}"]
            try:
                raw = base64.b64decode(audio.get("data") or "", validate=True)
                with wave.open(io.BytesIO(raw)) as w:
                    header = (w.getframerate(), w.getnchannels(), w.getsampwidth())
                    frames = w.getnframes()
            except (binascii.Error, ValueError, EOFError, wave.Error) as exc:
                return [f"input_audio.data is not base64 WAV ({exc})"]
            if wanted is not None and header != wanted:
                return [f"input_audio WAV is {header} (rate, channels, width), expected {wanted}"]
            rate, channels, width = header
            out.append(
                {
                    "rate": rate,
                    "channels": channels,
                    "width": width,
                    "frames": frames,
                    "sha256": hashlib.sha256(raw).hexdigest(),
                }
            )
    return out


def make_app(state: StubState) -> web.Application:
    gate = asyncio.Semaphore(state.slots) if state.slots else contextlib.nullcontext()

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
            random_fault = _random_fault(state) if fault is None else None
            reject = isinstance(fmt, dict) and fmt.get("type") in state.reject_formats
            if reject:
                state.rejected += 1
            state.times.append((time.monotonic(), fault or random_fault or 200))
            state.asked[_last_user(body)] += 1
        if reject:
            return _reject_format(str(fmt.get("type")), state.reject_status)
        heard = _audio_parts(body, state.audio_format)
        if heard and isinstance(heard[0], str):
            return web.json_response({"error": {"message": heard[0]}}, status=400)
        with state.lock:
            state.audio.extend(heard)
        if random_fault is not None:
            return await _injected(random_fault, request, state)
        if fault == "timeout":
            await asyncio.sleep(state.hang)
        if fault == "badjson":
            return web.Response(text="{not json", content_type="application/json")
        if fault == "invalid":  # llama-cpp-python's server on a request that fails validation
            message = "1 validation error:\n  {'type': 'list_type', 'loc': ('body', 'messages')}"
            return web.json_response({"error": {"message": message}}, status=500)
        if isinstance(fault, int):
            auth = request.headers.get("Authorization") if state.echo_auth else None
            echoed = f" (request header Authorization: {auth})" if auth else ""
            return web.json_response(
                {"error": {"message": f"scripted {fault}{echoed}"}}, status=fault
            )
        if state.latency:
            async with gate:
                await asyncio.sleep(state.latency)
        with state.lock:
            scripted = state.replies.pop(0) if state.replies else None
        if scripted is not None:
            text = scripted
        elif state.script is not None:
            text = state.script(body)
        else:
            text = _reply(body)
        usage = stub_usage(body, text)
        with state.lock:
            state.ok += 1
            state.seen.append(text)
            if state.usage:
                state.tokens_in += usage["prompt_tokens"]
                state.tokens_out += usage["completion_tokens"]
        reply: dict[str, Any] = {
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
        }
        if state.usage:
            reply["usage"] = usage
        return web.json_response(reply)

    app = web.Application()
    app.router.add_get("/v1/models", models)
    app.router.add_post("/v1/chat/completions", chat)
    return app


class StubServer:
    """The stub on a port of its own, in a background thread: ``start``, ``stop`` and
    ``outage(seconds)`` (the port closes, every connection drops, then it listens again)."""

    def __init__(self, state: StubState, host: str = "127.0.0.1") -> None:
        self.state = state
        self.host = host
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._main, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    async def _listen(self) -> None:
        runner = web.AppRunner(make_app(self.state), handle_signals=False, shutdown_timeout=0.5)
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port, backlog=1024).start()
        self._runner = runner
        self.port = runner.addresses[0][1]

    async def _close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    def start(self) -> StubServer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)
        return self

    def outage(self, seconds: float) -> None:
        """Go down now for ``seconds`` (returns at once; the server comes back by itself)."""

        async def down() -> None:
            await self._close()
            await asyncio.sleep(seconds)
            await self._listen()

        asyncio.run_coroutine_threadsafe(down(), self._loop)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


@contextmanager
def serve(state: StubState, host: str = "127.0.0.1") -> Iterator[str]:
    """Run the stub on a free port in a background thread; yields its base URL."""
    server = StubServer(state, host).start()
    try:
        yield server.url
    finally:
        server.stop()


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
