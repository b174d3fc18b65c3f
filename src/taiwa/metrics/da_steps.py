"""Turning user input into dialogue-act steps with importances that sum to 1 (seed 000 eq. 3)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from taiwa.schema import DASequence, DAStep

StepLike = DAStep | tuple[str, float] | Mapping[str, Any]
SequenceLike = DASequence | Iterable[StepLike]

TOLERANCE = 1e-6
"""Importance sums further than this from 1 are renormalised with an :class:`ImportanceWarning`."""


class ImportanceWarning(UserWarning):
    """Importances did not sum to 1 and were renormalised (seed 000 eq. 3)."""


def _pair(step: StepLike) -> tuple[str, float]:
    if isinstance(step, DAStep):
        return step.act, step.importance
    if isinstance(step, Mapping):
        return str(step["act"]), float(step["importance"])
    act, importance = step
    return str(act), float(importance)


def normalised_steps(
    seq: SequenceLike, *, renormalise: bool = True, role: str = "sequence"
) -> tuple[list[str], list[float]]:
    """Acts and importances of ``seq``; importances rescaled to sum 1 when ``renormalise``.

    Seed 000 eq. (3) requires each sequence's importances to sum to 1. Negative, NaN or
    infinite importances are rejected; a non-empty sequence whose importances sum to 0 cannot
    be renormalised and is rejected too. A sum off by more than ``TOLERANCE`` is rescaled
    with an :class:`ImportanceWarning`.
    """
    steps = seq.steps if isinstance(seq, DASequence) else seq
    acts: list[str] = []
    weights: list[float] = []
    for i, step in enumerate(steps):
        act, w = _pair(step)
        if not math.isfinite(w) or w < 0:
            raise ValueError(f"{role} step {i}: importance must be a finite number >= 0, got {w}")
        acts.append(act)
        weights.append(w)
    if not renormalise or not weights:
        return acts, weights
    total = math.fsum(weights)
    if total <= 0:
        raise ValueError(f"{role}: importances sum to 0, so they cannot be renormalised to 1")
    if abs(total - 1.0) > TOLERANCE:
        warnings.warn(
            f"{role} importances sum to {total:.6g}, not 1; renormalised (seed 000 eq. 3)",
            ImportanceWarning,
            stacklevel=3,
        )
    return acts, [w / total for w in weights]


def as_sequences(seqs: Sequence[SequenceLike], *, role: str) -> list[tuple[list[str], list[float]]]:
    """:func:`normalised_steps` for many sequences."""
    return [normalised_steps(s, role=f"{role} {i}") for i, s in enumerate(seqs)]
