"""Runs stream: chunk by chunk, rows on disk, memory flat as the dataset grows (issue 10 §9)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from taiwa.benchmarks import get_method
from taiwa.core.samples import sample_path
from taiwa.harness import samples as samples_module
from taiwa.harness.config import RunConfig
from taiwa.harness.rows import RowStore
from taiwa.harness.runner import run
from taiwa.harness.samples import SampleSource
from taiwa.models.builtin import BuiltinModel
from taiwa.models.types import ChatRequest


def _files(run_dir: Path) -> dict[str, Any]:
    """Every output file of a run (JSONL as rows; the summary without its timings)."""
    out: dict[str, Any] = {}
    for p in sorted(run_dir.iterdir()):
        if p.suffix == ".jsonl":
            out[p.name] = [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines()]
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    summary.pop("seconds")
    for calls in summary["calls"]:
        calls.pop("seconds")
    out["summary.json"] = summary
    return out


def _run_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **cfg: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The same run in one chunk and in chunks of 3 samples (each with a fresh cache)."""

    def config(name: str) -> RunConfig:
        cache = {"cache_dir": tmp_path / f"cache-{name}"} if "models" in cfg else {}
        return RunConfig(out=tmp_path / name, concurrency=2, **cache, **cfg)

    whole = run(config("whole"), get_method(cfg["method"]), show_progress=False)
    monkeypatch.setattr(samples_module, "CHUNK", 3)
    monkeypatch.setattr(samples_module, "ROUNDS", 1)
    chunked = run(config("chunked"), get_method(cfg["method"]), show_progress=False)
    assert whole.failures == chunked.failures == 0
    return _files(whole.run_dir), _files(chunked.run_dir)


def test_prompts_in_chunks_write_what_one_chunk_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = ["builtin:parrot", "builtin:eliza", "human"]
    whole, chunked = _run_both_ways(tmp_path, monkeypatch, method="prompts", models=models)
    assert whole == chunked
    ids = [r["id"] for r in whole["responses.jsonl"]]
    assert len(ids) == 3 * 8 and ids[:8] == ids[8:16]  # system after system, sample order


def test_da_response_in_chunks_write_what_one_chunk_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = ["builtin:fixed", "builtin:parrot"]
    whole, chunked = _run_both_ways(tmp_path, monkeypatch, method="da-response", models=models)
    assert whole == chunked
    assert set(whole) >= {"responses.jsonl", "annotations.jsonl", "scores.jsonl"}


def test_cohesion_in_chunks_writes_what_one_chunk_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole, chunked = _run_both_ways(tmp_path, monkeypatch, method="cohesion")
    assert whole == chunked
    assert whole["summary.json"]["across"]["examples"]  # gathered while the rows stream by


class _Staggered(BuiltinModel):
    """The parrot, two requests at a time, each answered after 20 ms; ``slow`` after 300 ms.
    It logs ("start"|"end", prompt) as requests come and go."""

    def __init__(self, slow: str) -> None:
        super().__init__("parrot")
        self.concurrency = 2
        self.slow = slow
        self.log: list[tuple[str, str]] = []

    async def _complete(self, request: ChatRequest) -> str:
        text = request.last_user_text
        self.log.append(("start", text))
        await asyncio.sleep(0.3 if text == self.slow else 0.02)
        self.log.append(("end", text))
        return text


def test_the_next_chunk_starts_while_the_last_replies_of_one_are_awaited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of 4 samples at concurrency 2, the last sample of the first chunk slow: the
    second chunk's first request goes out before that reply is in (a free slot is not left
    idle at a chunk's seam), and the rows are still written in the samples' order."""
    data = tmp_path / "prompts.jsonl"
    data.write_text("".join(f'{{"id": "p{i}", "prompt": "q{i}"}}\n' for i in range(8)), "utf-8")
    monkeypatch.setattr(samples_module, "CHUNK", 4)
    monkeypatch.setattr(samples_module, "ROUNDS", 1)
    model = _Staggered(slow="q3")
    cfg = RunConfig(
        method="prompts", models=["builtin:parrot"], data=data, out=tmp_path / "run",
        no_cache=True, concurrency=2,
    )  # fmt: skip
    res = run(cfg, get_method("prompts"), preloaded={"builtin:parrot": model}, show_progress=False)
    assert res.failures == 0
    assert model.log.index(("start", "q4")) < model.log.index(("end", "q3")), model.log
    rows = (res.run_dir / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(r)["id"] for r in rows] == [f"p{i}" for i in range(8)]


class _Timed(BuiltinModel):
    """A built-in baseline, two requests at a time, each answered after 10 ms, logging when
    each request starts and ends."""

    def __init__(self, name: str, log: list[tuple[str, str, float]]) -> None:
        super().__init__(name)
        self.concurrency = 2
        self.log = log

    async def _complete(self, request: ChatRequest) -> str:
        self.log.append((self.name, "start", time.perf_counter()))
        await asyncio.sleep(0.01)
        reply = await super()._complete(request)
        self.log.append((self.name, "end", time.perf_counter()))
        return reply


def test_a_judge_works_on_one_chunk_while_the_system_answers_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two stages call models (the system, then a judge): chunks are a few rounds long and
    the judge's requests go out while the system still answers later chunks, instead of the
    judge waiting for the system's last reply; the rows are those of a one-chunk run."""
    log: list[tuple[str, str, float]] = []
    models = {"builtin:fixed": _Timed("fixed", log), "builtin:eliza": _Timed("eliza", log)}

    def config(name: str) -> RunConfig:
        return RunConfig(
            method="chitchat", models=["builtin:fixed"], roles={"judge": "builtin:eliza"},
            options={"judge_modes": "single", "judge_attempts": 1}, out=tmp_path / name,
            no_cache=True, concurrency=2, limit=24,
        )  # fmt: skip

    chunked = run(config("chunked"), get_method("chitchat"), preloaded=models, show_progress=False)
    system_done = max(t for who, what, t in log if who == "fixed" and what == "end")
    judge_starts = [t for who, what, t in log if who == "eliza" and what == "start"]
    assert len(judge_starts) >= 12  # the replies the judge could read (the rest: no reply)
    assert sum(t < system_done for t in judge_starts) >= len(judge_starts) // 2, log
    monkeypatch.setattr(samples_module, "PIPELINE_ROUNDS", 1000)  # one chunk
    whole = run(config("whole"), get_method("chitchat"), preloaded=models, show_progress=False)
    assert whole.failures == chunked.failures
    assert _files(whole.run_dir) == _files(chunked.run_dir)


def test_the_response_caches_queue_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows put faster than the writer commits them wait for it once
    :data:`~taiwa.models.cache.MAX_PENDING` are queued beside the batch it commits (100,000
    parrot replies queued 66,000 rows before, and peak RSS grew with the run); every row is
    still committed."""
    from taiwa.models import cache as cache_module

    monkeypatch.setattr(cache_module, "MAX_PENDING", 10)
    real = cache_module.ResponseCache._commit

    def slow(self: Any, db: Any, batch: Any) -> None:
        time.sleep(0.01)
        real(self, db, batch)

    monkeypatch.setattr(cache_module.ResponseCache, "_commit", slow)
    cache = cache_module.ResponseCache(tmp_path / "c.sqlite")
    queued = []
    for i in range(200):
        cache.put(f"k{i}", f"返事{i}")
        queued.append(len(cache._pending))
    cache.close()
    assert 10 <= max(queued) <= 2 * 10  # queued, beside the batch being committed
    again = cache_module.ResponseCache(tmp_path / "c.sqlite")
    keys = [f"k{i}" for i in range(200)]
    assert again.get_many(keys) == {k: f"返事{k[1:]}" for k in keys}
    again.close()


def test_spill_files_are_removed_and_a_killed_runs_are_cleaned(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    stale = out / f"{RowStore.PREFIX}killed"
    stale.mkdir()
    (stale / "0.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")
    cfg = RunConfig(method="prompts", models=["builtin:parrot"], out=out, no_cache=True)
    res = run(cfg, get_method(cfg.method), show_progress=False)
    assert not any(p.name.startswith(RowStore.PREFIX) for p in out.iterdir())
    # the rows of stages with an output file stay readable after the run; the others are gone
    assert len(list(res.results.rows("generate", "builtin:parrot"))) == 8
    assert len(res.results.ok("score", "builtin:parrot")) == 8


def test_sample_source_keeps_the_first_chunk_and_rereads_the_rest() -> None:
    loads = 0

    def load() -> Iterator[int]:
        nonlocal loads
        loads += 1
        yield from range(10)

    small = SampleSource(load, chunk=16)
    assert (len(small), list(small), list(small.chunks()), loads) == (
        10,
        list(range(10)),
        [list(range(10))],
        1,
    )
    loads = 0
    large = SampleSource(load, limit=7, chunk=3)
    assert len(large) == 7 and loads == 1  # validated and counted once, the first chunk kept
    chunks = large.chunks()
    assert next(chunks) == [0, 1, 2] and loads == 1  # the run starts without a second read
    assert list(chunks) == [[3, 4, 5], [6]] and loads == 2
    assert list(large) == list(range(7)) and loads == 3
    loads = 0
    exact = SampleSource(load, chunk=10)
    assert list(exact.chunks()) == [list(range(10))] and list(exact) == list(range(10))
    assert loads == 1


def test_a_list_from_load_is_kept_whole_and_never_read_again() -> None:
    """A method whose ``load`` returns a list holds its samples itself (intent, up to 10,000
    items): the chunks and every later pass (the aggregate's) come from that list, without
    reading the file again."""
    loads = 0

    def load() -> list[int]:
        nonlocal loads
        loads += 1
        return list(range(10))

    held = SampleSource(load, chunk=3)
    assert list(held.chunks()) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert list(held) == list(range(10)) and len(held) == 10 and loads == 1
    limited = SampleSource(load, limit=4, chunk=3)
    assert list(limited.chunks()) == [[0, 1, 2], [3]] and list(limited) == [0, 1, 2, 3]
    assert len(limited) == 4 and loads == 2
    empty = SampleSource(list, chunk=3)
    assert (len(empty), list(empty.chunks())) == (0, [[]])


def _peak_rss_mb(args: list[str]) -> float:
    proc = subprocess.Popen(
        [sys.executable, "-m", "taiwa", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert os.waitstatus_to_exitcode(status) == 0, err
    return float(usage.ru_maxrss) / 1024


def test_peak_memory_does_not_grow_with_the_dataset(tmp_path: Path) -> None:
    """10x the prompts and 4x the dialogues within 1.2x the peak RSS (benchmarks/run_memory.py
    measures 100,000 prompts and 10,000 dialogues the same way)."""
    base = [json.loads(x) for x in sample_path("cohesion/dialogues.jsonl").open(encoding="utf-8")]
    peaks: dict[tuple[str, int], float] = {}
    for n in (2_000, 20_000):
        data = tmp_path / f"p{n}.jsonl"
        data.write_text(
            "".join(
                json.dumps({"id": f"q{i}", "prompt": f"週末の予定は？その{i}"}, ensure_ascii=False)
                + "\n"
                for i in range(n)
            ),
            encoding="utf-8",
        )
        peaks["prompts", n] = _peak_rss_mb(
            ["run", "prompts", "-m", "builtin:parrot", "--data", str(data), "--quiet",
             "--out", str(tmp_path / f"rp{n}"), "--cache-dir", str(tmp_path / f"c{n}")]
        )  # fmt: skip
    for n in (1_000, 4_000):
        data = tmp_path / f"d{n}.jsonl"
        data.write_text(
            "".join(
                json.dumps(dict(base[i % len(base)], id=f"d{i}"), ensure_ascii=False) + "\n"
                for i in range(n)
            ),
            encoding="utf-8",
        )
        peaks["cohesion", n] = _peak_rss_mb(
            ["run", "cohesion", "--data", str(data), "--quiet", "--out", str(tmp_path / f"rd{n}")]
        )
    print({k: round(v, 1) for k, v in peaks.items()})
    assert peaks["prompts", 20_000] <= 1.2 * peaks["prompts", 2_000], peaks
    assert peaks["cohesion", 4_000] <= 1.2 * peaks["cohesion", 1_000], peaks
