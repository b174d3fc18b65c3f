"""Audio-input models: the cascade SPEC, cache keys on audio bytes, the OpenAI-compatible
``input_audio`` payload checked by the local stub server, text-only backends refusing audio,
and the real cascade (faster-whisper Whisper-base, then a text model)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from taiwa.core.errors import EndpointError, TaiwaError
from taiwa.models import ChatMessage, ChatRequest, ModelOptions, load_model
from taiwa.models.cache import CachingModel, ResponseCache
from taiwa.models.cascade import CascadeModel
from taiwa.models.spec import ModelSpec
from taiwa.models.types import ContentPart, audio_sha256
from taiwa.speech.render import audio_name, render_text
from taiwa.speech.tts import OpenJTalkTTS
from taiwa.speech.wav import write_benchmark_wav
from taiwa.testing.stub_server import StubState, serve

UTTERANCES = ("明日7時に起こして", "キッチンの電気を消して")


@pytest.fixture(scope="module")
def wavs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    tts = OpenJTalkTTS()
    d = tmp_path_factory.mktemp("wav")
    return [render_text(t, d / audio_name(t, tts), tts) for t in UTTERANCES]


def _audio_request(i: int, wav: Path) -> ChatRequest:
    parts = [
        ContentPart(type="audio", audio_path=str(wav)),
        ContentPart(type="text", text="この音声に返答してください。"),
    ]
    return ChatRequest(
        id=f"r{i}",
        messages=[
            ChatMessage(role="system", content="あなたは親切な日本語音声対話アシスタントです。"),
            ChatMessage(role="user", content=parts),
        ],
    )


def test_cascade_spec() -> None:
    s = ModelSpec.parse("cascade:whisper-base+demo")
    assert s.kind == "cascade" and s.accepts_audio
    assert s.cascade_parts == ("whisper-base", ModelSpec("demo", ""))
    assert ModelSpec.parse("cascade:whisper-base+gguf:/m/a+b.gguf").cascade_parts[1].target == (
        "/m/a+b.gguf"
    )
    for bad in ("cascade:whisper-base", "cascade:+demo", "cascade:whisper-base+nope:x"):
        with pytest.raises(TaiwaError, match="bad model spec"):
            ModelSpec.parse(bad)
    with pytest.raises(TaiwaError, match="unknown ASR 'whisper-tiny'"):
        ModelSpec.parse("cascade:whisper-tiny+demo").check(ModelOptions())
    assert not ModelSpec.parse("builtin:parrot").accepts_audio
    assert not ModelSpec.parse("demo").accepts_audio
    assert ModelSpec.parse("openai:gpt-4o-audio-preview").accepts_audio


def test_cache_key_follows_the_audio_bytes_not_the_path(tmp_path: Path) -> None:
    a, b = tmp_path / "a.wav", tmp_path / "b.wav"
    write_benchmark_wav(a, np.zeros(2400), 24_000)
    b.write_bytes(a.read_bytes())
    key = _audio_request(0, a).cache_key("openai", "m")
    assert _audio_request(0, b).cache_key("openai", "m") == key  # same bytes, another path
    write_benchmark_wav(a, 0.1 * np.ones(2400), 24_000)
    assert _audio_request(0, a).cache_key("openai", "m") != key  # same path, new bytes
    assert audio_sha256(str(b)) != audio_sha256(str(a))


def test_openai_sends_base64_wav_parts_the_stub_checks(wavs: list[Path]) -> None:
    state = StubState()
    with serve(state) as url:
        model = load_model("openai:audio-stub", ModelOptions(base_url=url, max_retries=0))
        out = asyncio.run(model.generate([_audio_request(i, w) for i, w in enumerate(wavs)]))
    assert all(r.ok for r in out), out
    assert [(a["rate"], a["channels"], a["width"]) for a in state.audio] == [(24_000, 1, 2)] * 2
    # the two requests go out at once: the server may take them in either order
    sent = sorted((a["sha256"], a["frames"]) for a in state.audio)
    assert sent == sorted((audio_sha256(str(w)), sf.info(str(w)).frames) for w in wavs)
    user = state.bodies[0]["messages"][1]
    assert user["content"][0]["type"] == "input_audio"
    assert user["content"][1] == {"type": "text", "text": "この音声に返答してください。"}
    assert (
        state.bodies[0]["messages"][0]["content"]
        == "あなたは親切な日本語音声対話アシスタントです。"
    )


def test_the_stub_refuses_wrong_format_audio(tmp_path: Path) -> None:
    low = tmp_path / "low.wav"
    sf.write(str(low), np.zeros(1600, dtype=np.int16), 16_000, subtype="PCM_16")
    state = StubState()
    with serve(state) as url:
        model = load_model("openai:audio-stub", ModelOptions(base_url=url, max_retries=0))
        [res] = asyncio.run(model.generate([_audio_request(0, low)]))
    assert not res.ok and "HTTP 400" in (res.error or "") and "16000" in (res.error or "")
    assert state.audio == []


@pytest.mark.parametrize("spec", ["builtin:parrot", "builtin:fixed"])
def test_text_only_backends_refuse_audio(spec: str, wavs: list[Path]) -> None:
    model = load_model(spec)
    with pytest.raises(EndpointError, match=f"{spec} takes text only but was given audio"):
        asyncio.run(model.generate([_audio_request(0, wavs[0])]))


def test_cache_keeps_what_a_model_recorded(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k1", "はい", {"transcript": "明日", "asr_seconds": 0.5})
    cache.put("k2", "いいえ")
    cache.flush()
    assert cache.get_meta_many(["k1", "k2", "k3"]) == {
        "k1": {"transcript": "明日", "asr_seconds": 0.5}
    }
    cache.close()
    again = ResponseCache(tmp_path / "c.sqlite")
    assert again.get_many(["k1"]) == {"k1": "はい"}
    assert again.get_meta_many(["k1"])["k1"]["transcript"] == "明日"
    again.close()


def test_real_cascade_transcribes_then_answers(tmp_path: Path, wavs: list[Path]) -> None:
    model = load_model("cascade:whisper-base+builtin:parrot", ModelOptions(cache_dir=tmp_path))
    assert isinstance(model, CascadeModel)
    asyncio.run(model.check())
    requests = [_audio_request(i, w) for i, w in enumerate(wavs)]
    cache = ResponseCache(tmp_path / "responses.sqlite")
    cached = CachingModel(model, cache)
    first = asyncio.run(cached.generate(requests))
    second = asyncio.run(cached.generate(requests))
    cache.close()
    from taiwa.metrics.cer import cer

    for res, again, said in zip(first, second, UTTERANCES, strict=True):
        assert res.ok and res.meta is not None
        assert cer(res.meta["transcript"], said) < 0.35, res.meta
        # parrot answers the text it was given: the transcript then the prompt, no audio
        assert res.text == f"{res.meta['transcript']}\nこの音声に返答してください。"
        assert res.meta["asr_seconds"] > 0 and res.meta["audio_seconds"] > 1
        assert again.cached and again.meta == res.meta
    assert cached.calls == 2 and cached.hits == 2
