"""Runner overhead: N requests against a local server with a fixed latency, at concurrency C.

    python benchmarks/runner_overhead.py [--requests 1000] [--latency 0.2] [--concurrency 64]
                                         [--method prompts|intent] [--repeat 5]
                                         [--inspect PYTHON] [--lm-eval PYTHON]

Prints wall time / ideal, where ideal = N x latency / C (the physical limit of the setup).
Everything runs through the real path: runner, SQLite cache (a fresh one), taiwa's aiohttp
OpenAI-compatible client, HTTP over loopback to a server in its own process. Target: <= 1.10
(aim 1.05).

The server is a minimal HTTP/1.1 responder (below, ``--serve``) that answers every POST with
the same chat completion after exactly ``--latency`` seconds. At concurrency 64 the replies
arrive in bunches, and every millisecond of CPU a request costs on either side delays the
requests queued behind it; the server's share would be charged to the client measured. A
full web framework (taiwa's own stub server, aiohttp.web) costs several times this one per
request; ``--server stub`` measures with it instead, for comparison.

``--method intent`` runs the intent benchmark's multiple-choice workload instead of plain
prompts (the bundled items repeated under new ids up to ``--requests``, each context
numbered so that no two requests are alike: seed 004's question, answer parsing, scoring,
the stability analysis and its chart), the workload general
harnesses also run. ``--inspect PYTHON`` and ``--lm-eval PYTHON`` run the same items (the
exact user messages taiwa sends) against the same server at the same concurrency through
inspect-ai and lm-evaluation-harness, each in its own venv (``other_harnesses.py`` says how to
make them), and print taiwa's wall time over the faster of them.

Paths take turns, ``--repeat`` times (median, min and max shown), so that a slow spell of the
machine hits them alike; on a machine busy with other work every path slows down and the
ratios say little.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from taiwa.benchmarks import get_method
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from whole_process import print_table, server_stats, taiwa_command, whole_process

_REPLY = json.dumps(
    {
        "object": "chat.completion",
        "model": "stub",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "はい。"}}],
    },
    ensure_ascii=False,
).encode()
_MODELS = b'{"object":"list","data":[{"id":"stub","object":"model"}]}'
_STATS: dict[str, float | None] = {"first": None, "last_in": None, "last_out": None, "posts": 0}
"""What the server saw since ``GET /v1/stats`` last read (and reset) it, on ``time.time()``:
the first and last POST's arrival, the last reply's sending, the POSTs answered."""


class _Responder(asyncio.Protocol):
    """HTTP/1.1 with keep-alive: reads each request (head and Content-Length body) and answers
    it ``latency`` seconds later, nothing parsed beyond what framing needs."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        loop = asyncio.get_running_loop()
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15 :].split(b"\r\n", 1)[0]) if at >= 0 else 0
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length :]
            is_get = head.startswith(b"get")
            if is_get and head.startswith(b"get /v1/stats"):
                body = json.dumps(_STATS).encode()
                _STATS.update(first=None, last_in=None, last_out=None, posts=0)
            elif is_get:
                body = _MODELS
            else:
                body = _REPLY
                now = time.time()
                _STATS["first"] = _STATS["first"] or now
                _STATS["last_in"] = now
            response = (
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            delay = 0.0 if is_get else self.latency
            loop.call_later(delay, self._send, response, not is_get)

    def _send(self, response: bytes, post: bool) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(response)
            if post:
                _STATS["last_out"] = time.time()
                _STATS["posts"] = (_STATS["posts"] or 0) + 1


def serve(port: int, latency: float) -> None:
    """Serve until killed, on uvloop when it is installed (a dev dependency): its timers fire
    about 1 ms late on this VM, asyncio's about 2 ms, and the lateness of the server's timers
    adds to every round of requests, for the bare client and the runner alike."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: _Responder(latency), "127.0.0.1", port, backlog=1024
        )
        await server.serve_forever()

    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())


@contextlib.contextmanager
def stub_process(latency: float, server: str = "minimal") -> Iterator[str]:
    """The server in its own process (so it does not share our GIL)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    if server == "stub":
        cmd = [sys.executable, "-m", "taiwa.testing.stub_server"]
        cmd += ["--port", str(port), "--latency", str(latency)]
    else:
        cmd = [sys.executable, __file__, "--serve", str(port), "--latency", str(latency)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.1):
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(10)


SPANS: dict[str, list[float]] = {"timers only": [], "bare aiohttp client": []}
"""Arrival spans (first to last request start, seconds) of the in-process floors, beside
which the whole process's span is read: the bar of a span is what these reach."""


async def raw_aiohttp(url: str, bodies: list[bytes], concurrency: int) -> float:
    """The same request bodies with a bare aiohttp session: what the machine and server allow.
    Its arrival span, as the server saw it, goes to :data:`SPANS`."""
    import aiohttp

    sem = asyncio.Semaphore(concurrency)
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession(headers=headers) as session:

        async def one(body: bytes) -> str:
            async with sem, session.post(f"{url}/chat/completions", data=body) as resp:
                data = json.loads(await resp.read())
            return str(data["choices"][0]["message"]["content"])

        await asyncio.gather(*(one(b) for b in bodies[:20]))
        server_stats(url)  # reset
        t0 = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        wall = time.perf_counter() - t0
    got = server_stats(url)
    if got["first"] is not None and got["last_in"] is not None:
        SPANS["bare aiohttp client"].append(got["last_in"] - got["first"])
    return wall


async def sleeps_only(n: int, latency: float, concurrency: int) -> float:
    """No network at all: each request is ``asyncio.sleep(latency)``. What the event loop's
    timers allow on this machine (a VM's timers wake late by a millisecond or two)."""
    sem = asyncio.Semaphore(concurrency)
    starts: list[float] = []

    async def one() -> None:
        async with sem:
            starts.append(time.perf_counter())
            await asyncio.sleep(latency)

    t0 = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(n)))
    SPANS["timers only"].append(max(starts) - min(starts))
    return time.perf_counter() - t0


def _records(method: str, n: int) -> list[dict[str, object]]:
    """``n`` items of ``method``: prompts with a reference reply (so each reply is scored by
    Japanese ROUGE, tokenising included, while the other requests are in flight), or the
    bundled intent items under new ids (each item its own group, so the dataset stays valid
    however often an item repeats), each context numbered so that no two requests are alike
    (a repeated request would be served from the cache a chunk later)."""
    if method == "prompts":
        return [
            {"id": f"q{i}", "prompt": f"質問{i}", "reference": f"はい、{i}番目の質問に答えます。"}
            for i in range(n)
        ]
    from taiwa.core.samples import sample_path

    lines = sample_path("intent/items.jsonl").read_text("utf-8").splitlines()
    items = [json.loads(x) for x in lines if x.strip()]
    return [
        {
            **(it := items[i % len(items)]),
            "id": f"q{i}",
            "group": f"g{i}",
            "context": f"{it['context']}（{i}）",
        }
        for i in range(n)
    ]


def _bodies(cfg: RunConfig) -> tuple[list[bytes], list[dict[str, str]]]:
    """The chat-completion bodies the runner sends for ``cfg``'s first stage (the same messages
    and parameters), for the bare client; and each sample's user message with its reference
    reply, for the other harnesses."""
    from taiwa.harness.runner import prepare
    from taiwa.models.openai_compat import _message
    from taiwa.models.openai_transport import _dumps

    plan = prepare(cfg, get_method(cfg.method))
    stage = plan.stages[0]
    bodies, items = [], []
    for sample in plan.samples:
        for req in stage.requests(sample, {}):
            body = {
                "model": "stub",
                "messages": [_message(m) for m in req.messages],
                "temperature": req.params.temperature,
                "max_tokens": req.params.max_tokens,
                "seed": req.params.seed,
            }
            bodies.append(_dumps(body))
            prompt = "\n".join(m.text for m in req.messages if m.role == "user")
            target = plan.method.reference(sample) or ""
            items.append({"id": req.id, "prompt": prompt, "target": target})
    return bodies, items


def other_harness(
    which: str, python: str, items: list[dict[str, str]], url: str, concurrency: int, repeat: int
) -> list[float]:
    """Wall seconds of ``repeat`` runs of ``items`` through another harness (its own venv's
    ``python`` runs ``other_harnesses.py``); fails loudly when it lost or failed samples."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in items)
        fh.flush()
        driver = Path(__file__).with_name("other_harnesses.py")
        args = [python, str(driver), which, fh.name, url, str(concurrency), str(repeat)]
        proc = subprocess.run(args, capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode or not lines:
        sys.exit(f"{which} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    got = json.loads(lines[-1])
    if got["samples"] != len(items) or got["errors"]:
        sys.exit(f"{which}: {got['samples']} samples of {len(items)}, {got['errors']} errors")
    return [float(w) for w in got["walls"]]


def _whole_commands(
    args: argparse.Namespace, data: Path, tmp: Path, url: str, items: list[dict[str, str]]
) -> dict[str, Any]:
    """Round ``i`` → the command line of each whole-process path: ``taiwa run``, and each
    other harness's driver in its one-cold-run mode (REPEAT 0) on the same items."""
    other_items = tmp / "other-items.jsonl"
    other_items.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items))
    driver = str(Path(__file__).with_name("other_harnesses.py"))
    conc = str(args.concurrency)
    out: dict[str, Any] = {
        f"taiwa run {args.method}": lambda i: taiwa_command(
            args.method, url, data, tmp / f"whole{i}", args.concurrency
        )
    }
    others = [("inspect-ai", "inspect", args.inspect), ("lm-eval", "lm-eval", args.lm_eval)]
    for name, key, python in others:
        if python:
            out[name] = lambda i, p=python, k=key: [p, driver, k, str(other_items), url, conc, "0"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--server", choices=["minimal", "stub"], default="minimal")
    ap.add_argument("--method", choices=["prompts", "intent"], default="prompts")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each path (median shown)")
    ap.add_argument("--inspect", metavar="PYTHON", help="an interpreter with inspect-ai installed")
    ap.add_argument("--lm-eval", metavar="PYTHON", help="an interpreter with lm-eval installed")
    ap.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve, args.latency)
        return
    walls: dict[str, list[float]] = {"floor": [], "raw": [], "runner": []}
    parts: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "items.jsonl"
        records = _records(args.method, args.requests)
        data.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
        with stub_process(args.latency, args.server) as url:
            cfg = RunConfig(
                method=args.method,
                models=["openai:stub"],
                base_url=url,
                data=data,
                out=Path(tmp) / "run",
                cache_dir=Path(tmp) / "cache",
                concurrency=args.concurrency,
                max_tokens=16,
            )
            bodies, items = _bodies(cfg)
            whole = _whole_commands(args, data, Path(tmp), url, items)
            wholes: dict[str, list[dict[str, float]]] = {name: [] for name in whole}
            # Warm-up (imports, first connections) on a separate run, then the timed runs,
            # the paths taking turns so that a slow spell of the machine hits them alike.
            warm = {"limit": 20, "out": Path(tmp) / "warm", "cache_dir": Path(tmp) / "warm-cache"}
            run(cfg.model_copy(update=warm), get_method(cfg.method), show_progress=False)
            for i in range(args.repeat):
                floor = sleeps_only(args.requests, args.latency, args.concurrency)
                walls["floor"].append(asyncio.run(floor))
                walls["raw"].append(asyncio.run(raw_aiohttp(url, bodies, args.concurrency)))
                fresh = {"out": Path(tmp) / f"run{i}", "cache_dir": Path(tmp) / f"cache{i}"}
                t0 = time.perf_counter()
                result = run(
                    cfg.model_copy(update=fresh), get_method(cfg.method), show_progress=False
                )
                walls["runner"].append(time.perf_counter() - t0)
                parts.append(result.summary["seconds"])
                for name, command in whole.items():
                    got = whole_process(name, command(i), url)
                    if got["posts"] < len(bodies):
                        sys.exit(f"{name}: {got['posts']:.0f} requests of {len(bodies)}")
                    wholes[name].append(got)
            others = {
                name: other_harness(key, python, items, url, args.concurrency, args.repeat)
                for name, key, python in [
                    ("inspect-ai (same items, server, concurrency)", "inspect", args.inspect),
                    ("lm-evaluation-harness (local-chat-completions)", "lm-eval", args.lm_eval),
                ]
                if python
            }
    ideal = args.requests * args.latency / args.concurrency
    print(
        f"{args.requests} requests, latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}, {args.server} server, method {args.method}, "
        f"median of {args.repeat} runs"
    )
    [calls] = result.summary["calls"]
    print(f"failed samples {result.failures}, requests sent {calls['calls']}")
    rows = [
        ("ideal: N x latency / concurrency", [ideal]),
        ("timers only: asyncio.sleep, no network", walls["floor"]),
        ("bare aiohttp client, same bodies, no cache", walls["raw"]),
        ("taiwa runner in-process (run(), after a warm-up)", walls["runner"]),
        *others.items(),
    ]
    print(f"{'path':52s} {'wall s':>7s} {'wall/ideal':>10s} {'min':>6s} {'max':>6s}")
    for name, ts in rows:
        m = statistics.median(ts)
        lo, hi = min(ts) / ideal, max(ts) / ideal
        print(f"{name:52s} {m:7.2f} {m / ideal:10.3f} {lo:6.3f} {hi:6.3f}")
    print("target for the runner: <= 1.10")
    if others:
        name, fastest = min(others.items(), key=lambda kv: statistics.median(kv[1]))
        ratio = statistics.median(walls["runner"]) / statistics.median(fastest)
        print(f"taiwa / the faster other harness ({name.split(' ')[0]}): {ratio:.3f} (goal <= 0.8)")
    span_ideal = max(args.requests - args.concurrency, 1) * args.latency / args.concurrency
    print_table(wholes, ideal, span_ideal)
    floors = ", ".join(
        f"{k} {statistics.median(v) / span_ideal:.3f}" for k, v in SPANS.items() if v
    )
    print(f"arrival span / ideal in-process, for comparison: {floors}")
    name, _ = min(
        ((k, v) for k, v in wholes.items() if not k.startswith("taiwa")),
        key=lambda kv: statistics.median(r["wall"] for r in kv[1]),
        default=(None, None),
    )
    if name is not None:
        own = statistics.median(r["wall"] for r in wholes[f"taiwa run {args.method}"])
        fast = statistics.median(r["wall"] for r in wholes[name])
        print(f"whole process, taiwa / the faster other harness ({name}): {own / fast:.3f}")
    stages = [k for k in parts[0] if k != "total"]
    medians = {k: statistics.median(p[k] for p in parts) for k in stages}
    rest = statistics.median(walls["runner"]) - statistics.median(p["total"] for p in parts)
    shown = ", ".join(f"{k} {v:.3f}" for k, v in medians.items())
    print(f"runner in-process, median seconds: {shown} (a pipelined stage overlaps the one it")
    print(f"follows); outside the stages (load, checks, writing) {rest:.3f}")


if __name__ == "__main__":
    main()
