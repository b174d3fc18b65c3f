"""Paths of the sample files bundled with taiwa (original text written by the team)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def sample_path(relative: str) -> Path:
    """The path of ``data/samples/<relative>`` inside the installed package."""
    path = Path(str(resources.files("taiwa").joinpath("data", "samples", *relative.split("/"))))
    if not path.is_file():
        raise FileNotFoundError(
            f"bundled sample {relative!r} is missing from the installation ({path})"
        )
    return path
