"""The package's version: the one place it is written (``pyproject.toml`` reads it from here),
so that importing :mod:`taiwa` does not load :mod:`importlib.metadata` (some 30 ms before a
run's first request) to look it up."""

__version__ = "0.1.0"
