"""The benchmark audio format, seed 000 §3.3: 24 kHz, 16-bit PCM, mono WAV with 120 ms of
silence before and after the speech. Writing pads and resamples (scipy's polyphase resampler)
and writes atomically. What an audio input is checked against before a model hears it is
:mod:`taiwa.speech.wav_check`."""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import TYPE_CHECKING

from taiwa.core.io import atomic_open

if TYPE_CHECKING:
    import numpy as np

SAMPLE_RATE = 24_000
"""Hz (seed 000 §3.3)."""
SUBTYPE = "PCM_16"
"""16-bit signed PCM (seed 000 §3.3)."""
CHANNELS = 1
PAD_SECONDS = 0.120
"""Silence before and after the speech (seed 000 §3.3)."""
PAD_SAMPLES = round(SAMPLE_RATE * PAD_SECONDS)


class AudioFormatError(ValueError):
    """A file that is not a readable WAV in the benchmark format (the message says why)."""


@dataclass(frozen=True)
class WavInfo:
    """What a WAV header says: sample rate, channels, sample format, length."""

    sample_rate: int
    channels: int
    subtype: str
    frames: int

    @property
    def seconds(self) -> float:
        return self.frames / self.sample_rate if self.sample_rate else 0.0


def existing_file(path: str | Path) -> Path:
    """``path`` if it is a regular file; else :class:`AudioFormatError` saying what it is (a
    FIFO or a device is refused before it is opened: reading it could block)."""
    from taiwa.core.io import path_kind

    p = Path(path)
    kind = path_kind(p)
    if kind != "file":
        found = {"missing": "no such file", "directory": "a directory"}.get(kind, "not a file")
        raise AudioFormatError(f"an existing WAV file ({found})")
    return p


def wav_info(path: str | Path) -> WavInfo:
    """The header of ``path``; :class:`AudioFormatError` when it is missing or not a WAV file."""
    import soundfile as sf

    p = existing_file(path)
    try:
        info = sf.info(str(p))
    except (RuntimeError, sf.LibsndfileError) as exc:  # corrupt, truncated or not audio
        raise AudioFormatError(f"a readable WAV file ({_reason(exc)})") from None
    if info.format != "WAV":
        raise AudioFormatError(f"a WAV file (it is {info.format})")
    return WavInfo(info.samplerate, info.channels, info.subtype, info.frames)


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text.split(": ", 1)[-1][:120] if text else type(exc).__name__


def padded_edges_silent(path: str | Path) -> bool:
    """Whether the first and last 120 ms of ``path`` are digital silence (all zero samples)."""
    import soundfile as sf

    data, _ = sf.read(str(path), dtype="int16", always_2d=False)
    if len(data) < 2 * PAD_SAMPLES:
        return False
    return not data[:PAD_SAMPLES].any() and not data[-PAD_SAMPLES:].any()


def to_benchmark_pcm(samples: np.ndarray, sample_rate: int) -> np.ndarray:
    """Mono int16 samples at 24 kHz with 120 ms of silence on each side.

    ``samples`` is float in [-1, 1], mono or (frames, channels); other rates are resampled
    with scipy's polyphase filter. An utterance whose peak exceeds full scale (pyopenjtalk's
    voice does, by up to about 25 %) is scaled down as a whole to a 0.99 peak, never clipped."""
    import numpy as np

    x = np.asarray(samples, dtype=np.float64)
    if x.ndim == 2:
        x = x.mean(axis=1)
    if x.ndim != 1:
        raise ValueError(f"expected mono or (frames, channels) samples, got shape {x.shape}")
    x = x * 32767.0
    if sample_rate != SAMPLE_RATE:
        from scipy.signal import resample_poly

        g = gcd(SAMPLE_RATE, sample_rate)
        x = resample_poly(x, SAMPLE_RATE // g, sample_rate // g)
    peak = float(np.abs(x).max(initial=0.0))
    if peak > 32767.0:
        x = x * (0.99 * 32767.0 / peak)
    pcm = np.clip(np.rint(x), -32768, 32767).astype(np.int16)
    pad = np.zeros(PAD_SAMPLES, dtype=np.int16)
    return np.concatenate([pad, pcm, pad])


def write_benchmark_wav(path: str | Path, samples: np.ndarray, sample_rate: int) -> WavInfo:
    """Write ``samples`` to ``path`` in the benchmark format (:func:`to_benchmark_pcm`),
    atomically: a killed writer leaves no partial file under the final name."""
    import soundfile as sf

    pcm = to_benchmark_pcm(samples, sample_rate)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(target, "wb") as fh:
        sf.write(fh, pcm, SAMPLE_RATE, subtype=SUBTYPE, format="WAV")
    return WavInfo(SAMPLE_RATE, CHANNELS, SUBTYPE, len(pcm))
