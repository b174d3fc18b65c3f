"""The whole ``taiwa run`` command as a user runs it, timed from exec to exit, for
``runner_overhead.py`` (issue 29, point 7): what a user waits for, beside the in-process figure.

The server (``runner_overhead.py --serve``) notes on ``time.time()`` when the first and the last
POST arrived and when the last reply left; ``GET /v1/stats`` returns that and resets it. With
the exec and exit times taken here on the same clock, one run gives:

- ``wall``: exec to exit;
- ``to_first``: exec to the first request's arrival at the server (start-up: imports, dataset
  loading and checks, the endpoint check);
- ``tail``: the last reply's sending to exit (aggregate, charts, writing the run directory);
- ``span``: the first request's arrival to the last one's; its ideal is
  ``(N - C) x latency / C`` (the last request can leave no earlier than when the replies to
  ``N - C`` requests before it are in), so ``span / ideal`` says how late requests went out;
- ``cpu``: user + system CPU seconds of the process and its children.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def server_stats(url: str) -> dict[str, float | None]:
    """What the server saw since the last call (and reset it)."""
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as resp:
        return dict(json.loads(resp.read()))


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def taiwa_command(
    method: str, url: str, data: Path, out: Path, concurrency: int, python: str = sys.executable
) -> list[str]:
    """``taiwa run METHOD`` against ``url``, a fresh run directory and cache under ``out``."""
    cmd = [python, "-m", "taiwa", "run", method, "-m", "openai:stub", "--base-url", url]
    cmd += ["--data", str(data), "--out", str(out / "run"), "--cache-dir", str(out / "cache")]
    return [*cmd, "--concurrency", str(concurrency), "--max-tokens", "16", "-q"]


def whole_process(name: str, cmd: list[str], url: str) -> dict[str, float]:
    """Run ``cmd`` (one process that sends its requests to ``url``) and return its figures as
    in the module docstring. Fails loudly on a failed run or one that sent nothing."""
    server_stats(url)  # reset
    cpu0 = _cpu()
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    t1 = time.time()
    cpu = _cpu() - cpu0
    if proc.returncode:
        sys.exit(f"{name} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    got = server_stats(url)
    first, last_in, last_out = got["first"], got["last_in"], got["last_out"]
    if first is None or last_in is None or last_out is None:
        sys.exit(f"{name} sent no request")
    return {
        "wall": t1 - t0,
        "to_first": first - t0,
        "tail": t1 - last_out,
        "span": last_in - first,
        "cpu": cpu,
        "posts": float(got["posts"] or 0),
    }


def print_table(rows: dict[str, list[dict[str, float]]], ideal: float, span_ideal: float) -> None:
    """Medians of each command's figures (``ideal``: N x latency / C)."""
    import statistics

    print(f"whole process, exec to exit (medians of {len(next(iter(rows.values())))} runs):")
    head = f"{'command':52s} {'wall s':>7s} {'x ideal':>7s} {'to 1st':>7s} {'tail':>6s}"
    print(f"{head} {'span/ideal':>10s} {'CPU s':>6s}")
    for name, runs in rows.items():
        m = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(
            f"{name:52s} {m['wall']:7.2f} {m['wall'] / ideal:7.3f} {m['to_first']:7.2f} "
            f"{m['tail']:6.2f} {m['span'] / span_ideal:10.3f} {m['cpu']:6.2f}"
        )
