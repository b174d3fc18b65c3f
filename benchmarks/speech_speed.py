"""Speech real-time factors: taiwa's TTS rendering and ASR beside the raw libraries, one run.

    python benchmarks/speech_speed.py [--items 12] [--repeats 3]

On the first ``--items`` user utterances of the bundled da-response set, ``--repeats`` times
in turn, item by item (this machine is shared and its speed drifts, so the two sides alternate
on each item and each item's best time per side is summed):

1. TTS. raw: ``pyopenjtalk.tts(text)`` (synthesis only, 48 kHz float, nothing written);
   taiwa: :func:`taiwa.speech.render.render_text` into a fresh directory: synthesis, polyphase
   resampling to 24 kHz, 120 ms padding, 16-bit WAV written atomically (seed 000 §3.3).
   RTF = seconds / seconds of audio produced (taiwa's audio includes the 240 ms of padding; the
   RTF of both is over the raw synthesis' duration, so the ratio is the time ratio).
2. ASR. raw: ``faster_whisper.WhisperModel.transcribe(wav_path, language="ja")`` with the
   segments consumed (PyAV decodes and resamples the file); taiwa:
   :meth:`taiwa.models.asr.WhisperASR.transcribe` (soundfile + scipy resampling, the same
   model settings: Whisper-base, int8, beam 5). RTF = seconds / seconds of audio heard.

Prints each side's RTF and the ratio taiwa / raw (target <= 1.10), by wall clock and by CPU
time (all threads of the process). Writing a file ends with an fsync (atomic, durable
writes): its wait shows in the wall clock of TTS rendering, not in its CPU time.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from taiwa.benchmarks.da_response.dataset import load_da_response
from taiwa.core.samples import sample_path
from taiwa.models.asr import BUNDLED, load_asr
from taiwa.models.cache import default_cache_dir
from taiwa.speech.render import audio_name, render_text
from taiwa.speech.tts import OpenJTalkTTS
from taiwa.speech.wav import wav_info

T = TypeVar("T")


def best_per_item(
    repeats: int, items: list[T], sides: dict[str, Callable[[T], object]]
) -> dict[str, tuple[float, float]]:
    """Each side on each item, alternating item by item, ``repeats`` times; per side the sums
    over items of each item's best wall seconds and best CPU seconds (the machine is shared:
    load drifts within a run)."""
    wall = {name: [float("inf")] * len(items) for name in sides}
    cpu = {name: [float("inf")] * len(items) for name in sides}
    for _ in range(repeats):
        for i, item in enumerate(items):
            for name, fn in sides.items():
                start, start_cpu = time.perf_counter(), time.process_time()
                fn(item)
                wall[name][i] = min(wall[name][i], time.perf_counter() - start)
                cpu[name][i] = min(cpu[name][i], time.process_time() - start_cpu)
    return {name: (sum(wall[name]), sum(cpu[name])) for name in sides}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=12)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    texts = [it.input.text for it in load_da_response(sample_path("da_response/gold.jsonl"))]
    texts = texts[: args.items]

    import pyopenjtalk

    tts = OpenJTalkTTS()
    raw_seconds = sum(len(pyopenjtalk.tts(t)[0]) / 48_000 for t in texts)  # warm-up + length
    work = Path(tempfile.mkdtemp(prefix="taiwa-speech-speed-"))
    rounds = iter(range(1_000_000))

    def taiwa_tts(text: str) -> None:
        render_text(text, work / f"tts{next(rounds)}.wav", tts)  # a new file every time

    tts_best = best_per_item(args.repeats, texts, {"raw": pyopenjtalk.tts, "taiwa": taiwa_tts})

    wavs = [render_text(t, work / "asr" / audio_name(t, tts), tts) for t in texts]
    heard = sum(wav_info(w).seconds for w in wavs)
    asr = load_asr(BUNDLED, default_cache_dir())
    asr.model()

    from faster_whisper import WhisperModel

    raw_model = WhisperModel(str(asr.model_dir), device="cpu", compute_type="int8")

    def raw_asr(wav: Path) -> None:
        segments, _ = raw_model.transcribe(str(wav), language="ja", beam_size=5)
        "".join(seg.text for seg in segments)

    sides: dict[str, Callable[[Path], object]] = {"raw": raw_asr, "taiwa": asr.transcribe}
    best_per_item(1, wavs[:1], sides)  # warm-up of both models
    asr_best = best_per_item(args.repeats, wavs, sides)

    print(
        f"{len(texts)} utterances, {raw_seconds:.1f} s synthesised, {heard:.1f} s heard; "
        f"best of {args.repeats} per item"
    )
    print(f"{'':6}{'':6}{'raw RTF':>10}{'taiwa RTF':>11}{'taiwa/raw':>11}  raw library")
    for name, best, seconds, lib in (
        ("TTS", tts_best, raw_seconds, "pyopenjtalk.tts"),
        ("ASR", asr_best, heard, "faster_whisper WhisperModel.transcribe"),
    ):
        for k, clock in enumerate(("wall", "CPU")):
            raw, ours = best["raw"][k] / seconds, best["taiwa"][k] / seconds
            print(f"{name:6}{clock:6}{raw:>10.3f}{ours:>11.3f}{ours / raw:>10.2f}×  {lib}")


if __name__ == "__main__":
    main()
