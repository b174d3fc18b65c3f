"""Seed 001's analyses over per-system and per-item numbers: system rankings, Spearman ρ
between two evaluations (検証：単一評価・比較評価の一貫性, 「楽しさ」が評価できるか), and the
per-task difficulty check (タスクごとの難易度設定の確認). Pure functions, one pass over rows.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from taiwa.benchmarks.chitchat.dataset import TASK_TITLES, TASKS


def system_ranks(scores: Mapping[str, float], *, lower_is_better: bool = False) -> dict[str, float]:
    """Each system's place, 1 the best (seed 001's ranking columns); tied systems share the
    mean of their places."""
    order = sorted(scores, key=lambda s: scores[s] if lower_is_better else -scores[s])
    places: dict[str, float] = {}
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for system in order[i : j + 1]:
            places[system] = (i + j) / 2 + 1
        i = j + 1
    return places


@dataclass(frozen=True)
class RankCorrelation:
    """Spearman ρ between two evaluations of the same systems, oriented so that a positive ρ
    means they agree; two-sided p-value, n systems and a 95 % bootstrap CI over systems."""

    rho: float
    p: float
    n: int
    low: float
    high: float
    systems: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "rho": self.rho,
            "p": self.p,
            "n": self.n,
            "ci_low": self.low,
            "ci_high": self.high,
            "systems": list(self.systems),
        }


def rank_correlation(
    x: Mapping[str, float],
    y: Mapping[str, float],
    *,
    x_lower_is_better: bool = False,
    y_lower_is_better: bool = False,
    seed: int = 0,
) -> RankCorrelation:
    """Spearman ρ between two per-system score lists over the systems both have (seed 001:
    single score, win rate or ROUGE-L against the human mean rank, which is lower-better).

    Raises ``ValueError`` with fewer than 3 systems in common."""
    from taiwa.metrics.stats import correlation

    systems = tuple(s for s in x if s in y)
    if len(systems) < 3:
        raise ValueError(f"a rank correlation needs 3 or more systems in common, got {systems}")
    a = [-x[s] if x_lower_is_better else x[s] for s in systems]
    b = [-y[s] if y_lower_is_better else y[s] for s in systems]
    c = correlation(a, b, "spearman", seed=seed)
    return RankCorrelation(c.r, c.p, c.n, c.low, c.high, systems)


CLAIM_MIN_N = 10
"""Judged ratings a task needs before the seed's difficulty order is claimed for it."""


def task_difficulty(
    rows: Iterable[Mapping[str, Any]], *, score: str = "score", seed: int = 0
) -> dict[str, Any]:
    """Mean score per task type with its 95 % bootstrap CI and n (seed 001: the single score
    averaged over every model, 6.17 → 6.00 → 5.58 from next utterance to continuation).

    Each row has ``task`` and the ``score`` field; a row whose score is missing, null or not
    finite (a failed judgment) is counted per task as ``missing``, and a row marked
    ``imputed`` (a rating given by rule to a reply with no answer, not by the judge) as
    ``imputed``; neither is averaged in. ``decreasing`` says whether the means fall in the
    seed's order of intended difficulty over the tasks present; ``claim`` whether that may be
    said to reproduce the seed (:func:`difficulty_claim`). Raises ``ValueError`` for a row of
    another task."""
    from taiwa.metrics.stats import bootstrap_ci

    values: dict[str, list[float]] = {task: [] for task in TASKS}
    missing = dict.fromkeys(TASKS, 0)
    imputed = dict.fromkeys(TASKS, 0)
    for row in rows:
        task = row.get("task")
        if task not in values:
            raise ValueError(f"a row of task {task!r}: expected one of {', '.join(TASKS)}")
        value = row.get(score)
        if row.get("imputed"):
            imputed[task] += 1
        elif (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        ):
            values[task].append(float(value))
        else:
            missing[task] += 1
    tasks = {
        task: {
            "title": TASK_TITLES[task],
            **bootstrap_ci(values[task], seed=seed).as_dict(),
            "missing": missing[task],
            "imputed": imputed[task],
        }
        for task in TASKS
        if values[task] or missing[task] or imputed[task]
    }
    means = [statistics.fmean(values[task]) for task in TASKS if values[task]]
    decreasing = len(means) > 1 and all(a > b for a, b in itertools.pairwise(means))
    return {
        "tasks": tasks,
        "decreasing": decreasing,
        "claim": difficulty_claim(values, decreasing, seed),
    }


def difficulty_claim(
    values: Mapping[str, list[float]], decreasing: bool, seed: int = 0
) -> dict[str, Any]:
    """Whether "single scores fall with difficulty, as in seed 001" holds on these judged
    ratings (issue 39), and why not: it holds when two or more tasks have
    :data:`CLAIM_MIN_N` judged ratings or more each, their means fall in the seed's order, and
    the 95 % bootstrap interval of (easiest − hardest task mean), each task resampled on its
    own, lies above 0."""
    import numpy as np

    present = [t for t in TASKS if values.get(t)]
    if len(present) < 2:
        return {"holds": False, "why": "fewer than two task types have judged ratings"}
    few = [t for t in present if len(values[t]) < CLAIM_MIN_N]
    if few:
        n = min(len(values[t]) for t in few)
        return {
            "holds": False,
            "why": f"{TASK_TITLES[few[0]]} has {n} judged rating(s), below {CLAIM_MIN_N}",
        }
    if not decreasing:
        return {"holds": False, "why": "the judged means do not fall in the seed's order"}
    rng = np.random.default_rng(seed)
    first, last = (np.asarray(values[t], dtype=float) for t in (present[0], present[-1]))
    drops = first[rng.integers(0, first.size, (2000, first.size))].mean(axis=1) - last[
        rng.integers(0, last.size, (2000, last.size))
    ].mean(axis=1)
    low, high = (float(x) for x in np.quantile(drops, [0.025, 0.975]))
    drop = {"value": float(first.mean() - last.mean()), "ci_low": low, "ci_high": high}
    if low <= 0:
        return {
            "holds": False,
            "why": f"the fall {drop['value']:.2f} [{low:.2f}, {high:.2f}] is within noise",
            "drop": drop,
        }
    return {"holds": True, "why": "", "drop": drop}
