"""Caches keyed by content (a changed replay file, base URL or GGUF file changes the result) and
no secret in any output file, log line or message — issue 10, items 1 and 7."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from faults_support import prompts_file, rows, taiwa

from taiwa.benchmarks import get_method
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.models.cache import default_cache_dir
from taiwa.models.embedded import embedded_model_path
from taiwa.testing.stub_server import StubState, serve


def test_editing_a_replay_file_changes_the_scored_reply(tmp_path: Path) -> None:
    data = prompts_file(tmp_path / "p.jsonl", 3)
    replay = tmp_path / "replies.jsonl"

    def write(text: str) -> None:
        lines = [json.dumps({"id": f"q{i:04d}", "text": f"{text}{i}"}) for i in range(3)]
        replay.write_text("\n".join(lines) + "\n", encoding="utf-8")

    common = [
        "--data", str(data), "--out", str(tmp_path / "run"), "--cache-dir", str(tmp_path / "c"),
    ]  # fmt: skip
    write("はい")
    assert taiwa("run", "prompts", "-m", f"replay:{replay}", *common, "-q")[0] == 0
    write("いいえ、違います")
    code, _, err = taiwa("run", "prompts", "-m", f"replay:{replay}", *common, "-q", "--overwrite")
    assert code == 0, err
    assert [r["text"] for r in rows(tmp_path / "run" / "responses.jsonl")] == [
        f"いいえ、違います{i}" for i in range(3)
    ]


def test_another_base_url_is_another_model(tmp_path: Path) -> None:
    data = prompts_file(tmp_path / "p.jsonl", 6)
    a, b = StubState(), StubState()
    with serve(a) as url_a, serve(b) as url_b:
        for url in (url_a, url_b, url_a):
            cfg = RunConfig(
                method="prompts",
                models=["openai:stub"],
                base_url=url,
                data=data,
                out=tmp_path / "run",
                cache_dir=tmp_path / "c",
            )
            run(cfg, get_method(cfg.method), show_progress=False, overwrite=True)
    assert (a.hits, b.hits) == (6, 6)  # B was asked, not served A's replies; A then cached


def test_changed_gguf_weights_are_another_model(tmp_path: Path) -> None:
    original = embedded_model_path(default_cache_dir())
    copy = tmp_path / "model.gguf"
    shutil.copyfile(original, copy)
    data = prompts_file(tmp_path / "p.jsonl", 2)

    def calls() -> int:
        cfg = RunConfig(
            method="prompts",
            models=[f"gguf:{copy}"],
            data=data,
            out=tmp_path / "run",
            cache_dir=tmp_path / "c",
            max_tokens=8,
        )
        res = run(cfg, get_method(cfg.method), show_progress=False, overwrite=True)
        return int(res.summary["calls"][0]["calls"])

    assert calls() == 2
    assert calls() == 0  # same file: cached
    with open(copy, "r+b") as fh:  # same name, same size, same first MiB; last bytes differ
        fh.seek(-64, 2)
        tail = fh.read(64)
        fh.seek(-64, 2)
        fh.write(bytes(b ^ 0x01 for b in tail))
    assert calls() == 2


SECRETS = ("sk-test-Zq8xLm3Np7Rt", "QUERYSECRET42")


def test_no_secret_reaches_any_file_or_message(tmp_path: Path) -> None:
    data = prompts_file(tmp_path / "p.jsonl", 30)
    env = {"OPENAI_API_KEY": SECRETS[0]}
    state = StubState(fail_rate=0.5, fail_kinds=("500", "html"), echo_auth=True, fail_seed=2)
    with serve(state) as url:
        code, out, err = taiwa(
            "run", "prompts", "-m", "openai:stub", "--base-url", f"{url}?api-key={SECRETS[1]}",
            "--data", str(data), "--out", str(tmp_path / "run"), "--cache-dir",
            str(tmp_path / "c"), "--max-retries", "0",
            env=env,
        )  # fmt: skip
    assert code == 1 and state.failed, err  # failures whose bodies echoed the key
    assert all(h == f"Bearer {SECRETS[0]}" for h in state.auth)  # the key was sent
    stored = (tmp_path / "run" / "responses.jsonl").read_text(encoding="utf-8")
    assert "Authorization: ***" in stored
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    texts = [out, err] + [p.read_bytes().decode("utf-8", "replace") for p in files]
    for secret in SECRETS:
        assert not any(secret in t for t in texts), secret
    code, _, err = taiwa(
        "run", "prompts", "-m", "openai:stub", "--base-url", f"http://me:{SECRETS[1]}@h/v1",
        env=env,
    )  # fmt: skip
    assert code == 2 and "carries credentials" in err and SECRETS[1] not in err
    config = tmp_path / "run.yaml"
    config.write_text(f"method: prompts\nmodel: builtin:parrot\napi_key: {SECRETS[1]}\n")
    code, _, err = taiwa("run", "--config", str(config), env=env)
    assert code == 2 and "api_key" in err and SECRETS[1] not in err
