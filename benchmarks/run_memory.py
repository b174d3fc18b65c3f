"""Peak memory of a run as the dataset grows: the runner streams, so it should not grow.

    python benchmarks/run_memory.py [--small 1000] [--large 100000] [--dialogues 1000,10000]
                                    [--methods openai,parrot,cohesion]

Runs ``taiwa run prompts`` (one ``openai:`` system against a local responder with no latency,
a fresh cache; and ``-m builtin:parrot``, as a new user first tries it, issue 25) on ``--small``
and ``--large`` prompts, and ``taiwa run cohesion`` on the two
``--dialogues`` sizes, each in its own process through the real CLI, and prints each run's
peak RSS (the kernel's ``ru_maxrss`` of that process) and the ratio large/small. Target:
<= 1.2 for every method (issues 10, 40). Figures and what made memory grow: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from taiwa.core.samples import sample_path

_HERE = Path(__file__).resolve().parent


def _responder() -> object:
    """The minimal HTTP responder of ``runner_overhead.py`` (one implementation)."""
    spec = importlib.util.spec_from_file_location("runner_overhead", _HERE / "runner_overhead.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prompts(path: Path, n: int) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            rec = {"id": f"q{i}", "prompt": f"今日の予定について教えてください。質問番号{i}です。"}
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def _dialogues(path: Path, n: int) -> None:
    """``n`` dialogues: the bundled ones repeated under new ids."""
    base = [json.loads(line) for line in sample_path("cohesion/dialogues.jsonl").open()]
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            rec = dict(base[i % len(base)], id=f"d{i}")
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def _peak_rss(args: list[str]) -> tuple[float, float]:
    """Peak RSS (MB) and wall seconds of ``taiwa ARGS`` in a child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "taiwa", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"taiwa {' '.join(args)} failed:\n{err}")
    return usage.ru_maxrss / 1024, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--small", type=int, default=1000)
    ap.add_argument("--large", type=int, default=100_000)
    ap.add_argument("--dialogues", default="1000,10000")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--methods", default="openai,parrot,cohesion", help="which runs to measure")
    args = ap.parse_args()
    small_d, large_d = (int(x) for x in args.dialogues.split(","))
    methods = set(args.methods.split(","))
    rows: list[tuple[str, int, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp, _responder().stub_process(0.0) as url:  # type: ignore[attr-defined]
        t = Path(tmp)
        for n in (args.small, args.large):
            _prompts(t / f"prompts-{n}.jsonl", n)
        for n in (args.small, args.large) if "openai" in methods else ():
            data = t / f"prompts-{n}.jsonl"
            rss, wall = _peak_rss(
                ["run", "prompts", "--model", "openai:stub", "--base-url", url, "--data", str(data),
                 "--out", str(t / f"run-{n}"), "--cache-dir", str(t / f"cache-{n}"),
                 "--concurrency", str(args.concurrency), "--max-tokens", "16", "--quiet"]
            )  # fmt: skip
            rows.append(("prompts", n, rss, wall))
        for n in (args.small, args.large) if "parrot" in methods else ():
            rss, wall = _peak_rss(
                ["run", "prompts", "-m", "builtin:parrot", "--data", str(t / f"prompts-{n}.jsonl"),
                 "--out", str(t / f"parrot-{n}"), "--cache-dir", str(t / f"pcache-{n}")]
            )  # fmt: skip
            rows.append(("parrot", n, rss, wall))
        for n in (small_d, large_d) if "cohesion" in methods else ():
            data = t / f"dialogues-{n}.jsonl"
            _dialogues(data, n)
            rss, wall = _peak_rss(
                ["run", "cohesion", "--data", str(data), "--out", str(t / f"coh-{n}"), "--quiet"]
            )
            rows.append(("cohesion", n, rss, wall))
    print(f"{'method':10s} {'samples':>8s} {'peak RSS MB':>12s} {'wall s':>8s} {'RSS ratio':>10s}")
    first: dict[str, float] = {}
    for method, n, rss, wall in rows:
        ratio = rss / first.setdefault(method, rss)
        print(f"{method:10s} {n:8d} {rss:12.1f} {wall:8.1f} {ratio:10.2f}")
    print("target: large/small <= 1.20 for each method")


if __name__ == "__main__":
    main()
