"""The audio input mode of da-response (seed 000 §3.3, §4: the systems hear the user's
utterance and answer in text).

Each item's ``audio`` (a path, relative to the dataset file or absolute) must be a 24 kHz /
16-bit / mono WAV of at most 120 s (:data:`AUDIO`, checked by the shared
:func:`~taiwa.speech.wav_check.checked_audio`); an item without one is rendered from
``input.text`` with the default synthesiser into ``CACHE_DIR/audio/`` (content-addressed, so a
re-run reuses it) unless ``render_missing`` is off. Errors name the dataset file, the line and
the field ``audio``. A cascaded system's transcript is scored against ``input.text`` by
character error rate.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import InputError
from taiwa.speech.wav_check import BENCHMARK_AUDIO

if TYPE_CHECKING:
    from taiwa.benchmarks.da_response.dataset import DAResponseItem
    from taiwa.speech.tts import TTS

AUDIO = BENCHMARK_AUDIO
"""What the systems hear: seed 000 §3.3's 24 kHz / 16-bit / mono, at most 120 s a file; a WAV
in another format is refused (with how to convert it), as in every method."""

RENDER_HINT = "a WAV path for input mode audio (render them: taiwa build audio --data FILE)"


def rendered_dir() -> Path:
    """Where items without audio are rendered: ``CACHE_DIR/audio``."""
    from taiwa.models.cache import default_cache_dir

    return default_cache_dir() / "audio"


def with_audio(
    path: Path, records: Iterable[tuple[int, DAResponseItem]], render_missing: bool
) -> Iterator[tuple[int, DAResponseItem]]:
    """The records with ``audio`` resolved to an absolute path of a WAV checked against
    :data:`AUDIO` (:func:`~taiwa.speech.wav_check.checked_audio`, as every method checks its
    audio), or rendered when missing and allowed."""
    from taiwa.speech.wav_check import checked_audio

    tts: TTS | None = None
    for number, item in records:
        if item.audio is None:
            if not render_missing:
                raise InputError(str(path), number, "audio", RENDER_HINT)
            if tts is None:
                from taiwa.speech.tts import default_tts

                tts = default_tts()
            wav = _render(item.input.text, tts)
        else:
            wav = checked_audio(path, number, "audio", item.audio, AUDIO)
        yield number, item.model_copy(update={"audio": str(wav)})


def iter_heard(path: Path, render_missing: bool = True) -> Iterator[DAResponseItem]:
    """The dataset of input mode audio, one item at a time: every item's WAV resolved and
    checked, or rendered when missing (:func:`with_audio`); ids must be unique."""
    from taiwa.benchmarks.da_response.dataset import numbered_items
    from taiwa.core.io import unique_ids

    return unique_ids(path, with_audio(path, numbered_items(path), render_missing))


def _render(text: str, tts: TTS) -> Path:
    from taiwa.speech.render import audio_name, render_text

    return render_text(text, rendered_dir() / audio_name(text, tts), tts)


def rendered_count(samples: Iterable[DAResponseItem]) -> tuple[int, int]:
    """(items with audio, of which rendered by taiwa into :func:`rendered_dir`)."""
    where = rendered_dir().resolve()
    total = rendered = 0
    for s in samples:
        if s.audio is not None:
            total += 1
            rendered += Path(s.audio).resolve().parent == where
    return total, rendered


def asr_row(sample: DAResponseItem, generated: dict[str, Any]) -> dict[str, Any]:
    """A cascade's transcript, its character errors against ``input.text`` and its timing
    (empty when the system recorded no transcript)."""
    if "transcript" not in generated:
        return {}
    from taiwa.metrics.cer import char_errors

    errs = char_errors(generated["transcript"] or "", sample.input.text)
    return {
        "transcript": generated["transcript"],
        "cer": errs.rate,
        "cer_errors": errs.errors,
        "cer_chars": errs.reference_chars,
        "asr_seconds": generated.get("asr_seconds"),
        "audio_seconds": generated.get("audio_seconds"),
    }


class ASRTally:
    """ASR figures of one system, gathered row by row: per-item CER (mean with n and CI), the
    corpus CER (all errors / all reference characters) and the real-time factor."""

    def __init__(self) -> None:
        self.cers: list[float] = []
        self.errors = self.chars = 0
        self.asr_seconds = self.audio_seconds = 0.0

    def add(self, row: dict[str, Any]) -> None:
        if "cer" not in row:
            return
        self.cers.append(row["cer"])
        self.errors += row["cer_errors"]
        self.chars += row["cer_chars"]
        self.asr_seconds += row.get("asr_seconds") or 0.0
        self.audio_seconds += row.get("audio_seconds") or 0.0

    def block(self, seed: int) -> dict[str, Any]:
        """``{"asr_cer": mean/CI/n, "asr_cer_corpus", "asr_rtf"}``, or nothing without rows."""
        if not self.cers:
            return {}
        from taiwa.metrics.stats import mean_estimate

        return {
            "asr_cer": mean_estimate(self.cers, seed),
            "asr_cer_corpus": self.errors / self.chars if self.chars else 0.0,
            "asr_rtf": self.asr_seconds / self.audio_seconds if self.audio_seconds else None,
        }
