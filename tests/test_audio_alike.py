"""Audio is checked alike in every method (issue 40 §5): the same WAV files are refused by
da-response (input mode audio) and by prompts (audio parts) with the same words and no model
call, and the same good file reaches the model in both."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from taiwa.benchmarks import get_method
from taiwa.core.errors import InputError
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.speech.wav_check import MAX_AUDIO_SECONDS, check_audio
from taiwa.testing.stub_server import StubState, serve

RATE = 24_000


def _write(path: Path, seconds: float, rate: int = RATE, channels: int = 1, **kw: Any) -> Path:
    frames = int(seconds * rate)
    shape = (frames, channels) if channels > 1 else frames
    sf.write(str(path), np.zeros(shape, dtype=np.float32), rate, **kw)
    return path


def _truncated(path: Path) -> Path:
    """A WAV whose header claims a second of audio while the file holds half of it."""
    _write(path, 1.0, subtype="PCM_16")
    raw = path.read_bytes()
    path.write_bytes(raw[: len(raw) - RATE])
    return path


WAVS: dict[str, Callable[[Path], Path]] = {
    "44.1 kHz": lambda p: _write(p, 0.5, rate=44_100, subtype="PCM_16"),
    "16 kHz": lambda p: _write(p, 0.5, rate=16_000, subtype="PCM_16"),
    "stereo": lambda p: _write(p, 0.5, channels=2, subtype="PCM_16"),
    "8-bit": lambda p: _write(p, 0.5, subtype="PCM_U8"),
    "32-bit": lambda p: _write(p, 0.5, subtype="PCM_32"),
    "32-bit float": lambda p: _write(p, 0.5, subtype="FLOAT"),
    "truncated data": _truncated,
    "10 minutes": lambda p: _write(p, 600.0, subtype="PCM_16"),
}
"""Each case and the file it writes (every one refused by the benchmark format)."""

WHY = {
    "44.1 kHz": "found 44100 Hz, PCM_16, 1 channel(s); convert it, e.g. ffmpeg -i IN -ar 24000",
    "16 kHz": "found 16000 Hz, PCM_16, 1 channel(s); convert it",
    "stereo": "found 24000 Hz, PCM_16, 2 channel(s); convert it",
    "8-bit": "found 24000 Hz, PCM_U8, 1 channel(s); convert it",
    "32-bit": "found 24000 Hz, PCM_32, 1 channel(s); convert it",
    "32-bit float": "found 24000 Hz, FLOAT, 1 channel(s); convert it",
    "truncated data": "its header says 48,000 bytes of audio, the file holds 24,000",
    "10 minutes": f"at most {MAX_AUDIO_SECONDS:g} s of audio a file, found 600.0 s",
}


def _da_response(tmp: Path, wav: Path) -> RunConfig:
    item = json.loads(sample_path("da_response/gold.jsonl").read_text("utf-8").splitlines()[0])
    data = tmp / "da.jsonl"
    data.write_text(json.dumps({**item, "audio": wav.name}, ensure_ascii=False) + "\n", "utf-8")
    return RunConfig(method="da-response", data=data, options={"input_mode": "audio"})


def _prompts(tmp: Path, wav: Path) -> RunConfig:
    content = [{"type": "audio", "audio_path": wav.name}, {"type": "text", "text": "返事して"}]
    data = tmp / "prompts.jsonl"
    row = {"id": "a1", "messages": [{"role": "user", "content": content}]}
    data.write_text(json.dumps(row, ensure_ascii=False) + "\n", "utf-8")
    return RunConfig(method="prompts", data=data)


METHODS = {"da-response": (_da_response, "audio"), "prompts": (_prompts, "audio_path")}


def _run(cfg: RunConfig, url: str, out: Path) -> dict[str, Any]:
    update = {"models": ["openai:audio-model"], "base_url": url, "out": out, "no_cache": True}
    full = cfg.model_copy(update=update)
    return run(full, get_method(full.method), show_progress=False).summary


@pytest.mark.parametrize("case", list(WAVS))
def test_the_same_bad_wav_is_refused_alike_with_no_model_call(tmp_path: Path, case: str) -> None:
    wav = WAVS[case](tmp_path / "in.wav")
    refused: dict[str, InputError] = {}
    state = StubState(audio_format=None)  # the server would take any WAV: the check refuses
    with serve(state) as url:
        for name, (dataset, field) in METHODS.items():
            with pytest.raises(InputError) as err:
                _run(dataset(tmp_path, wav), url, tmp_path / name)
            refused[name] = err.value
            assert err.value.line == 1 and err.value.field is not None
            assert err.value.field.endswith(field) and err.value.got == "'in.wav'"
            assert not (tmp_path / name).exists()  # refused before the run directory
    assert state.hits == 0  # no model heard anything
    first, second = refused.values()
    assert first.expected == second.expected  # the same words in both methods
    assert WHY[case] in first.expected, first.expected


def test_the_same_good_wav_reaches_the_model_in_both(tmp_path: Path) -> None:
    wav = _write(tmp_path / "in.wav", 0.5, subtype="PCM_16")
    assert check_audio(wav).frames == RATE // 2
    state = StubState()
    with serve(state) as url:
        for name, (dataset, _) in METHODS.items():
            summary = _run(dataset(tmp_path, wav), url, tmp_path / name)
            assert summary["systems"]["openai:audio-model"]["scored"] == 1, name
    assert [(a["rate"], a["channels"], a["width"]) for a in state.audio] == [(RATE, 1, 2)] * 2
    assert len({a["sha256"] for a in state.audio}) == 1  # the very same bytes
