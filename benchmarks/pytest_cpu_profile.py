"""Opt-in pytest plugin: CPU seconds per test, so the suite's cost can be measured on a shared
machine where wall time depends on the other load (issue 29 point 6).

For every test it records the user+sys CPU of the worker process (``RUSAGE_SELF``, threads
included) and of its waited children (``RUSAGE_CHILDREN``: CLI subprocesses, servers), over
setup+call+teardown, and the wall. A session fixture's cost lands on the first test that uses
it. Each process writes one JSON-lines file; ``--summary`` merges them::

    PYTHONPATH=$PWD/src:$PWD/benchmarks TAIWA_CPU_PROFILE=/tmp/prof \\
        .venv/bin/python -m pytest -p pytest_cpu_profile -n 2 --dist worksteal
    .venv/bin/python benchmarks/pytest_cpu_profile.py --summary /tmp/prof [--top 40]

The total CPU divided by the number of cores is a load-independent floor for the suite's wall.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections.abc import Generator
from pathlib import Path

import pytest

PROFILE_ENV = "TAIWA_CPU_PROFILE"


_TICK = os.sysconf("SC_CLK_TCK")


def _live_descendants() -> float:
    """CPU seconds of this process's descendants still running (a Spark JVM, a llama.cpp
    server): ``RUSAGE_CHILDREN`` counts a child only once it has been waited for."""
    children: dict[int, list[int]] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / _TICK
    total, todo = 0.0, list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime + _live_descendants()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    target = os.environ.get(PROFILE_ENV)
    if not target:
        yield
        return
    own0, kids0 = _cpu()
    wall0 = time.perf_counter()
    yield
    own1, kids1 = _cpu()
    row = {
        "test": item.nodeid,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "self": round(own1 - own0, 3),
        "children": round(kids1 - kids0, 3),
        "wall": round(time.perf_counter() - wall0, 3),
    }
    out = Path(target)
    out.mkdir(parents=True, exist_ok=True)
    with (out / f"{row['worker']}-{os.getpid()}.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The process's whole CPU (collection and imports included), beside the per-test rows."""
    target = os.environ.get(PROFILE_ENV)
    if not target:
        return
    own, kids = _cpu()
    row = {"process": os.environ.get("PYTEST_XDIST_WORKER", "main"), "cpu": round(own + kids, 3)}
    with (Path(target) / "processes.json-part").open("a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


def summary(folder: Path, top: int) -> None:
    """Print the tests by CPU (self + children), then totals per file and overall."""
    rows = [
        json.loads(line)
        for path in sorted(folder.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line
    ]
    for row in rows:
        row["cpu"] = row["self"] + row["children"]
    rows.sort(key=lambda r: -r["cpu"])
    print(f"{'cpu':>8} {'self':>8} {'kids':>8} {'wall':>8}  test")
    for r in rows[:top]:
        cells = (r["cpu"], r["self"], r["children"], r["wall"])
        print(" ".join(f"{c:8.1f}" for c in cells), "", r["test"])
    files: dict[str, list[float]] = {}
    for r in rows:
        acc = files.setdefault(r["test"].split("::")[0], [0.0, 0.0, 0])
        acc[0] += r["cpu"]
        acc[1] += r["wall"]
        acc[2] += 1
    print("\nper file:")
    for name, (cpu, wall, n) in sorted(files.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{cpu:8.1f} {wall:8.1f} {int(n):6d}  {name}")
    workers: dict[str, list[float]] = {}
    for r in rows:
        acc = workers.setdefault(r["worker"], [0.0, 0.0])
        acc[0] += r["cpu"]
        acc[1] += r["wall"]
    for name, (cpu, wall) in sorted(workers.items()):
        print(f"worker {name}: cpu {cpu:.1f} s, wall {wall:.1f} s")
    total = sum(r["cpu"] for r in rows)
    parts = folder / "processes.json-part"
    if parts.exists():
        for line in parts.read_text(encoding="utf-8").splitlines():
            proc = json.loads(line)
            print(f"process {proc['process']}: cpu {proc['cpu']:.1f} s (collection included)")
    print(f"tests {len(rows)}, cpu total {total:.1f} s, /2 cores = {total / 2:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary", type=Path, required=True)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args()
    summary(args.summary, args.top)
