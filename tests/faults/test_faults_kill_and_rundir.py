"""SIGKILL at random moments and resume; parallel runs on one cache; run directories (lock,
INCOMPLETE marker, another run refused, --overwrite, temp files, umask) — issue 10, items 5, 6."""

from __future__ import annotations

import os
import random
import signal
import stat
import time
from pathlib import Path

from faults_support import cached_rows, integrity, prompt_of, prompts_file, rows, start, taiwa

from taiwa.testing.stub_server import StubState, serve


def _args(url: str, data: Path, out: Path, cache: Path, *extra: str) -> list[str]:
    return [
        "run", "prompts", "-m", "openai:stub", "--base-url", url, "--data", str(data),
        "--out", str(out), "--cache-dir", str(cache), "-q", *extra,
    ]  # fmt: skip


def test_sigkill_at_random_moments_then_resume(tmp_path: Path) -> None:
    n = 150
    data = prompts_file(tmp_path / "p.jsonl", n)
    rng = random.Random(10)
    state = StubState(latency=0.02)
    moments = sorted(rng.uniform(0.8, 3.5) for _ in range(10))  # startup, requests, writing
    with serve(state) as url:
        for k, moment in enumerate(moments):
            out, cache = tmp_path / f"run{k}", tmp_path / f"cache{k}"
            proc = start(*_args(url, data, out, cache, "--concurrency", "4"))
            time.sleep(moment)
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            stored = cached_rows(cache)
            assert integrity(cache) == "ok" if stored else True
            state.asked.clear()
            code, _, err = taiwa(*_args(url, data, out, cache, "--concurrency", "4"))
            assert code == 0, err
            # the rerun sent exactly the requests whose reply was not stored, each once
            assert sum(state.asked.values()) == n - stored, (moment, stored)
            got = rows(out / "responses.jsonl")  # no corrupt line
            assert [r["id"] for r in got] == [f"q{i:04d}" for i in range(n)]
            assert all(r["text"] == f"echo: {prompt_of(i)}" for i, r in enumerate(got))
            assert not list(out.glob(".*.tmp")) and not (out / "INCOMPLETE").exists()


def test_parallel_runs_share_one_cache(tmp_path: Path) -> None:
    n = 400
    cache = tmp_path / "cache"
    with serve(StubState(latency=0.002)) as url:
        procs = [
            start(
                *_args(
                    url,
                    prompts_file(tmp_path / f"p{k}.jsonl", n, tag=f"{k}-" if k else ""),
                    tmp_path / f"run{k}",
                    cache,
                    "--concurrency",
                    "16",
                )
            )
            for k in range(3)
        ]
        results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e for _, e in results]
    assert all("locked" not in e for _, e in results)
    assert integrity(cache) == "ok" and cached_rows(cache) == 3 * n


def test_one_run_at_a_time_per_directory(tmp_path: Path) -> None:
    data = prompts_file(tmp_path / "p.jsonl", 40)
    with serve(StubState(latency=0.2)) as url:
        first = start(*_args(url, data, tmp_path / "run", tmp_path / "c", "--concurrency", "2"))
        deadline = time.monotonic() + 60
        while not (tmp_path / "run" / "INCOMPLETE").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        code, _, err = taiwa(*_args(url, data, tmp_path / "run", tmp_path / "c2"))
        assert code == 1 and "another taiwa run is writing" in err, err
        assert first.wait(120) == 0


def test_another_run_is_refused_unless_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "run"
    common = ["-m", "builtin:parrot", "--out", str(out), "--cache-dir", str(tmp_path / "c"), "-q"]
    assert taiwa("run", "prompts", *common)[0] == 0
    (out / ".responses.jsonl.x1y2.tmp").write_text("half a line", encoding="utf-8")
    assert taiwa("run", "prompts", *common)[0] == 0  # the same run again: replaced
    assert not list(out.glob(".*.tmp"))  # what a killed writer left is cleaned
    code, _, err = taiwa("run", "prompts", *common, "--seed", "3")
    assert code == 2 and "holds another run" in err and "--overwrite" in err
    code, _, err = taiwa("run", "prompts", *common, "--seed", "3", "--overwrite")
    assert code == 0, err
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("x", encoding="utf-8")
    code, _, err = taiwa(
        "run", "prompts", "-m", "builtin:parrot", "--out", str(tmp_path / "mine"), "--overwrite"
    )
    assert code == 2 and "holds no taiwa run" in err
    assert (tmp_path / "mine" / "thesis.tex").exists()


def test_outputs_honour_the_umask(tmp_path: Path) -> None:
    out = tmp_path / "run"
    old = os.umask(0o027)
    try:
        code, _, err = taiwa("run", "prompts", "-m", "builtin:parrot", "--out", str(out), "-q")
    finally:
        os.umask(old)
    assert code == 0, err
    for name in ("config.json", "responses.jsonl", "summary.json"):
        assert stat.S_IMODE((out / name).stat().st_mode) == 0o640, name
