"""da-response in audio mode (seed 000 §3.3, §4): the systems hear rendered WAVs; cascades
record transcripts and ASR CER; bad audio and text-only systems stop with one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli import taiwa
from taiwa.benchmarks import get_method
from taiwa.benchmarks.da_response import messages
from taiwa.benchmarks.da_response.dataset import load_da_response
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.run_reader import load_run
from taiwa.harness.runner import run
from taiwa.speech.render import render_dataset
from taiwa.speech.tts import OpenJTalkTTS
from taiwa.testing.stub_server import StubState, serve

GOLD = sample_path("da_response/gold.jsonl")
N = 3


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first N bundled items with their audio rendered (dataset with relative paths)."""
    out = tmp_path_factory.mktemp("audio")
    report = render_dataset(GOLD, out / "wav", OpenJTalkTTS(), limit=N)
    assert report.dataset is not None
    return report.dataset


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_audio_messages_keep_the_appendix_b_prompts(rendered: Path) -> None:
    item = load_da_response(rendered)[0]
    system, user = messages(item, "audio")
    assert system.content == "あなたは親切な日本語音声対話アシスタントです。"
    assert isinstance(user.content, list) and user.content[0].type == "audio"
    assert user.text == "この音声の内容を理解し、音声対話として適切な返答をしてください。" + (
        "出力には返答文以外の一切のテキストを含めず、返答文のみを返してください。"
    )


def test_cascade_run_records_transcripts_and_asr_cer(rendered: Path, tmp_path: Path) -> None:
    spec = "cascade:whisper-base+builtin:parrot"
    cfg = RunConfig(
        method="da-response",
        models=[spec],
        data=rendered,
        options={"input_mode": "audio"},
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    summary = run(cfg, get_method(cfg.method), show_progress=False).summary
    across = summary["across"]
    assert (across["input_mode"], across["audio"]) == ("audio", {"items": N, "rendered": 0})
    assert across["annotator"]["spec"] == "offline"
    block = summary["systems"][spec]
    assert block["scored"] == N and block["asr_cer"]["n"] == N
    assert {"value", "ci_low", "ci_high", "n"} <= set(block["asr_cer"])
    assert 0 <= block["asr_cer"]["value"] < 0.5 and block["asr_rtf"] > 0
    # the one run reader takes the audio fields (an ASR CER block beside plain numbers)
    assert load_run(tmp_path / "run").summary["systems"][spec]["asr_cer"] == block["asr_cer"]
    responses = _rows(tmp_path / "run" / "responses.jsonl")
    assert all(r["transcript"] and r["asr_seconds"] > 0 for r in responses)
    scores = _rows(tmp_path / "run" / "scores.jsonl")
    assert [s["cer_chars"] > 0 for s in scores] == [True] * N
    assert (
        json.loads((tmp_path / "run" / "config.json").read_text())["options"]["input_mode"]
        == "audio"
    )
    # a rerun is answered from the cache, transcripts and ASR times included
    again = run(
        cfg.model_copy(update={"out": tmp_path / "run2"}),
        get_method(cfg.method),
        show_progress=False,
    )
    assert again.summary["calls"][0]["cache_hits"] == N
    assert again.summary["systems"][spec]["asr_cer"] == block["asr_cer"]


def test_audio_model_over_http_gets_every_item_as_24khz_wav(rendered: Path, tmp_path: Path) -> None:
    state = StubState()
    with serve(state) as url:
        cfg = RunConfig(
            method="da-response",
            models=["openai:audio-model"],
            base_url=url,
            data=rendered,
            options={"input_mode": "audio"},
            out=tmp_path / "run",
            no_cache=True,
        )
        summary = run(cfg, get_method(cfg.method), show_progress=False).summary
    assert summary["systems"]["openai:audio-model"]["scored"] == N
    assert len(state.audio) == N and {(a["rate"], a["channels"]) for a in state.audio} == {
        (24_000, 1)
    }
    assert "asr_cer" not in summary["systems"]["openai:audio-model"]


def _one_line_error(res: object, *needles: str) -> None:
    out = res.stdout + res.stderr  # type: ignore[attr-defined]
    assert res.returncode == 2, out  # type: ignore[attr-defined]
    lines = [x for x in out.splitlines() if x.strip()]
    assert len(lines) == 1, out
    for n in needles:
        assert n in lines[0], lines[0]


def test_bad_audio_and_text_only_systems_stop_with_one_line(rendered: Path, tmp_path: Path) -> None:
    base = ["run", "da-response", "--input-mode", "audio", "--out", str(tmp_path / "run")]
    res = taiwa(*base, "--model", "builtin:parrot", "--data", str(rendered))
    _one_line_error(res, "--model builtin:parrot takes text only", "cascade:whisper-base+")
    rows = _rows(rendered)
    wav_dir = rendered.parent
    junk = wav_dir / "junk.wav"
    junk.write_bytes(b"RIFF....WAVEjunk" * 8)
    low = wav_dir / "low.wav"
    import numpy as np
    import soundfile as sf

    sf.write(str(low), np.zeros(1600, dtype=np.int16), 16_000, subtype="PCM_16")
    cascade = ("--model", "cascade:whisper-base+builtin:fixed")
    for value, expected in (
        ("junk.wav", "field 'audio': expected a readable WAV file"),
        ("low.wav", "expected 24000 Hz, PCM_16, mono WAV (seed 000 §3.3), found 16000 Hz"),
        ("gone.wav", "field 'audio': expected an existing WAV file (no such file)"),
    ):
        bad = wav_dir / f"bad-{value}.jsonl"
        broken = [dict(r) for r in rows]
        broken[1]["audio"] = value
        bad.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in broken))
        _one_line_error(taiwa(*base, *cascade, "--data", str(bad)), f"{bad}:2:", expected)
    res = taiwa(*base, *cascade, "-o", "render_missing=false", "--limit", "1")
    _one_line_error(res, "gold.jsonl:1: field 'audio': expected a WAV path")
    res = taiwa(*base, *cascade, "-o", "input_mode=text", "--data", str(rendered))
    _one_line_error(res, "--input-mode audio contradicts -o input_mode=text")
    assert not (tmp_path / "run").exists()  # nothing written by any of them


def test_items_without_audio_are_rendered_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAIWA_CACHE_DIR", str(tmp_path / "cache"))
    data = tmp_path / "two.jsonl"
    data.write_text("".join(GOLD.read_text(encoding="utf-8").splitlines(True)[:2]), "utf-8")
    cfg = RunConfig(
        method="da-response",
        models=["openai:audio-model"],
        data=data,
        options={"input_mode": "audio"},
        out=tmp_path / "run",
        no_cache=True,
    )
    state = StubState()
    with serve(state) as url:
        summary = run(
            cfg.model_copy(update={"base_url": url}), get_method(cfg.method), show_progress=False
        ).summary
    assert summary["across"]["audio"] == {"items": 2, "rendered": 2}
    assert any("2 of 2 item(s) had no audio path" in n for n in summary["notes"])
    assert len(list((tmp_path / "cache" / "audio").glob("*.wav"))) == 2
    assert len(state.audio) == 2
    shutil.rmtree(tmp_path / "cache")


@pytest.mark.slow
def test_cli_cascade_with_the_demo_llm_on_the_bundled_set(tmp_path: Path) -> None:
    res = taiwa(
        "run",
        "da-response",
        "--input-mode",
        "audio",
        "--model",
        "cascade:whisper-base+demo",
        "--limit",
        "3",
        "--max-tokens",
        "96",
        "--out",
        str(tmp_path / "run"),
        "--quiet",
    )
    assert res.returncode == 0, res.stdout + res.stderr
    assert "input mode: audio" in res.stdout
    assert "ASR of cascaded systems" in res.stdout and "WLCS" in res.stdout
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    block = summary["systems"]["cascade:whisper-base+demo"]
    assert block["scored"] == 3 and block["asr_cer"]["n"] == 3 and "wed" in block


@pytest.mark.slow
def test_demo_audio_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from taiwa.benchmarks import get_method
    from taiwa.benchmarks.da_response import demo
    from taiwa.cli.demo import method_demo
    from taiwa.harness.demo_spec import Demo

    monkeypatch.setattr(demo, "AUDIO_ITEMS", 2)
    method = get_method("da-response")

    class AudioStepOnly:
        """The method, with a demo cut to its last step (the audio one): the text runs before
        it call the demo LLM on the whole set, which the other demo tests cover."""

        def __getattr__(self, name: str) -> object:
            return getattr(method, name)

        def demo(self) -> Demo:
            return Demo(method.demo().steps[-1:])

    buf = io.StringIO()
    method_demo(AudioStepOnly(), Console(file=buf, width=160), tmp_path)  # type: ignore[arg-type]
    text = buf.getvalue()
    assert "60 utterance(s) rendered" in text and "ASR of cascaded systems" in text
    assert len(list((tmp_path / "audio").glob("*.wav"))) == 60
    summary = json.loads((tmp_path / "da-response" / "cascade_audio" / "summary.json").read_text())
    assert summary["across"]["input_mode"] == "audio"
    assert summary["systems"][demo.CASCADE]["asr_cer"]["n"] == 2
