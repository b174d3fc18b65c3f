"""The marker of a value a rule filled in rather than a measurement (issue 39): a forfeit, an
extraction failure given the lowest rating, an unreadable answer scored wrong. Paired
comparisons leave such items out and count them (:mod:`taiwa.metrics.pairing`). A module of
its own, without numpy, so that declaring comparisons imports nothing heavy."""

from __future__ import annotations


class Imputed:
    """The value of an item that a rule filled in; :data:`IMPUTED` is the one instance."""

    _instance: Imputed | None = None

    def __new__(cls) -> Imputed:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "IMPUTED"


IMPUTED = Imputed()
