"""taiwa (対話): evaluate Japanese dialogue systems with five methods from Japanese research.

The methods and their seeds are listed in DESIGN.md; the public metric functions live in
:mod:`taiwa.metrics`.
"""

from taiwa._version import __version__

__all__ = ["__version__"]
