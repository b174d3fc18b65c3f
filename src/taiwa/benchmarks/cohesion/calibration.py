"""Calibrating the cosine threshold of the vector resource on labelled dialogues.

For each candidate threshold θ we measure, with reiteration on (the default scorer):

- **separation**: every dialogue is paired with a *spliced* copy whose agent utterances are
  replaced by agent utterances drawn from other dialogues (seeded); separation is the
  probability that the real dialogue gets the higher share of cohesive agent utterances
  (ties count one half). A resource that cannot tell real replies from random ones scores 0.5.
- **F1** of "cohesive" against the human label "semantically correct" over labelled agent
  utterances (seed 003 §3.2's precision and recall).

The default threshold maximises separation, then F1. ``taiwa build calibrate-cohesion``
reproduces the table on any labelled dialogue file.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from taiwa.benchmarks.cohesion.dataset import AGENT_ROLES
from taiwa.benchmarks.cohesion.scoring import score_dialogues
from taiwa.core.schema import Dialogue
from taiwa.resources.vectors import GinzaVectors

GRID = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8)


def splice(dialogues: Sequence[Dialogue], seed: int = 0) -> list[Dialogue]:
    """Copies whose agent utterances come from other dialogues, in random order."""
    rng = random.Random(seed)
    out = []
    for k, dlg in enumerate(dialogues):
        donors = [
            u
            for j, other in enumerate(dialogues)
            if j != k
            for u in other.utterances
            if u.role in AGENT_ROLES
        ]
        rng.shuffle(donors)
        it = iter(donors)
        utterances = [next(it) if u.role in AGENT_ROLES else u for u in dlg.utterances]
        out.append(dlg.model_copy(update={"id": f"{dlg.id}#spliced", "utterances": utterances}))
    return out


def _shares(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Per dialogue (spliced copies under their original id): the cohesive share of its agent
    utterances."""
    totals: dict[str, list[int]] = {}
    for r in rows:
        for u in r["utterances"]:
            if u["role"] in AGENT_ROLES:
                t = totals.setdefault(str(r["id"]).split("#")[0], [0, 0])
                t[0] += bool(u["cohesive"])
                t[1] += 1
    return {k: a / n for k, (a, n) in totals.items() if n}


@dataclass(frozen=True)
class CalibrationPoint:
    threshold: float
    separation: float
    precision: float
    recall: float
    f1: float


def calibrate(
    dialogues: Sequence[Dialogue], grid: Sequence[float] = GRID, seed: int = 0
) -> list[CalibrationPoint]:
    """Separation and F1 at every threshold of ``grid`` (see the module docstring)."""
    spliced = splice(dialogues, seed)
    points = []
    for theta in grid:
        res = GinzaVectors(theta)
        real_rows = score_dialogues(dialogues, res)
        fake = _shares(score_dialogues(spliced, res))
        real = _shares(real_rows)
        wins = [
            1.0 if real[k] > fake[k] else 0.5 if real[k] == fake[k] else 0.0
            for k in real
            if k in fake
        ]
        labelled = [
            u
            for r in real_rows
            for u in r["utterances"]
            if u["role"] in AGENT_ROLES and "correct" in u
        ]
        a = sum(1 for r in labelled if r["cohesive"] and r["correct"])
        b = sum(1 for r in labelled if r["cohesive"])
        c = sum(1 for r in labelled if r["correct"])
        p = a / b if b else 0.0
        rc = a / c if c else 0.0
        f1 = 2 * p * rc / (p + rc) if p + rc else 0.0
        points.append(
            CalibrationPoint(theta, sum(wins) / len(wins) if wins else float("nan"), p, rc, f1)
        )
    return points


def best(points: Sequence[CalibrationPoint]) -> CalibrationPoint:
    """The threshold with the highest separation, then the highest F1."""
    return max(points, key=lambda p: (round(p.separation, 6), p.f1))
