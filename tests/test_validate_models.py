"""``taiwa validate`` calls a model as ``taiwa run`` does (issue 40 §6, issue 42): the endpoint
checked first with one line, ``--base-url``, the same retries and give-up against a server that
fails everything, and ``--max-failures`` held against the items the helper gave nothing for."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from cli import taiwa_main
from taiwa.core.samples import sample_path
from taiwa.models.openai_errors import GIVE_UP_AFTER
from taiwa.testing.stub_server import StubState, serve

CONCURRENCY = 4
FAIL_FAST = ("--max-retries", "1", "--concurrency", str(CONCURRENCY))


def _closed_url() -> str:
    """A base URL on a local port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _gold(path: Path, n: int) -> Path:
    """``n`` labelled utterances for ``validate tagger --data``."""
    rows = [
        {"id": f"v{k}", "context": "週末どうだった？", "reply": f"山に行ったよ{k}", "act": "意見"}
        for k in range(n)
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _prompts(path: Path, n: int) -> Path:
    rows = [{"id": f"q{k}", "prompt": f"質問{k}です"} for k in range(n)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _one_line(res: Any, code: int, *needles: str) -> str:
    out = (res.stdout + res.stderr).strip()
    assert res.returncode == code, out
    assert len(out.splitlines()) == 1 and "Traceback" not in out, out
    for needle in needles:
        assert needle in out, out
    return out


@pytest.mark.parametrize(
    "command", [["validate", "tagger", "--tagger"], ["validate", "annotator", "--annotator"]]
)
@pytest.mark.parametrize("given", ["--base-url", "OPENAI_BASE_URL"])
def test_an_unreachable_endpoint_is_one_line_at_once(
    command: list[str], given: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = _closed_url()
    args = [*command, "openai:x"]
    if given == "--base-url":
        args += ["--base-url", url]
    else:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
    start = time.monotonic()
    res = taiwa_main(*args)
    _one_line(res, 1, "cannot reach the OpenAI-compatible server at", url, "check --base-url")
    assert time.monotonic() - start < 20  # it hung for 400 s before


def test_model_flags_are_checked_as_run_checks_them() -> None:
    for flag, value, words in (
        ("--base-url", "nonsense", "bad --base-url 'nonsense'"),
        ("--concurrency", "0", "--concurrency: input should be greater than or equal to 1"),
        ("--max-failures", "x", "--max-failures expects N or P%"),
    ):
        res = taiwa_main("validate", "tagger", "--tagger", "openai:x", flag, value)
        _one_line(res, 2, words)


def test_validate_gives_up_like_run_on_a_server_failing_everything(tmp_path: Path) -> None:
    gave_up = (
        f"failed {GIVE_UP_AFTER} requests in a row after their retries (the last: HTTP 500: "
        "injected 500 (gave up after 2 attempts)): stopping"
    )
    commands = {
        "run": [
            "run",
            "prompts",
            "-m",
            "openai:x",
            "--data",
            str(_prompts(tmp_path / "p.jsonl", 60)),
        ],
        "tagger": [
            "validate",
            "tagger",
            "--tagger",
            "openai:x",
            "--data",
            str(_gold(tmp_path / "g.jsonl", 60)),
        ],
        "annotator": ["validate", "annotator", "--annotator", "openai:x"],
    }
    for name, args in commands.items():
        state = StubState(fail_rate=1.0, fail_kinds=("500",))
        extra = ["--out", str(tmp_path / "run"), "--no-cache", "-q"] if name == "run" else []
        with serve(state) as url:
            start = time.monotonic()
            res = taiwa_main(*args, "--base-url", url, *FAIL_FAST, *extra)
            seconds = time.monotonic() - start
        _one_line(res, 1, url, gave_up)
        # each request had its two attempts, and no more requests went than the streak and
        # those in flight (a structured probe first, alone)
        assert state.hits <= 2 * (GIVE_UP_AFTER + CONCURRENCY + 1), (name, state.hits)
        assert seconds < 60, (name, seconds)


def _steps(body: dict[str, Any]) -> str:
    return json.dumps({"steps": [{"act": "Commissive", "importance": 1.0}]})


@pytest.mark.parametrize(("allowed", "code"), [(None, 1), ("1", 0), ("25%", 0), ("10%", 1)])
def test_failed_items_are_held_against_max_failures(
    tmp_path: Path, allowed: str | None, code: int
) -> None:
    gold = tmp_path / "gold.jsonl"
    lines = sample_path("da_response/gold.jsonl").read_text("utf-8").splitlines(True)[:4]
    gold.write_text("".join(lines), "utf-8")
    state = StubState(faults=[400], script=_steps)  # the first request: a client error
    report = tmp_path / "report.json"
    flags = ["--max-failures", allowed] if allowed is not None else []
    with serve(state) as url:
        res = taiwa_main(
            "validate", "annotator", "--annotator", "openai:x", "--data", str(gold),
            "--base-url", url, "--json", str(report), *flags,
        )  # fmt: skip
    assert res.returncode == code, res.stdout + res.stderr
    assert "macro-F1" in res.stdout  # the tables come first
    failures = json.loads(report.read_text("utf-8"))["failures"]
    assert failures == {"failed": 1, "items": 4}  # the failed request was not sent again
    assert state.hits == 4
    said = f"1 failed item(s) exceed --max-failures {allowed or 0}: exit 1"
    assert (said in res.stdout) == (code == 1)
