"""Runner overhead: N requests against a local server with a fixed latency, at concurrency C.

    python benchmarks/runner_overhead.py [--requests 1000] [--latency 0.2] [--concurrency 64]

Prints wall time / ideal, where ideal = N x latency / C (the physical limit of the setup).
Everything runs through the real path: runner, SQLite cache (a fresh one), taiwa's aiohttp
OpenAI-compatible client, HTTP over loopback to taiwa's stub server (in its own process).
Target: <= 1.10 (aim 1.05).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run


@contextlib.contextmanager
def stub_process(latency: float) -> Iterator[str]:
    """taiwa's stub server in its own process (so it does not share our GIL)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "taiwa.stub_server"]
    cmd += ["--port", str(port), "--latency", str(latency)]
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


async def raw_aiohttp(n: int, latency: float, concurrency: int) -> float:
    """The same requests with a bare aiohttp session: what the machine and server allow."""
    import aiohttp

    sem = asyncio.Semaphore(concurrency)
    with stub_process(latency) as url:
        async with aiohttp.ClientSession() as session:

            async def one(i: int) -> str:
                body = {"model": "stub", "messages": [{"role": "user", "content": f"質問{i}"}]}
                async with sem, session.post(f"{url}/chat/completions", json=body) as resp:
                    data = await resp.json()
                return str(data["choices"][0]["message"]["content"])

            await asyncio.gather(*(one(i) for i in range(20)))
            t0 = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(n)))
            return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=64)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "prompts.jsonl"
        data.write_text(
            "".join(
                json.dumps({"id": f"q{i}", "prompt": f"質問{i}"}, ensure_ascii=False) + "\n"
                for i in range(args.requests)
            ),
            encoding="utf-8",
        )
        with stub_process(args.latency) as url:
            cfg = RunConfig(
                method="prompts",
                models=["openai:stub"],
                base_url=url,
                data=data,
                out=Path(tmp) / "run",
                cache_dir=Path(tmp) / "cache",
                concurrency=args.concurrency,
                max_tokens=16,
            )
            # Warm-up (imports, first connections) on a separate run, then the timed run.
            warm = {"limit": 20, "out": Path(tmp) / "warm", "cache_dir": Path(tmp) / "warm-cache"}
            run(cfg.model_copy(update=warm), show_progress=False)
            t0 = time.perf_counter()
            result = run(cfg, show_progress=False)
            wall = time.perf_counter() - t0
    raw = asyncio.run(raw_aiohttp(args.requests, args.latency, args.concurrency))
    ideal = args.requests * args.latency / args.concurrency
    print(
        f"{args.requests} requests, latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}"
    )
    [calls] = result.summary["calls"]
    print(f"failed samples {result.failures}, requests sent {calls['calls']}")
    rows = [
        ("ideal: N x latency / concurrency", ideal),
        ("bare aiohttp client, no SDK, no cache (lower bound)", raw),
        ("taiwa runner (aiohttp client, cache, stages, files)", wall),
    ]
    print(f"{'path':52s} {'wall s':>7s} {'wall/ideal':>10s}")
    for name, t in rows:
        print(f"{name:52s} {t:7.2f} {t / ideal:10.3f}")
    print("target for the runner: <= 1.10")


if __name__ == "__main__":
    main()
