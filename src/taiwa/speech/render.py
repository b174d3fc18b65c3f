"""Render a dataset's utterances to benchmark WAV files (seed 000 §3.3; ``taiwa build audio``).

Every file is named after the record id, the field and a hash of the text and the synthesiser,
so an edited text or another voice gets a new file and never a stale one. Each file is written
atomically; a re-run skips files that already exist in the benchmark format (header checked,
padded edges silent), so a killed rendering resumes where it stopped. The dataset is written
again (atomically, JSONL) with the audio paths, relative to the written dataset file.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io import check_id, iter_rows, shown, write_jsonl
from taiwa.speech.tts import TTS
from taiwa.speech.wav import AudioFormatError, padded_edges_silent, write_benchmark_wav
from taiwa.speech.wav_check import check_audio

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class TextField:
    """A text to speak (``path``: dotted field path, e.g. ``input.text``) and the record key
    that receives the WAV path (e.g. ``audio``)."""

    path: str
    key: str


@dataclass
class RenderReport:
    """What a rendering did: files written and skipped, seconds of audio, CPU seconds spent
    synthesising and writing, and the dataset written."""

    rendered: int = 0
    skipped: int = 0
    audio_seconds: float = 0.0
    cpu_seconds: float = 0.0
    dataset: Path | None = None

    @property
    def cpu_per_utterance(self) -> float:
        return self.cpu_seconds / self.rendered if self.rendered else 0.0


def audio_name(text: str, tts: TTS, record_id: str | None = None, key: str = "audio") -> str:
    """``ID.KEY.HASH.wav`` (or ``HASH.wav`` without an id): HASH covers the synthesiser and the
    text, so the name changes whenever the audio would."""
    digest = hashlib.sha256(f"{tts.identity}\0{text}".encode()).hexdigest()[:16]
    if record_id is None:
        return f"{digest}.wav"
    safe = _SAFE.sub("_", record_id).strip("._")[:80] or "item"
    return f"{safe}.{_SAFE.sub('_', key)}.{digest}.wav"


def is_rendered(path: Path) -> bool:
    """Whether ``path`` already holds a benchmark WAV (format and silent padding checked)."""
    try:
        check_audio(path)
    except AudioFormatError:
        return False
    return padded_edges_silent(path)


def render_text(text: str, target: Path, tts: TTS, report: RenderReport | None = None) -> Path:
    """``target`` holding ``text`` spoken by ``tts`` in the benchmark format; an existing
    conforming file is kept (counted as skipped)."""
    report = report if report is not None else RenderReport()
    if is_rendered(target):
        report.skipped += 1
        return target
    start = time.process_time()
    samples, rate = tts.synthesize(text)
    info = write_benchmark_wav(target, samples, rate)
    report.cpu_seconds += time.process_time() - start
    report.audio_seconds += info.seconds
    report.rendered += 1
    return target


def _field(record: dict[str, Any], path: str) -> Any:
    value: Any = record
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def default_dataset_out(data: Path, out_dir: Path) -> Path:
    """``OUT_DIR/<data name>.jsonl``: where the dataset with audio paths goes by default."""
    return out_dir / f"{data.stem}.jsonl"


def render_dataset(
    data: Path,
    out_dir: Path,
    tts: TTS,
    fields: Sequence[TextField] = (TextField("input.text", "audio"),),
    dataset_out: Path | None = None,
    limit: int | None = None,
) -> RenderReport:
    """Speak every record's ``fields`` into ``out_dir`` and write the dataset with the audio
    paths to ``dataset_out`` (default :func:`default_dataset_out`). Every record is checked
    (id and texts present) before the first file is synthesised; the file is read twice and
    never held whole."""
    target = dataset_out or default_dataset_out(data, out_dir)
    seen: dict[str, int] = {}
    for number, record in _records(data, limit):  # every record checked before any synthesis
        check_id(data, number, record.get("id"), seen)  # a repeated id would share its files
        for f in fields:
            text = _field(record, f.path)
            if not isinstance(text, str) or not text.strip():
                raise InputError(str(data), number, f.path, "a non-empty string", shown(text))
    report = RenderReport(dataset=target)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = target.resolve().parent

    def spoken() -> Iterator[dict[str, Any]]:
        for _, record in _records(data, limit):
            for f in fields:
                text = _field(record, f.path)
                wav = out_dir / audio_name(text, tts, record["id"], f.key)
                render_text(text, wav, tts, report)
                record[f.key] = os.path.relpath(wav.resolve(), base)
            yield record

    write_jsonl(target, spoken())  # streamed; renamed into place only when complete
    return report


def _records(data: Path, limit: int | None) -> Iterator[tuple[int, dict[str, Any]]]:
    for k, row in enumerate(iter_rows(data)):
        if limit is not None and k >= limit:
            return
        yield row
