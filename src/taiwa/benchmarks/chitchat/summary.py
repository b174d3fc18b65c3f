"""The chitchat summary (seed 001's result tables) from the rows of a run.

Per system: 「正規表現 抜き出し成功」 (extractions that succeeded, of n), ROUGE-1/2/L
(簡易評価; a failed extraction scores 0), the single score (単一評価, 1–10; a reply without an
answer gets the lowest rating), the pairwise win rate (比較評価), and each per task type.
Across systems: the win-rate matrix (probability that the row system wins; ties separately),
the per-task difficulty check (タスクごとの難易度設定の確認), the ranking of the systems by each
evaluation and Spearman ρ between evaluations (評価の一貫性) and, with human rankings, against
the human mean rank (「楽しさ」が評価できるか) and the judge's quality block (order-flip rate,
unparseable verdicts, rating histogram, agreement with humans over items).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from taiwa.benchmarks.chitchat.scoring import ROUGE_KEYS
from taiwa.harness.method import Results, Row

EVALUATIONS = {"single": "単一評価", "pairwise": "比較評価", "rougeL": "簡易評価 (ROUGE-L)"}
"""The evaluations systems are ranked by (seed 001's consistency table), higher is better."""


def extraction_block(rows: Iterable[Row], seed: int) -> dict[str, Any]:
    """One pass over a system's extraction rows: the success count, ROUGE means and both per
    task (rows whose generation failed count as failed extractions, never as missing)."""
    from taiwa.metrics.stats import bootstrap_ci

    ok: list[float] = []
    rouge: dict[str, list[float]] = {k: [] for k in ROUGE_KEYS}
    by_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        extracted = "error" not in row and bool(row["extracted"])
        ok.append(float(extracted))
        task = by_task[row.get("task", "?")] if "error" not in row else None
        for k in ROUGE_KEYS:
            value = float(row[k]) if "error" not in row else 0.0
            rouge[k].append(value)
            if task is not None:
                task[k].append(value)
        if task is not None:
            task["extracted"].append(float(extracted))
    return {
        "extracted": {"ok": int(sum(ok)), "n": len(ok), **bootstrap_ci(ok, seed=seed).as_dict()},
        **{k: bootstrap_ci(v, seed=seed).as_dict() for k, v in rouge.items()},
        "by_task": {
            task: {k: bootstrap_ci(v, seed=seed).as_dict() for k, v in values.items()}
            for task, values in by_task.items()
        },
    }


def single_block(rows: Iterable[Row], tasks: Mapping[str, str], seed: int) -> dict[str, Any]:
    """A system's single-judge rows: the mean rating (n, CI), per task, and the count of
    answers judged without the judge (missing) and of failed judgements."""
    from taiwa.metrics.stats import bootstrap_ci

    ratings: list[float] = []
    by_task: dict[str, list[float]] = defaultdict(list)
    missing = failed = 0
    for row in rows:
        if "error" in row:
            failed += 1
            continue
        ratings.append(float(row["rating"]))
        by_task[tasks.get(str(row["id"]), "?")].append(float(row["rating"]))
        missing += bool(row.get("missing"))
    return {
        **bootstrap_ci(ratings, seed=seed).as_dict(),
        "missing": missing,
        "failed": failed,
        "by_task": {t: bootstrap_ci(v, seed=seed).as_dict() for t, v in by_task.items()},
    }


def with_tasks(rows: Iterable[Row], tasks: Mapping[str, str], key: str) -> Iterable[Row]:
    """``{"task", "score", "imputed"}`` per judged row (for :func:`task_difficulty`):
    ``imputed`` when the rating was given by rule to a reply with no answer."""
    for row in rows:
        yield {
            "task": tasks[str(row["id"])],
            "score": None if "error" in row else row[key],
            "imputed": "error" not in row and bool(row.get("missing")),
        }


def rankings(per_system: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Each evaluation's per-system score (the value of its estimate) and the systems' places
    (seed 001's table: 1 the best, ties share the mean place)."""
    from taiwa.benchmarks.chitchat.analysis import system_ranks

    out: dict[str, dict[str, float]] = {}
    for evaluation in EVALUATIONS:
        scores = {
            s: float(block[evaluation]["value"])
            for s, block in per_system.items()
            if evaluation in block and not math.isnan(block[evaluation]["value"])
        }
        if scores:
            out[evaluation] = system_ranks(scores)
    return out


def scores_of(per_system: Mapping[str, Mapping[str, Any]], evaluation: str) -> dict[str, float]:
    return {
        s: float(b[evaluation]["value"])
        for s, b in per_system.items()
        if evaluation in b and not math.isnan(b[evaluation]["value"])
    }


def consistency(
    per_system: Mapping[str, Mapping[str, Any]], seed: int
) -> dict[str, dict[str, Any]]:
    """Spearman ρ between every two evaluations over the systems (needs 3 or more)."""
    from taiwa.benchmarks.chitchat.analysis import rank_correlation

    out: dict[str, dict[str, Any]] = {}
    for x, y in itertools.combinations(EVALUATIONS, 2):
        a, b = scores_of(per_system, x), scores_of(per_system, y)
        if len(set(a) & set(b)) >= 3:
            out[f"{x}~{y}"] = rank_correlation(a, b, seed=seed).as_dict()
    return out


def human_block(
    rankings_: Sequence[Any],
    per_system: Mapping[str, Mapping[str, Any]],
    results: Results,
    tasks: Mapping[str, str],
    seed: int,
) -> dict[str, Any]:
    """Human mean ranks (the items of this run only; others counted) and the agreement of each
    evaluation with them: over systems (ρ, p, n, CI over systems) and, for the judge, over
    items (ρ with a CI resampling the items)."""
    from taiwa.benchmarks.chitchat.analysis import rank_correlation
    from taiwa.benchmarks.chitchat.human_ranks import mean_ranks
    from taiwa.judges.analysis import agreement_with_humans, item_ratings, item_win_shares

    used = [r for r in rankings_ if r.id in tasks]
    table = mean_ranks(used, seed=seed)
    human = {s: float(v["mean_rank"]["value"]) for s, v in table.items()}
    out: dict[str, Any] = {
        "mean_ranks": table,
        "rankings": len(used),
        "rankings_for_other_items": len(rankings_) - len(used),
        "vs_human": {},
    }
    for evaluation in EVALUATIONS:
        scores = scores_of(per_system, evaluation)
        if len(set(scores) & set(human)) >= 3:
            corr = rank_correlation(scores, human, y_lower_is_better=True, seed=seed)
            out["vs_human"][evaluation] = corr.as_dict()
    per_item: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in used:
        for system, rank in r.ranks.items():
            per_item[r.id][system].append(rank)
    item_ranks = {i: {s: sum(v) / len(v) for s, v in per.items()} for i, per in per_item.items()}
    judged: dict[str, dict[str, dict[str, float]]] = {}
    if any("single" in b for b in per_system.values()):
        judged["single"] = item_ratings(
            {s: results.rows("single_judge", s) for s in per_system if "single" in per_system[s]}
        )
    if any("pairwise" in b for b in per_system.values()):
        judged["pairwise"] = item_win_shares(results.rows("pairwise_judge"))
    out["judge_vs_human_items"] = {
        k: agreement_with_humans(v, item_ranks, seed=seed) for k, v in judged.items()
    }
    return out


def judge_flags(
    across: dict[str, Any],
    systems: Mapping[str, dict[str, Any]],
    results: Results,
    human: str,
) -> None:
    """The judge's flags: no pair judged for the order-flip rate, one rating for nearly every
    reply (over all systems: the judge's, on the single score of every system whose replies it
    read; else per system, leaving out ``human``, whose reply is the reference the judge
    compares with, so that it may rightly get one rating)."""
    from taiwa.judges.analysis import rating_histogram
    from taiwa.metrics import flags

    q = across["judge_quality"]
    flip = q.get("flip_rate")
    if flip is not None:
        forfeited = across.get("win_rates", {}).get("forfeited", 0)
        flags.add(across, flags.no_pair_judged(flip["n"], "judge_quality.flip_rate", forfeited))
    hist = q.get("rating_histogram")
    if hist is None:
        return
    overall = flags.rating_histogram_flag(hist["bins"], "judge_quality.rating_histogram")
    if overall is not None:  # it qualifies every judged system's single score (issue 39)
        judged = tuple(  # human too: its ratings came from the same judge
            s
            for s, b in systems.items()
            if "single" in b and rating_histogram(results.rows("single_judge", s))["n"]
        )
        flags.add(across, replace(overall, covers=("single",), systems=judged))
        return
    for system, block in systems.items():
        if system != human and "single" in block:
            bins = rating_histogram(results.rows("single_judge", system))["bins"]
            flags.add(
                block, flags.rating_histogram_flag(bins, "single", f"the judge, for {system},")
            )
