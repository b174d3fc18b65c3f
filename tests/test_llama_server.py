"""The OpenAI-compatible backend against a real server: llama-cpp-python's own
(``python -m llama_cpp.server``) serving the embedded demo GGUF on a loopback port."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli import taiwa
from taiwa.core.errors import EndpointError
from taiwa.models.cache import default_cache_dir
from taiwa.models.embedded import embedded_model_path
from taiwa.models.llama_cpp_backend import default_threads
from taiwa.models.openai_compat import STRUCTURED_MODES, OpenAICompatModel
from taiwa.models.types import ChatMessage, ChatRequest, ContentPart, GenerationParams

pytestmark = pytest.mark.slow
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
SERVER_MODULES = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context")
SYSTEM = "あなたは親切なアシスタントです。日本語で短く答えてください。"
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if missing:  # installed by the dev extra: a missing module is a broken install, not a skip
        pytest.fail(f"llama-cpp-python[server] is not installed (missing {missing})")
    model = embedded_model_path(default_cache_dir())
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model)]
    threads = str(default_threads())  # the worker's share of the cores under xdist
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", threads]
    cmd += ["--n_threads_batch", threads]  # its default is every core, whatever --n_threads
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                tail = log_path.read_text(errors="replace")[-2000:]
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{tail}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{url}/models", timeout=2) as resp,
            ):
                if resp.status == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not answer /v1/models within 120 s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(15)


def _model(url: str) -> OpenAICompatModel:
    return OpenAICompatModel("demo", base_url=url, concurrency=2, timeout=300.0, max_retries=2)


def _request(i: int, user: str | list[ContentPart], **params: object) -> ChatRequest:
    params = {"temperature": 0.0, "max_tokens": 32, "seed": i, **params}
    return ChatRequest(
        id=f"r{i}",
        messages=[
            ChatMessage(role="system", content=SYSTEM),
            ChatMessage(role="user", content=user),
        ],
        params=GenerationParams(**params),
    )


def test_plain_japanese_chat(server_url: str) -> None:
    model = _model(server_url)
    asyncio.run(model.check())
    prompts = ["こんにちは。今日はいい天気ですね。", "おすすめの本を一冊教えてください。"]
    out = asyncio.run(model.generate([_request(i, p) for i, p in enumerate(prompts)]))
    assert all(r.ok for r in out), [r.error for r in out]
    assert all((r.text or "").strip() for r in out)
    assert any(JAPANESE.search(r.text or "") for r in out)
    assert model.http_requests == len(prompts)  # nothing retried
    assert model.structured_mode is None


def test_structured_output_is_negotiated(server_url: str) -> None:
    model = _model(server_url)
    questions = ["日本の首都はどこですか？一語で答えてください。", "富士山は何県にありますか？"]
    reqs = [_request(i, q, json_schema=SCHEMA) for i, q in enumerate(questions)]
    out = asyncio.run(model.generate(reqs))
    assert all(r.ok for r in out), [r.error for r in out]
    # llama-cpp-python 0.3.x rejects "json_schema" (HTTP 500) and takes "json_object" + schema;
    # a newer server may take "json_schema" itself. Either way JSON came back.
    mode = model.structured_mode
    assert mode in ("json_schema", "json_object")
    for r in out:
        data = json.loads(r.text or "")
        assert isinstance(data, dict) and isinstance(data.get("answer"), str)
    # every rejected mode cost one request, never retried; the rest went straight to `mode`
    assert model.http_requests == len(reqs) + STRUCTURED_MODES.index(mode)


def test_two_text_parts(server_url: str) -> None:
    # As the da-response benchmark sends: the server's chat template needs a string, and a list
    # of parts used to fail with HTTP 500 ("can only concatenate str (not "list") to str").
    parts = [
        ContentPart(type="text", text="A: 明日の会議、何時からでしたっけ？"),
        ContentPart(type="text", text="上の発話に対するBの応答を一つ書いてください。"),
    ]
    model = _model(server_url)
    [res] = asyncio.run(model.generate([_request(0, parts)]))
    assert res.ok, res.error
    assert (res.text or "").strip()
    assert model.http_requests == 1


def test_unknown_path_stops_at_once(server_url: str) -> None:
    # a wrong base URL fails every request alike: the first 404 stops the batch, no retry
    model = _model(server_url.removesuffix("/v1") + "/nope")
    requests = [_request(i, "こんにちは") for i in range(5)]
    with pytest.raises(EndpointError, match=r"HTTP 404.*check --base-url"):
        asyncio.run(model.generate(requests))
    assert model.http_requests <= model.concurrency


def test_bearer_token_is_accepted(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The token is sent as "Authorization: Bearer ..." (llama_cpp.server without --api_key
    # accepts any) and never kept on the model.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local-test")
    model = _model(server_url)
    asyncio.run(model.check())
    [res] = asyncio.run(model.generate([_request(0, "はい", max_tokens=8)]))
    assert res.ok, res.error
    assert "sk-local-test" not in repr(vars(model))


def _summary(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "summary.json").read_text(encoding="utf-8")))


def test_cli_runs_against_the_real_server(server_url: str, tmp_path: Path) -> None:
    """`taiwa run prompts` and `taiwa run da-response` with the system and the annotator both
    `openai:` on llama_cpp.server: zero failed requests (issue: every da-response request
    failed with HTTP 500, and the annotator's json_schema was retried 162 times for 3)."""
    # llama_cpp.server answers one request at a time and the client's timeout counts the time a
    # request waits in the server's queue: one in flight and a generous timeout, so a loaded CI
    # machine (the annotator's prompts are ~900 tokens) cannot turn queueing into failures
    common = ["--base-url", server_url, "--cache-dir", str(tmp_path / "c"), "-q", "--limit", "3"]
    common += ["--concurrency", "1", "--timeout", "600"]
    r = taiwa(
        "run",
        "prompts",
        "-m",
        "openai:demo",
        "--max-tokens",
        "32",
        "--out",
        str(tmp_path / "p"),
        *common,
    )
    assert r.returncode == 0, r.stderr
    [calls] = _summary(tmp_path / "p")["calls"]
    assert (calls["requests"], calls["failures"]) == (3, 0)

    r = taiwa(
        "run",
        "da-response",
        "-m",
        "openai:demo",
        "--annotator",
        "openai:demo",
        "--max-tokens",
        "48",
        "--max-failures",
        "3",
        "--out",
        str(tmp_path / "d"),
        *common,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    s = _summary(tmp_path / "d")
    by_role = {c["role"]: c for c in s["calls"]}
    assert by_role["system"]["requests"] == 3 and by_role["system"]["failures"] == 0
    annotator = by_role["annotator"]
    assert annotator["failures"] == 0  # no request rejected: structured output was negotiated
    assert 3 <= annotator["requests"] <= 9  # at most the 3 repair rounds, never a retry storm
    # issue 24: the server refuses json_schema with a 500 once; that request is the backend's
    # own (a probe), counted apart, and never makes sent exceed req
    assert (annotator["probes"], annotator["retries"]) == (1, 0)
    assert annotator["calls"] + annotator["cache_hits"] == annotator["requests"]
    assert "annotator openai:demo: 0 retries, 1 probes" in " ".join(r.stdout.split())
    # issue 27: tokens from the server's usage, per role
    for role in ("system", "annotator"):
        c = by_role[role]
        assert c["tokens_in"] > 0 and c["tokens_out"] > 0 and c["usage_unknown"] == 0, c
    assert s["failures"]["generate"] == 0
    assert s["systems"]["openai:demo"]["scored"] + s["failures"]["annotate"] == 3
