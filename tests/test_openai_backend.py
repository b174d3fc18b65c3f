"""The OpenAI-compatible backend against a real local HTTP server with scripted faults."""

from __future__ import annotations

import asyncio
import json

import pytest

from taiwa.errors import TaiwaError
from taiwa.models import ChatMessage, ChatRequest, GenerationParams, ModelOptions, load_model
from taiwa.models.openai_compat import OpenAICompatModel
from taiwa.stub_server import StubState, serve


def _req(i: int, text: str = "こんにちは", **params: object) -> ChatRequest:
    return ChatRequest(
        id=f"r{i}",
        messages=[ChatMessage(role="user", content=text)],
        params=GenerationParams(**params),
    )


def _model(url: str, **kw: object) -> OpenAICompatModel:
    opts = {"base_url": url, "max_retries": 4, "timeout": 5.0, **kw}
    model = load_model("openai:stub", ModelOptions(**opts))  # type: ignore[arg-type]
    assert isinstance(model, OpenAICompatModel)
    model.backoff = 0.01
    return model


@pytest.mark.parametrize("fault", [429, 500, 503, "badjson"])
def test_retries_then_succeeds(fault: int | str) -> None:
    state = StubState(faults=[fault, fault])
    with serve(state) as url:
        [res] = asyncio.run(_model(url).generate([_req(0, "雨が降ってきた")]))
    assert res.ok and res.text == "echo: 雨が降ってきた"
    assert state.hits == 3


def test_timeout_is_retried() -> None:
    state = StubState(faults=["timeout"])
    with serve(state) as url:
        [res] = asyncio.run(_model(url, timeout=0.5).generate([_req(0)]))
    assert res.ok and state.hits == 2


def test_persistent_failure_is_recorded_not_dropped() -> None:
    state = StubState(faults=[500] * 10)
    with serve(state) as url:
        out = asyncio.run(_model(url, max_retries=2).generate([_req(0), _req(1)]))
    assert [r.id for r in out] == ["r0", "r1"]
    assert not out[0].ok and "500" in (out[0].error or "")


def test_client_errors_are_not_retried() -> None:
    state = StubState(faults=[400])
    with serve(state) as url:
        [res] = asyncio.run(_model(url).generate([_req(0)]))
    assert not res.ok and state.hits == 1


def test_json_schema_is_sent() -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
    }
    with serve(StubState()) as url:
        [res] = asyncio.run(_model(url).generate([_req(0, "天気", json_schema=schema)]))
    assert json.loads(res.text or "") == {"answer": "天気"}


def test_concurrency_and_order() -> None:
    state = StubState(latency=0.2)
    reqs = [_req(i, f"質問{i}") for i in range(20)]
    with serve(state) as url:
        model = _model(url, concurrency=20)
        seen: list[str] = []
        out = asyncio.run(model.generate(reqs, on_response=lambda r: seen.append(r.id)))
    assert [r.text for r in out] == [f"echo: 質問{i}" for i in range(20)]
    assert sorted(seen) == sorted(r.id for r in reqs)


def test_rate_limit_spaces_requests() -> None:
    import time

    with serve(StubState()) as url:
        model = _model(url, rpm=600.0, concurrency=8)  # one start every 0.1 s
        t0 = time.perf_counter()
        asyncio.run(model.generate([_req(i) for i in range(6)]))
    assert time.perf_counter() - t0 >= 0.45


def test_unreachable_server_is_one_clear_error() -> None:
    model = _model("http://127.0.0.1:9/v1")
    with pytest.raises(TaiwaError, match=r"cannot reach .* check --base-url"):
        asyncio.run(model.check())
