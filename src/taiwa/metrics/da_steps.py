"""Turning user input into dialogue-act steps with importances that sum to 1 (seed 000 eq. 3)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from taiwa.core.schema import DASequence, DAStep

if TYPE_CHECKING:
    import numpy as np

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


def encode_batch(
    seqs: Sequence[SequenceLike], vocab: dict[str, int], *, role: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Many sequences as padded arrays: act codes (pad -1), importances (pad 0), lengths.

    Validation and renormalisation are those of :func:`normalised_steps`, done on the whole
    batch at once (one :class:`ImportanceWarning` says how many sequences were rescaled).
    """
    import numpy as np  # here: the module is read before a run's first request, numpy is not

    step_lists = [
        s.steps if isinstance(s, DASequence) else (s if isinstance(s, list | tuple) else list(s))
        for s in seqs
    ]
    lengths = np.fromiter(map(len, step_lists), dtype=np.int64, count=len(step_lists))
    flat = [step for steps in step_lists for step in steps]
    if not (flat and set(map(type, flat)) == {tuple}):
        flat = [_pair(step) for step in flat]
    acts_flat: list[str] = [a if type(a) is str else str(a) for a, _ in flat]
    weights_flat = [w for _, w in flat]
    for act in set(acts_flat):
        vocab.setdefault(act, len(vocab))
    w = np.asarray(weights_flat, dtype=float)
    rows = np.repeat(np.arange(len(seqs)), lengths)
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        k = int(rows[np.argmax(bad)])
        raise ValueError(f"{role} {k}: importance must be a finite number >= 0")
    sums = np.bincount(rows, weights=w, minlength=len(seqs))
    zero = (lengths > 0) & (sums <= 0)
    if zero.any():
        k = int(np.argmax(zero))
        raise ValueError(f"{role} {k}: importances sum to 0, so they cannot be renormalised to 1")
    off = (lengths > 0) & (np.abs(sums - 1.0) > TOLERANCE)
    if off.any():
        warnings.warn(
            f"{int(off.sum())} {role} sequence(s) had importances not summing to 1; "
            "renormalised (seed 000 eq. 3)",
            ImportanceWarning,
            stacklevel=3,
        )
    safe = np.where(sums > 0, sums, 1.0)
    w = w / safe[rows]
    width = int(lengths.max()) if len(seqs) else 0
    starts = np.cumsum(lengths) - lengths
    cols = np.arange(len(w)) - np.repeat(starts, lengths)
    codes = np.full((len(seqs), width), -1, dtype=np.int64)
    padded = np.zeros((len(seqs), width))
    codes[rows, cols] = np.fromiter(
        map(vocab.__getitem__, acts_flat), dtype=np.int64, count=len(acts_flat)
    )
    padded[rows, cols] = w
    return codes, padded, lengths
