"""The one check every audio input passes before any model hears it (issue 40 §5).

A method that sends audio declares the format its systems hear as an :class:`AudioContract`
(sample rate, channels, sample width, longest file); every method so far declares
:data:`BENCHMARK_AUDIO`, seed 000 §3.3's 24 kHz / 16-bit / mono, at most
:data:`MAX_AUDIO_SECONDS` a file. While the dataset is validated, each audio path goes through
:func:`checked_audio`: a WAV in another format is refused, never converted, the same way in
every method (the message says what was found and how to convert it); so is a WAV whose header
claims more audio than the file holds, and one longer than the contract allows.

The header is read here, chunk by chunk, rather than through libsndfile, which silently shortens
a truncated ``data`` chunk to what the file holds: the check compares the length the header
declares with the bytes that follow it.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from taiwa.core.errors import InputError
from taiwa.core.io import shown
from taiwa.speech.wav import CHANNELS, SAMPLE_RATE, AudioFormatError, existing_file

MAX_AUDIO_SECONDS = 120.0
"""The longest audio file a method sends by default: a spoken turn lasts seconds (seed 000's
utterances: under 10 s); a file of minutes is almost always a wrong file, and costs tokens by
the second on an audio API."""

CONVERT_HINT = "convert it, e.g. ffmpeg -i IN -ar {rate} -ac {channels} -c:a pcm_s{bits}le OUT.wav"

_MAX_CHUNKS = 1_000
"""Chunks read before ``data`` at most (a file of tiny chunks is not a WAV anyone wrote)."""
_PCM, _FLOAT, _EXTENSIBLE = 0x0001, 0x0003, 0xFFFE


@dataclass(frozen=True)
class AudioContract:
    """The audio a method's systems hear: 16-bit ``sample_width`` is 2 bytes."""

    sample_rate: int = SAMPLE_RATE
    channels: int = CHANNELS
    sample_width: int = 2
    max_seconds: float = MAX_AUDIO_SECONDS
    source: str = "seed 000 §3.3"

    @property
    def subtype(self) -> str:
        return _subtype(_PCM, self.sample_width * 8)

    def describe(self) -> str:
        mono = "mono" if self.channels == 1 else f"{self.channels} channels"
        return f"{self.sample_rate} Hz, {self.subtype}, {mono} WAV ({self.source})"


BENCHMARK_AUDIO = AudioContract()
"""Seed 000 §3.3: 24 kHz, 16-bit PCM, mono; at most :data:`MAX_AUDIO_SECONDS` a file."""


@dataclass(frozen=True)
class WavHeader:
    """What a WAV file's ``fmt`` and ``data`` chunks say, and how much data follows."""

    sample_rate: int
    channels: int
    subtype: str
    block_align: int
    data_bytes: int
    """The length of the audio the ``data`` chunk declares."""
    data_held: int
    """The bytes of audio the file holds after the chunk's header."""

    @property
    def frames(self) -> int:
        return self.data_bytes // self.block_align if self.block_align else 0

    @property
    def seconds(self) -> float:
        return self.frames / self.sample_rate if self.sample_rate else 0.0

    def describe(self) -> str:
        return f"{self.sample_rate} Hz, {self.subtype}, {self.channels} channel(s)"


def _subtype(tag: int, bits: int) -> str:
    """soundfile's name of a sample format (``PCM_16``, ``PCM_U8``, ``FLOAT``, ...)."""
    if tag == _PCM:
        return "PCM_U8" if bits == 8 else f"PCM_{bits}"
    if tag == _FLOAT:
        return {32: "FLOAT", 64: "DOUBLE"}.get(bits, f"FLOAT_{bits}")
    return f"format 0x{tag:04x}"


def read_wav_header(path: str | Path) -> WavHeader:
    """The header of ``path``; :class:`AudioFormatError` naming what is missing or wrong (not a
    file, not RIFF/WAVE, no ``fmt`` chunk before the ``data`` chunk, an unreadable ``fmt``)."""
    p = existing_file(path)
    try:
        with open(p, "rb") as fh:
            return _parse(fh, os.fstat(fh.fileno()).st_size)
    except OSError as exc:
        raise AudioFormatError(f"a readable WAV file ({exc.strerror or exc})") from None


def _parse(f: BinaryIO, size: int) -> WavHeader:
    head = f.read(12)
    if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
        what = "RF64, not RIFF" if head[:4] == b"RF64" else "no RIFF/WAVE header"
        raise AudioFormatError(f"a readable WAV file ({what})")
    fmt: tuple[int, int, int, int, int] | None = None
    for _ in range(_MAX_CHUNKS):
        chunk = f.read(8)
        if len(chunk) < 8:
            break
        name, length = chunk[:4], struct.unpack("<I", chunk[4:])[0]
        if name == b"fmt ":
            fmt = _fmt(f.read(min(length, 40)), length)
            f.seek(f.tell() + length - min(length, 40) + (length & 1))
        elif name == b"data":
            if fmt is None:
                raise AudioFormatError("a readable WAV file (its data comes before its format)")
            rate, channels, tag, bits, align = fmt
            held = max(0, size - f.tell())
            return WavHeader(rate, channels, _subtype(tag, bits), align, length, held)
        else:
            f.seek(f.tell() + length + (length & 1))
    raise AudioFormatError("a readable WAV file (no data chunk)")


def _fmt(raw: bytes, length: int) -> tuple[int, int, int, int, int]:
    """(rate, channels, format tag, bits per sample, block align) of a ``fmt`` chunk."""
    if length < 16 or len(raw) < 16:
        raise AudioFormatError("a readable WAV file (its format chunk is cut short)")
    tag, channels, rate, _, align, bits = struct.unpack("<HHIIHH", raw[:16])
    if tag == _EXTENSIBLE and len(raw) >= 26:
        tag = struct.unpack("<H", raw[24:26])[0]  # the sub-format GUID's first two bytes
    if channels < 1 or rate < 1 or bits < 1 or align < 1:
        found = f"{rate} Hz, {channels} channel(s), {bits} bits"
        raise AudioFormatError(f"a readable WAV file (its format chunk says {found})")
    return rate, channels, tag, bits, align


def check_audio(path: str | Path, contract: AudioContract = BENCHMARK_AUDIO) -> WavHeader:
    """The header of ``path`` if the file is a complete WAV in the ``contract``'s format with
    some audio and no more than its longest; else :class:`AudioFormatError` saying what was
    found (and, for another format, how to convert it)."""
    h = read_wav_header(path)
    if h.data_held < h.data_bytes:
        raise AudioFormatError(
            f"a complete WAV file (its header says {h.data_bytes:,} bytes of audio, the file "
            f"holds {h.data_held:,}: cut short?)"
        )
    wanted = (contract.sample_rate, contract.subtype, contract.channels)
    if (h.sample_rate, h.subtype, h.channels) != wanted:
        bits = contract.sample_width * 8
        hint = CONVERT_HINT.format(rate=contract.sample_rate, channels=contract.channels, bits=bits)
        raise AudioFormatError(f"{contract.describe()}, found {h.describe()}; {hint}")
    if h.frames == 0:
        raise AudioFormatError("a WAV file with audio in it (it has no samples)")
    if h.seconds > contract.max_seconds:
        raise AudioFormatError(
            f"at most {contract.max_seconds:g} s of audio a file, found {h.seconds:,.1f} s"
        )
    return h


def checked_audio(
    dataset: str | Path,
    line: int,
    field: str,
    audio: str,
    contract: AudioContract = BENCHMARK_AUDIO,
) -> Path:
    """The absolute path of the audio file ``audio`` given on ``line`` of ``dataset`` (relative
    to the dataset's folder) after :func:`check_audio`; else one :class:`InputError` naming
    the dataset, the line and the ``field``: the same words in every method."""
    wav = Path(dataset).resolve().parent / audio
    try:
        check_audio(wav, contract)
    except AudioFormatError as exc:
        raise InputError(str(dataset), line, field, str(exc), shown(audio)) from None
    return wav
