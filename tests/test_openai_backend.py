"""The OpenAI-compatible backend against a real local HTTP server with scripted faults."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from taiwa.core.errors import EndpointError, TaiwaError
from taiwa.models import ChatMessage, ChatRequest, GenerationParams, ModelOptions, load_model
from taiwa.models.openai_compat import OpenAICompatModel
from taiwa.models.openai_errors import GIVE_UP_AFTER
from taiwa.models.types import ContentPart
from taiwa.testing.stub_server import StubState, serve

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


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
    assert out[0].error == "RequestFailed: HTTP 500: scripted 500 (gave up after 3 attempts)"
    assert state.hits == 6


def test_a_model_gives_up_after_many_requests_in_a_row_failed_for_good() -> None:
    # a server answering 500 to everything: each request spends its retries, then fails; after
    # GIVE_UP_AFTER of them in a row the model stops rather than wait out every other request
    state = StubState(fail_rate=1.0, fail_kinds=("500",))
    with serve(state) as url, pytest.raises(EndpointError) as err:
        asyncio.run(
            _model(url, max_retries=1, concurrency=4).generate([_req(i) for i in range(200)])
        )
    assert f"failed {GIVE_UP_AFTER} requests in a row after their retries" in str(err.value)
    assert "(the last: HTTP 500: " in str(err.value) and "gave up after 2 attempts" in str(
        err.value
    )
    assert state.hits <= 2 * (GIVE_UP_AFTER + 4)  # those requests and the ones in flight


def test_a_reply_between_failures_keeps_the_model_going() -> None:
    # half the requests fail for good (no retries): never GIVE_UP_AFTER in a row
    state = StubState(fail_rate=0.5, fail_kinds=("500",), fail_seed=3)
    with serve(state) as url:
        out = asyncio.run(
            _model(url, max_retries=0, concurrency=4).generate([_req(i) for i in range(300)])
        )
    failed = sum(not r.ok for r in out)
    assert len(out) == 300 and 100 < failed < 200


@pytest.mark.parametrize("status", [400, 422])
def test_client_errors_are_not_retried(status: int) -> None:
    state = StubState(faults=[status])
    with serve(state) as url:
        [res] = asyncio.run(_model(url).generate([_req(0)]))
    assert not res.ok and state.hits == 1
    assert res.error == f"RequestFailed: HTTP {status}: scripted {status}"


@pytest.mark.parametrize("status", [401, 403, 404])
def test_endpoint_errors_stop_the_batch(status: int) -> None:
    # a rejected key or a wrong URL/model fails every request alike: the first one stops all
    state = StubState(faults=[status], latency=0.5)
    with serve(state) as url, pytest.raises(EndpointError, match=f"HTTP {status}"):
        asyncio.run(_model(url, concurrency=1).generate([_req(i) for i in range(20)]))
    assert state.hits == 1


def test_server_side_validation_error_is_not_retried() -> None:
    # llama-cpp-python's server reports a malformed request as HTTP 500 "1 validation error".
    state = StubState(faults=["invalid"])
    with serve(state) as url:
        [res] = asyncio.run(_model(url).generate([_req(0)]))
    assert not res.ok and state.hits == 1
    assert "HTTP 500: 1 validation error" in (res.error or "")


def test_error_messages_say_what_happened() -> None:
    state = StubState(faults=["timeout"] * 3)
    with serve(state) as url:
        [res] = asyncio.run(_model(url, timeout=0.3, max_retries=1).generate([_req(0)]))
    assert res.error == "RequestFailed: timeout after 0.3 s (gave up after 2 attempts)"
    refused = _model("http://127.0.0.1:9/v1", max_retries=1, retry_window=0.5)
    [res] = asyncio.run(refused.generate([_req(0)]))
    assert re.fullmatch(
        r"RequestFailed: connection refused: http://127\.0\.0\.1:9/v1/chat/completions "
        r"\(unreachable for \d s, --retry-window 0\.5\)",
        res.error or "",
    ), res.error
    assert refused.http_requests >= 2  # retried while the window lasted


def test_text_content_is_sent_as_a_string() -> None:
    parts = [ContentPart(type="text", text="一行目"), ContentPart(type="text", text="二行目")]
    req = ChatRequest(
        id="r0",
        messages=[
            ChatMessage(role="system", content="短く答えてください。"),
            ChatMessage(role="user", content=parts),
        ],
    )
    state = StubState()
    with serve(state) as url:
        [res] = asyncio.run(_model(url).generate([req]))
    assert res.ok
    assert state.bodies[-1]["messages"] == [
        {"role": "system", "content": "短く答えてください。"},
        {"role": "user", "content": "一行目\n二行目"},
    ]
    assert "response_format" not in state.bodies[-1]


def test_audio_content_is_sent_as_parts(tmp_path: Path) -> None:
    import base64
    import wave

    wav = tmp_path / "a.wav"
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(24_000)
        w.writeframes(b"\x00\x00" * 240)
    data = base64.b64encode(wav.read_bytes()).decode("ascii")
    parts = [
        ContentPart(type="text", text="聞いて"),
        ContentPart(type="audio", audio_path=str(wav)),
    ]
    req = ChatRequest(id="r0", messages=[ChatMessage(role="user", content=parts)])
    state = StubState()
    with serve(state) as url:
        [res] = asyncio.run(_model(url).generate([req]))
    assert res.ok
    assert state.bodies[-1]["messages"][0]["content"] == [
        {"type": "text", "text": "聞いて"},
        {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}},
    ]
    assert [(a["rate"], a["channels"], a["width"]) for a in state.audio] == [(24_000, 1, 2)]


def test_auth_header_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    state = StubState()
    with serve(state) as url:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        model = _model(url)
        asyncio.run(model.generate([_req(0)]))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-123")
        asyncio.run(model.generate([_req(1)]))
    assert list(state.auth) == [None, "Bearer sk-test-123"]
    assert "sk-test-123" not in repr(vars(model))


def test_json_schema_is_sent() -> None:
    state = StubState()
    with serve(state) as url:
        model = _model(url)
        [res] = asyncio.run(model.generate([_req(0, "天気", json_schema=SCHEMA)]))
    assert json.loads(res.text or "") == {"answer": "天気"}
    assert state.bodies[-1]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "output", "schema": SCHEMA},
    }
    assert model.structured_mode == "json_schema" and state.hits == 1


@pytest.mark.parametrize("status", [500, 400, 422])
def test_structured_output_falls_back_to_json_object(status: int) -> None:
    # llama-cpp-python's server rejects "json_schema" (HTTP 500) and takes "json_object" + schema.
    n = 64
    state = StubState(reject_formats=("json_schema",), reject_status=status, latency=0.02)
    with serve(state) as url:
        model = _model(url, concurrency=n)
        reqs = [_req(i, f"質問{i}", json_schema=SCHEMA) for i in range(n)]
        out = asyncio.run(model.generate(reqs))
        assert [json.loads(r.text or "") for r in out] == [{"answer": f"質問{i}"} for i in range(n)]
        assert model.structured_mode == "json_object"
        # one probe rejected, never retried; every other request goes straight to json_object
        assert state.hits == n + 1 and state.rejected == 1 and model.http_requests == n + 1
        assert state.bodies[0]["response_format"]["type"] == "json_schema"
        assert state.bodies[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
        assert all(b["response_format"]["type"] == "json_object" for b in list(state.bodies)[1:])
        # remembered for the rest of the run, across batches
        asyncio.run(model.generate([_req(n, json_schema=SCHEMA)]))
    assert state.hits == n + 2 and state.rejected == 1


def test_structured_output_falls_back_to_plain_prompting() -> None:
    n = 8
    state = StubState(reject_formats=("json_schema", "json_object"))
    with serve(state) as url:
        model = _model(url, concurrency=n)
        out = asyncio.run(
            model.generate([_req(i, f"質問{i}", json_schema=SCHEMA) for i in range(n)])
        )
    assert [r.text for r in out] == [f"echo: 質問{i}" for i in range(n)]  # the caller validates
    assert model.structured_mode == "none"
    assert state.hits == n + 2 and state.rejected == 2
    types = [b.get("response_format", {}).get("type") for b in state.bodies]
    assert types == ["json_schema", "json_object"] + [None] * n


def test_failed_probe_does_not_decide_the_mode() -> None:
    # The probing request fails for another reason (HTTP 400 not about response_format): it is
    # recorded, the mode stays open and the waiting requests go on.
    n = 4
    state = StubState(faults=[400])
    with serve(state) as url:
        model = _model(url, concurrency=n)
        out = asyncio.run(model.generate([_req(i, json_schema=SCHEMA) for i in range(n)]))
    assert [r.ok for r in out] == [False, True, True, True]
    assert model.structured_mode == "json_schema" and state.hits == n


def test_plain_requests_do_not_negotiate() -> None:
    state = StubState(reject_formats=("json_schema",))
    with serve(state) as url:
        model = _model(url)
        asyncio.run(model.generate([_req(i) for i in range(3)]))
    assert model.structured_mode is None and state.rejected == 0 and state.hits == 3


def test_concurrency_and_order() -> None:
    state = StubState(latency=0.2)
    reqs = [_req(i, f"質問{i}") for i in range(20)]
    with serve(state) as url:
        model = _model(url, concurrency=20)
        seen: list[str] = []
        out = asyncio.run(model.generate(reqs, on_response=lambda r: seen.append(r.id)))
    assert [r.text for r in out] == [f"echo: 質問{i}" for i in range(20)]
    assert sorted(seen) == sorted(r.id for r in reqs)


def test_batches_at_once_share_one_session_then_close_it() -> None:
    """Two batches running at once on one model (a stage's first wave and the rest) use one
    HTTP session, so one pool of connections within --concurrency; it closes after the last."""
    from taiwa.models import openai_transport

    state = StubState(latency=0.05)
    sessions: list[object] = []
    with serve(state) as url:
        model = _model(url, concurrency=4)

        def note(res: object) -> None:
            sessions.append(openai_transport._SESSION.get())

        async def both() -> list[list[str | None]]:
            a = model.generate([_req(i) for i in range(6)], on_response=note)
            b = model.generate([_req(i) for i in range(6, 12)], on_response=note)
            return [[r.text for r in out] for out in await asyncio.gather(a, b)]

        texts = asyncio.run(both())
        after = asyncio.run(model.generate([_req(99)]))
    assert texts == [["echo: こんにちは"] * 6] * 2 and after[0].ok
    assert len(sessions) == 12 and len(set(map(id, sessions))) == 1
    assert getattr(sessions[0], "closed", False) is True
    assert "_shared" not in model.__dict__


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


@pytest.mark.parametrize("status", [401, 403])
def test_check_reports_a_rejected_key(status: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    state = StubState(models_status=status)
    rejected = r"rejected the API key .*check OPENAI_API_KEY"
    with serve(state) as url, pytest.raises(TaiwaError, match=rejected) as e:
        asyncio.run(_model(url).check())
    assert "sk-wrong" not in str(e.value)


@pytest.mark.parametrize("status", [200, 404, 500])
def test_check_passes_when_the_server_answers(status: int) -> None:
    with serve(StubState(models_status=status)) as url:
        asyncio.run(_model(url).check())


def test_import_is_cheap() -> None:
    code = (
        "import sys, taiwa.models.openai_compat, taiwa.models.openai_transport\n"
        "heavy = [m for m in ('openai', 'aiohttp', 'tenacity') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_message_content_must_be_text() -> None:
    """Text parts are joined (some servers send a list); anything else is a failed attempt,
    retried like a broken body, never stringified into a reply."""
    from taiwa.models.openai_errors import RequestFailed, _content_text

    parts = [{"type": "text", "text": "こんにちは"}, {"type": "text", "text": "！"}]
    assert _content_text(parts, b"") == "こんにちは！"
    for bad in (None, 42, [{"type": "image_url"}], {"text": "x"}):
        with pytest.raises(RequestFailed) as info:
            _content_text(bad, b"{}")
        assert info.value.retryable


def test_timeouts_from_queueing_at_a_one_slot_server_get_a_hint(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """Issue 42: at --concurrency 8 against a server answering one request at a time (0.3 s
    each; llama-cpp-python's default), the requests at the back of its queue time out though
    the server is quick: a warning at the first such timeout and a note in the run's summary
    say to lower --concurrency; a server simply slower than the timeout, or one request at a
    time, gets no such hint."""
    from taiwa.benchmarks import get_method
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    data = tmp_path / "prompts.jsonl"
    data.write_text("".join(f'{{"id": "q{k}", "prompt": "質問{k}"}}\n' for k in range(8)), "utf-8")

    def _run(state: StubState, name: str, **cfg: object) -> list[str]:
        with serve(state) as url:
            config = RunConfig(method="prompts", models=["openai:stub"], base_url=url, data=data,
                               out=tmp_path / name, no_cache=True, max_retries=1,
                               **cfg)  # type: ignore[arg-type]  # fmt: skip
            res = run(config, get_method("prompts"), show_progress=False)
            deadline = time.monotonic() + 30
            while state.ok < state.hits and time.monotonic() < deadline:
                time.sleep(0.05)  # the server's queue runs dry before it stops
        return [n for n in res.summary["notes"] if "--concurrency" in n]

    caplog.set_level("WARNING")
    notes = _run(StubState(latency=0.3, slots=1), "queued", concurrency=8, timeout=1.0)
    assert len(notes) == 1 and "--concurrency 8" in notes[0], notes
    assert re.search(r"answered one in 0\.[345] s", notes[0]) and "one slot by" in notes[0]
    warned = [r.getMessage() for r in caplog.records if "--concurrency 8" in r.getMessage()]
    assert len(warned) == 1  # once, at the first such timeout
    assert not _run(StubState(latency=0.3, slots=1), "one", concurrency=1, timeout=1.0)
    assert not _run(StubState(latency=1.5), "slow", concurrency=4, timeout=1.0)
