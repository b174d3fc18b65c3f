"""The runner: run directories, caching, resume after SIGKILL, replay, config files, errors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from taiwa.benchmarks import get_method
from taiwa.core.errors import TaiwaError
from taiwa.harness.config import RunConfig, resolve_config
from taiwa.harness.runner import run
from taiwa.testing.stub_server import StubState, serve


def _prompts(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "prompts.jsonl"
    lines = [
        json.dumps({"id": f"q{i:03d}", "prompt": f"{i}番目の質問です"}, ensure_ascii=False)
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_run_directory_and_second_run_makes_no_calls(tmp_path: Path) -> None:
    cfg = RunConfig(
        method="prompts", models=["builtin:parrot"], out=tmp_path / "run", cache_dir=tmp_path / "c"
    )
    first = run(cfg, get_method(cfg.method), show_progress=False)
    [calls] = first.summary["calls"]
    assert (calls["requests"], calls["calls"], calls["cache_hits"], first.failures) == (8, 8, 0, 0)
    for name in ("config.json", "responses.jsonl", "scores.jsonl", "summary.json"):
        assert (tmp_path / "run" / name).exists()
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert config["config"]["models"] == ["builtin:parrot"] and config["taiwa_version"]
    assert set(config["input_sha256"]) == {str(config["config"]["data"])}
    second = run(cfg, get_method(cfg.method), show_progress=False)
    [calls] = second.summary["calls"]
    assert (calls["calls"], calls["cache_hits"]) == (0, 8)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["calls"][0]["calls"] == 0 and summary["status"] == "ok"
    assert _read_jsonl(tmp_path / "run" / "responses.jsonl")[0]["cached"] is True


def test_openai_run_against_local_server(tmp_path: Path) -> None:
    data = _prompts(tmp_path, 12)
    state = StubState(latency=0.05, faults=[500, 429])
    with serve(state) as url:
        cfg = RunConfig(
            method="prompts",
            models=["openai:stub"],
            base_url=url,
            data=data,
            out=tmp_path / "run",
            cache_dir=tmp_path / "c",
            concurrency=4,
        )
        res = run(cfg, get_method(cfg.method), show_progress=False)
        again = run(cfg, get_method(cfg.method), show_progress=False)
    assert (res.failures, res.summary["calls"][0]["calls"]) == (0, 12)
    assert again.summary["calls"][0]["calls"] == 0 and state.ok == 12
    texts = [r["text"] for r in _read_jsonl(tmp_path / "run" / "responses.jsonl")]
    assert texts == [f"echo: {i}番目の質問です" for i in range(12)]


def test_replay_reports_missing_ids(tmp_path: Path) -> None:
    data = _prompts(tmp_path, 5)
    replay = tmp_path / "replies.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"id": f"q{i:03d}", "text": f"返事{i}"}, ensure_ascii=False) + "\n"
            for i in range(4)
        ),
        encoding="utf-8",
    )
    cfg = RunConfig(
        method="prompts",
        models=[f"replay:{replay}"],
        data=data,
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    res = run(cfg, get_method(cfg.method), show_progress=False)
    assert res.failures == 1 and res.summary["failures"] == {"generate": 1, "score": 0, "item": 0}
    rows = _read_jsonl(tmp_path / "run" / "responses.jsonl")
    assert rows[4]["id"] == "q004" and "no reply for id 'q004'" in str(rows[4]["error"])
    assert [r.get("text") for r in rows[:4]] == [f"返事{i}" for i in range(4)]


def test_config_file_equals_flags(tmp_path: Path) -> None:
    yaml_file = tmp_path / "run.yaml"
    yaml_file.write_text(
        "method: prompts\nmodel: builtin:fixed\nmax-tokens: 64\nseed: 3\n", encoding="utf-8"
    )
    from_file = resolve_config(yaml_file, {"limit": 2})
    from_flags = resolve_config(
        None,
        {"method": "prompts", "models": ["builtin:fixed"], "max_tokens": 64, "seed": 3, "limit": 2},
    )
    assert from_file == from_flags
    yaml_file.write_text(
        "method: da-response\nmodels: [builtin:fixed, builtin:parrot]\n"
        "roles: {annotator: offline}\noptions: {annotator_attempts: 2}\n",
        encoding="utf-8",
    )
    cfg = resolve_config(yaml_file, {"options": {"annotator_attempts": "4"}})
    assert cfg.models == ["builtin:fixed", "builtin:parrot"]
    assert cfg.roles == {"annotator": "offline"} and cfg.options == {"annotator_attempts": "4"}
    yaml_file.write_text("method: prompts\nmodel: demo\nbogus: 1\n", encoding="utf-8")
    with pytest.raises(TaiwaError, match="bogus"):
        resolve_config(yaml_file, {})


def taiwa(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "taiwa", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


def test_sigkill_and_resume_sends_only_unfinished(tmp_path: Path) -> None:
    n = 30
    data = _prompts(tmp_path, n)
    state = StubState(latency=0.15)
    with serve(state) as url:
        args = [
            "run",
            "prompts",
            "-m",
            "openai:stub",
            "--base-url",
            url,
            "--data",
            str(data),
            "--out",
            str(tmp_path / "run"),
            "--cache-dir",
            str(tmp_path / "c"),
            "--concurrency",
            "2",
            "-q",
        ]
        proc = taiwa(*args)
        deadline = time.time() + 60
        while state.ok < 8 and time.time() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        time.sleep(0.5)  # requests in flight at the kill still finish on the server side
        assert not (tmp_path / "run" / "responses.jsonl").exists()  # nothing half-written
        with sqlite3.connect(tmp_path / "c" / "responses.sqlite") as db:
            cached = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        assert 0 < cached < n
        before = state.ok
        out, errout = taiwa(*args).communicate(timeout=120)
        assert "model calls per role" in out, errout
        assert state.ok - before == n - cached  # only the unfinished requests were sent
        taiwa(*args).communicate(timeout=120)
    rows = _read_jsonl(tmp_path / "run" / "responses.jsonl")
    assert [r["id"] for r in rows] == [f"q{i:03d}" for i in range(n)]
    assert all(r.get("text") == f"echo: {i}番目の質問です" for i, r in enumerate(rows))
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["calls"][0]["calls"] == 0 and summary["calls"][0]["cache_hits"] == n


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    cases = [
        (["run", "prompts", "-m", "banana"], "bad model spec 'banana'"),
        (["run", "nosuch", "-m", "builtin:parrot"], "unknown method 'nosuch'"),
        (
            ["run", "prompts", "-m", "builtin:parrot", "--data", str(tmp_path / "no.jsonl")],
            "no.jsonl: expected an existing file",
        ),
        (["run", "prompts", "-m", "gguf:/nonexistent.gguf"], "GGUF model file not found"),
        (
            ["run", "prompts", "-m", "openai:x", "--base-url", "http://127.0.0.1:9/v1"],
            "cannot reach",
        ),
    ]
    for args, message in cases:
        _, err = taiwa(
            *args, "--cache-dir", str(tmp_path / "c"), "--out", str(tmp_path / "o")
        ).communicate(timeout=120)
        assert message in err, (args, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_run_that_fails_before_its_first_request_leaves_no_directory(tmp_path: Path) -> None:
    """Issue 42: a run stopped by the endpoint check (a server that cannot be reached, a key
    refused) leaves no ``INCOMPLETE`` run directory: the directories it made are removed, and
    a directory that was there before is left as it was found."""
    from taiwa.core.errors import EndpointError

    def _run(out: Path, url: str) -> None:
        cfg = RunConfig(method="prompts", models=["openai:x"], base_url=url, out=out,
                        cache_dir=tmp_path / "cache", retry_window=0.1)  # fmt: skip
        with pytest.raises(EndpointError):
            run(cfg, get_method("prompts"), show_progress=False)

    _run(tmp_path / "runs" / "prompts" / "x", "http://127.0.0.1:9/v1")  # connection refused
    assert not (tmp_path / "runs").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    with serve(StubState(models_status=401)) as url:
        _run(mine / "run", url)
        assert not (mine / "run").exists() and [p.name for p in mine.iterdir()] == ["notes.txt"]
        empty = tmp_path / "empty"
        empty.mkdir()
        _run(empty, url)
        assert empty.is_dir() and not list(empty.iterdir())
