"""Text-to-speech behind one small protocol; the default is ``pyopenjtalk-plus`` (offline, its
dictionary and HTS voice ship in the wheel; DESIGN.md). Seed 000 §3.3 used Tsukasa-Speech, which
does not ship on PyPI: any engine with :class:`TTS`'s two members can stand in for it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from taiwa.core.errors import TaiwaError

if TYPE_CHECKING:
    import numpy as np


class TTS(Protocol):
    """A speech synthesiser. ``identity`` names the engine, its version and voice settings
    (rendered file names depend on it, so another voice never reuses a file);
    :meth:`synthesize` returns float samples in [-1, 1] (mono) and their sample rate."""

    identity: str

    def synthesize(self, text: str) -> tuple[np.ndarray, int]: ...


class OpenJTalkTTS:
    """``pyopenjtalk-plus``: Open JTalk with its bundled dictionary and the default HTS voice
    (48 kHz float samples on the int16 scale, which :meth:`synthesize` rescales to [-1, 1])."""

    def __init__(self, speed: float = 1.0) -> None:
        try:
            import pyopenjtalk
        except ImportError:
            raise TaiwaError(
                "text-to-speech needs pyopenjtalk-plus: pip install 'taiwa[speech]'"
            ) from None
        from importlib.metadata import version

        self._tts = pyopenjtalk.tts
        self.speed = speed
        self.identity = f"pyopenjtalk-plus {version('pyopenjtalk-plus')} speed={speed:g}"

    def synthesize(self, text: str) -> tuple[np.ndarray, int]:
        samples, rate = self._tts(text, speed=self.speed)
        return samples / 32768.0, int(rate)


def default_tts() -> TTS:
    """The default synthesiser (pyopenjtalk-plus, normal speed)."""
    return OpenJTalkTTS()
