"""taiwa (対話): evaluate Japanese dialogue systems with five methods from Japanese research.

The methods and their seeds are listed in DESIGN.md; the public metric functions live in
:mod:`taiwa.metrics`.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("taiwa")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
