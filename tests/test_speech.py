"""Benchmark audio (seed 000 §3.3): real pyopenjtalk-plus rendering read back with soundfile,
resampling, format checks, resumable atomic rendering, ``taiwa build audio``."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cli import taiwa_main
from taiwa.core.errors import InputError
from taiwa.speech.render import RenderReport, TextField, render_dataset
from taiwa.speech.tts import OpenJTalkTTS
from taiwa.speech.wav import (
    PAD_SAMPLES,
    AudioFormatError,
    to_benchmark_pcm,
    write_benchmark_wav,
)
from taiwa.speech.wav_check import check_audio, read_wav_header

TEXTS = ("8分のタイマーお願い", "明日7時に起こして", "今日の天気はどう？")


def _dataset(path: Path, texts: tuple[str, ...] = TEXTS) -> Path:
    rows = [
        {"id": f"s{i}", "input": {"text": t}, "output": {"text": f"はい、{t}ですね。"}}
        for i, t in enumerate(texts)
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


@pytest.fixture(scope="module")
def tts() -> OpenJTalkTTS:
    return OpenJTalkTTS()


def _assert_benchmark_wav(path: Path) -> np.ndarray:
    info = sf.info(str(path))
    assert (info.format, info.samplerate, info.subtype, info.channels) == (
        "WAV",
        24_000,
        "PCM_16",
        1,
    )
    data, rate = sf.read(str(path), dtype="int16")
    assert rate == 24_000 and data.ndim == 1
    assert PAD_SAMPLES == 2880  # 120 ms at 24 kHz
    assert not data[:PAD_SAMPLES].any() and not data[-PAD_SAMPLES:].any()
    speech = data[PAD_SAMPLES:-PAD_SAMPLES]
    assert np.abs(speech).max() > 1000  # there is speech between the paddings
    return data


def test_render_dataset_writes_conforming_wavs(tmp_path: Path, tts: OpenJTalkTTS) -> None:
    data = _dataset(tmp_path / "items.jsonl")
    fields = (TextField("input.text", "audio"), TextField("output.text", "output_audio"))
    report = render_dataset(data, tmp_path / "wav", tts, fields)
    assert (report.rendered, report.skipped) == (6, 0)
    assert report.dataset == tmp_path / "wav" / "items.jsonl"
    rows = [json.loads(line) for line in report.dataset.read_text("utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["s0", "s1", "s2"]
    for row in rows:
        for key in ("audio", "output_audio"):
            wav = report.dataset.parent / row[key]
            assert not Path(row[key]).is_absolute()
            _assert_benchmark_wav(wav)
    # the reply is longer than the request it repeats
    a = sf.info(str(report.dataset.parent / rows[0]["audio"])).frames
    b = sf.info(str(report.dataset.parent / rows[0]["output_audio"])).frames
    assert b > a
    assert report.cpu_per_utterance > 0 and report.audio_seconds > 3


def test_rerun_skips_conforming_files_and_redoes_changed_or_broken(
    tmp_path: Path, tts: OpenJTalkTTS
) -> None:
    data = _dataset(tmp_path / "items.jsonl")
    first = render_dataset(data, tmp_path / "wav", tts)
    rows = [json.loads(x) for x in first.dataset.read_text("utf-8").splitlines()]  # type: ignore[union-attr]
    kept = tmp_path / "wav" / rows[0]["audio"]
    stamp = kept.stat().st_mtime_ns
    again = render_dataset(data, tmp_path / "wav", tts)
    assert (again.rendered, again.skipped) == (0, 3)
    assert kept.stat().st_mtime_ns == stamp
    # a truncated file is rendered again; an edited text gets a new file
    broken = tmp_path / "wav" / rows[1]["audio"]
    broken.write_bytes(broken.read_bytes()[:100])
    _dataset(data, (TEXTS[0], TEXTS[1], "電気を消して"))
    third = render_dataset(data, tmp_path / "wav", tts)
    assert (third.rendered, third.skipped) == (2, 1)
    rows3 = [json.loads(x) for x in third.dataset.read_text("utf-8").splitlines()]  # type: ignore[union-attr]
    assert rows3[2]["audio"] != rows[2]["audio"]
    _assert_benchmark_wav(broken)


def test_rendering_is_atomic_per_file(tmp_path: Path, tts: OpenJTalkTTS) -> None:
    data = _dataset(tmp_path / "items.jsonl")

    class Failing:
        identity = tts.identity
        calls = 0

        def synthesize(self, text: str) -> tuple[np.ndarray, int]:
            Failing.calls += 1
            if Failing.calls == 2:
                raise KeyboardInterrupt  # killed while the second file is being made
            return tts.synthesize(text)

    with pytest.raises(KeyboardInterrupt):
        render_dataset(data, tmp_path / "wav", Failing())
    files = sorted(p.name for p in (tmp_path / "wav").iterdir())
    assert len(files) == 1 and files[0].startswith("s0.audio.") and files[0].endswith(".wav")
    assert not (tmp_path / "wav" / "items.jsonl").exists()  # no half-made dataset either
    resumed = render_dataset(data, tmp_path / "wav", tts)
    assert (resumed.rendered, resumed.skipped) == (2, 1)


def test_a_missing_text_names_file_line_and_field(tmp_path: Path, tts: OpenJTalkTTS) -> None:
    data = tmp_path / "items.jsonl"
    data.write_text('{"id": "a", "input": {"text": "はい"}}\n{"id": "b", "input": {}}\n', "utf-8")
    with pytest.raises(InputError, match=r"items\.jsonl:2: field 'input\.text': expected a non"):
        render_dataset(data, tmp_path / "wav", tts)
    assert not (tmp_path / "wav").exists() or not any((tmp_path / "wav").iterdir())


def test_resampling_keeps_the_pitch_and_pads() -> None:
    t = np.arange(48_000) / 48_000
    pcm = to_benchmark_pcm(0.5 * np.sin(2 * np.pi * 1000 * t), 48_000)
    assert pcm.dtype == np.int16 and len(pcm) == 24_000 + 2 * PAD_SAMPLES
    body = pcm[PAD_SAMPLES:-PAD_SAMPLES].astype(float)
    peak = np.argmax(np.abs(np.fft.rfft(body))) * 24_000 / len(body)
    assert peak == pytest.approx(1000, abs=2)
    assert np.abs(body).max() == pytest.approx(0.5 * 32767, rel=0.02)


def test_format_checks_say_what_is_wrong(tmp_path: Path) -> None:
    ok = tmp_path / "ok.wav"
    write_benchmark_wav(ok, np.zeros(4800), 48_000)
    assert check_audio(ok).sample_rate == 24_000
    low = tmp_path / "low.wav"
    sf.write(str(low), np.zeros(1600, dtype=np.int16), 16_000, subtype="PCM_16")
    with pytest.raises(AudioFormatError, match=r"found 16000 Hz, PCM_16, 1 channel"):
        check_audio(low)
    stereo = tmp_path / "stereo.wav"
    sf.write(str(stereo), np.zeros((2400, 2), dtype=np.int16), 24_000, subtype="PCM_16")
    with pytest.raises(AudioFormatError, match="2 channel"):
        check_audio(stereo)
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"not audio at all" * 10)
    with pytest.raises(AudioFormatError, match="a readable WAV file"):
        check_audio(junk)
    with pytest.raises(AudioFormatError, match="no such file"):
        check_audio(tmp_path / "missing.wav")


def test_build_audio_cli(tmp_path: Path) -> None:
    data = _dataset(tmp_path / "items.jsonl", TEXTS[:2])
    res = taiwa_main("build", "audio", "--data", str(data), "--out", str(tmp_path / "a"))
    assert res.returncode == 0, res.stderr
    assert "2 file(s) rendered, 0 already there" in res.stdout
    rows = [json.loads(x) for x in (tmp_path / "a" / "items.jsonl").read_text().splitlines()]
    for row in rows:
        _assert_benchmark_wav(tmp_path / "a" / row["audio"])
    res = taiwa_main("build", "audio", "--data", str(data), "--out", str(tmp_path / "a"))
    assert "0 file(s) rendered, 2 already there" in res.stdout
    bad = taiwa_main("build", "audio", "--data", str(data), "--out", str(tmp_path), "--field", "x")
    assert bad.returncode == 2 and "expected TEXT_FIELD=AUDIO_KEY" in bad.stderr + bad.stdout


def test_report_counts() -> None:
    r = RenderReport(rendered=4, cpu_seconds=2.0)
    assert r.cpu_per_utterance == 0.5 and RenderReport().cpu_per_utterance == 0.0


def _riff(*chunks: tuple[bytes, bytes]) -> bytes:
    body = b"WAVE" + b"".join(
        name + struct.pack("<I", len(data)) + data + b"\0" * (len(data) & 1)
        for name, data in chunks
    )
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_wav_headers_are_read_chunk_by_chunk(tmp_path: Path) -> None:
    fmt = struct.pack("<HHIIHH", 1, 1, 24_000, 48_000, 2, 16)
    audio = b"\0\0" * 2400
    cases = {
        "plain": _riff((b"fmt ", fmt), (b"data", audio)),
        "odd chunk first": _riff((b"LIST", b"INFOx"), (b"fmt ", fmt), (b"data", audio)),
    }
    for name, raw in cases.items():
        (tmp_path / f"{name}.wav").write_bytes(raw)
        assert check_audio(tmp_path / f"{name}.wav").frames == 2400, name
    extensible = tmp_path / "extensible.wav"
    sf.write(str(extensible), np.zeros(2400, dtype=np.int16), 24_000, "PCM_16", format="WAVEX")
    assert read_wav_header(extensible).subtype == "PCM_16"
    assert check_audio(extensible).frames == 2400
    refused = {
        "data first": (_riff((b"data", audio), (b"fmt ", fmt)), "data comes before its format"),
        "no data": (_riff((b"fmt ", fmt)), "no data chunk"),
        "short fmt": (_riff((b"fmt ", fmt[:10]), (b"data", audio)), "format chunk is cut short"),
        "rf64": (b"RF64" + _riff((b"fmt ", fmt))[4:], "RF64, not RIFF"),
        "no frames": (_riff((b"fmt ", fmt), (b"data", b"")), "it has no samples"),
    }
    for name, (raw, why) in refused.items():
        (tmp_path / f"{name}.wav").write_bytes(raw)
        with pytest.raises(AudioFormatError, match=why):
            check_audio(tmp_path / f"{name}.wav")
    cut = tmp_path / "cut.wav"
    cut.write_bytes(cases["plain"][:-100])
    with pytest.raises(AudioFormatError, match="header says 4,800 bytes of audio, the file holds"):
        check_audio(cut)
