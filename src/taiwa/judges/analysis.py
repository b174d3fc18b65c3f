"""Aggregates over judge rows: win rates, the judge's own quality, agreement with humans.

Pure functions over the rows of :class:`~taiwa.judges.stages.SingleJudge` (``{"rating",
"judgment", "missing"}`` per sample and system) and :class:`~taiwa.judges.stages.PairwiseJudge`
(``{"pairs": [...]}`` per sample), each returning JSON-ready dicts for a method's summary.
Rows may include failed ones (``error``): they are counted, never used as verdicts.

Every mean or proportion carries its n and a seeded 95 % bootstrap CI
(:func:`taiwa.metrics.stats.bootstrap_ci`). Where one item contributes several pairs (win
rates, flip rate, unparsed share), the CI resamples items, keeping each item's pairs together,
and ``n`` counts the pairs (``n_items`` the items).

Judge quality follows what Zheng+ 2023 (§3.3-3.4, Table 2) measures and FastChat leaves out
of its results: the **order-flip rate** (a pairwise verdict that changes when the two answers
swap places), the share of **unparseable** verdicts after repair rounds, the **histogram** of
single ratings, and the **agreement with human ranks** (seed 001: Spearman ρ between the
systems' judge scores and their human mean rank).

Imports numpy (through :mod:`taiwa.metrics.stats`): a method imports this module inside its
``aggregate``, so ``taiwa list`` stays light.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from taiwa.harness.method import Row
from taiwa.metrics.stats import Correlation, bootstrap_ci, correlation, spearman_with_p

FLIP_RATE_THRESHOLD = 0.35
"""Above this order-flip rate a judge is flagged. GPT-4, the most position-consistent judge of
Zheng+ 2023 (Table 2), kept its verdict on 65 % of swapped MT-bench pairs, i.e. flipped 35 %:
a judge flipping more often is less consistent than the best judge measured there, and most of
its pairwise verdicts end as ties."""

INVALID_PREFIX = "invalid output after"
"""How the runner begins the error of a row whose repair rounds ran out (``runner.run_stage``):
for :class:`SingleJudge` rows, an unparseable rating."""

_DECIDED = ("a", "b", "tie")


# ---------------------------------------------------------------------------- pairwise results


def judged_pairs(rows: Iterable[Row]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(item id, pair)`` for every pair of every pairwise row that did not fail."""
    for row in rows:
        if "error" not in row:
            for pair in row["pairs"]:
                yield str(row["id"]), pair


def _forfeit(pair: Mapping[str, Any]) -> bool:
    """A pair decided without the judge: a side had no answer (``basis == "missing"``)."""
    return bool(pair.get("basis", "judged") != "judged")


def win_rate_matrix(
    rows: Iterable[Row], systems: Sequence[str], *, seed: int = 0
) -> dict[str, Any]:
    """``wins[r][c]``: the probability that system ``r`` wins against ``c`` (seed 001's
    比較評価 table: "表の数値はこちらが勝つ確率"); ``ties[r][c]`` the probability of a tie, so
    ``wins[r][c] + wins[c][r] + ties[r][c] = 1``. Over the pairs the judge decided (unparsed
    and excluded pairs left out); pairs decided by a forfeit (a side without an answer) are
    counted apart: ``forfeits[r][c]`` pairs ``r`` won so against ``c``, ``judged`` and
    ``forfeited`` the pairs of each kind."""
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    ties: dict[tuple[str, str], list[float]] = defaultdict(list)
    forfeits: Counter[tuple[str, str]] = Counter()
    judged = forfeited = 0
    for _, pair in judged_pairs(rows):
        if _forfeit(pair):
            forfeited += 1
            if pair["winner"] is not None:
                loser = pair["b"] if pair["winner"] == pair["a"] else pair["a"]
                forfeits[pair["winner"], loser] += 1
            continue
        if pair["outcome"] not in _DECIDED:
            continue
        judged += 1
        a, b, tie = pair["a"], pair["b"], float(pair["outcome"] == "tie")
        cells[a, b].append(float(pair["outcome"] == "a"))
        cells[b, a].append(float(pair["outcome"] == "b"))
        ties[a, b].append(tie)
        ties[b, a].append(tie)

    def matrix(values: Mapping[tuple[str, str], list[float]]) -> dict[str, dict[str, Any]]:
        return {
            r: {
                c: bootstrap_ci(values.get((r, c), []), seed=seed).as_dict()
                for c in systems
                if c != r
            }
            for r in systems
        }

    return {
        "systems": list(systems),
        "wins": matrix(cells),
        "ties": matrix(ties),
        "forfeits": {r: {c: forfeits[r, c] for c in systems if c != r} for r in systems},
        "judged": judged,
        "forfeited": forfeited,
    }


def overall_win_rates(
    rows: Iterable[Row], systems: Sequence[str], *, seed: int = 0
) -> dict[str, dict[str, Any]]:
    """Per system, over all its pairs the judge decided: ``win_rate`` (wins / pairs) and
    ``win_rate_adjusted`` ((wins + ties / 2) / pairs, FastChat's "win rate (adjusted)"),
    with the counts of wins, ties and losses; pairs decided by a forfeit are counted apart
    (``forfeit_wins``, ``forfeit_losses``), never in the rates."""
    per_item: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    forfeit: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for item, pair in judged_pairs(rows):
        if _forfeit(pair):
            if pair["winner"] is not None:
                loser = pair["b"] if pair["winner"] == pair["a"] else pair["a"]
                forfeit[pair["winner"]][0] += 1
                forfeit[loser][1] += 1
            continue
        if pair["outcome"] not in _DECIDED:
            continue
        for side in ("a", "b"):
            result = 0 if pair["outcome"] == side else 1 if pair["outcome"] == "tie" else 2
            per_item[pair[side]][item][result] += 1  # [wins, ties, losses]
    out: dict[str, dict[str, Any]] = {}
    for system in systems:
        items = list(per_item[system].values())
        wins, ties, losses = (sum(c[k] for c in items) for k in range(3))
        out[system] = {
            "win_rate": _ratio([(w, w + t + lo) for w, t, lo in items], seed),
            "win_rate_adjusted": _ratio([(w + t / 2, w + t + lo) for w, t, lo in items], seed),
            "wins": wins,
            "ties": ties,
            "losses": losses,
            "forfeit_wins": forfeit[system][0],
            "forfeit_losses": forfeit[system][1],
        }
    return out


def flip_rate(
    rows: Iterable[Row], *, seed: int = 0, threshold: float = FLIP_RATE_THRESHOLD
) -> dict[str, Any]:
    """The judge's order-flip rate: the share of pairs, judged in both orders with both
    verdicts read, whose verdict changed with the order. ``first`` / ``second`` count the flips
    where the judge picked the same position both times (Zheng+ 2023 Table 2's position bias);
    ``flagged`` when the rate is above ``threshold`` (:data:`FLIP_RATE_THRESHOLD`)."""
    per_item: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    bias: Counter[str] = Counter()
    for item, pair in judged_pairs(rows):
        if pair["flipped"] is None:
            continue
        per_item[item][0] += int(pair["flipped"])
        per_item[item][1] += 1
        if pair["bias"] is not None:
            bias[pair["bias"]] += 1
    est = _ratio([(f, n) for f, n in per_item.values()], seed)
    flagged = bool(est["value"] > threshold) if not math.isnan(est["value"]) else False
    return {
        **est,
        "first": bias["first"],
        "second": bias["second"],
        "threshold": threshold,
        "flagged": flagged,
    }


def unparsed_share_pairwise(rows: Iterable[Row], *, seed: int = 0) -> dict[str, Any]:
    """The share of pairwise verdicts still unreadable after the repair rounds (two verdicts
    per judged pair); ``failed_items``: rows whose judge requests failed (no verdicts)."""
    per_item: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    failed = 0
    for row in rows:
        if "error" in row:
            failed += 1
            continue
        for pair in row["pairs"]:
            if pair["basis"] == "judged":
                per_item[str(row["id"])][0] += sum(v is None for v in pair["verdicts"])
                per_item[str(row["id"])][1] += len(pair["verdicts"])
    return {**_ratio([(u, n) for u, n in per_item.values()], seed), "failed_items": failed}


# ------------------------------------------------------------------------------ single ratings


def unparsed_share_single(rows: Iterable[Row], *, seed: int = 0) -> dict[str, Any]:
    """The share of single judgements without a rating after the repair rounds, among those the
    judge answered; ``failed``: rows that failed otherwise (request error, upstream failure)."""
    values: list[float] = []
    failed = 0
    for row in rows:
        if "error" in row:
            if str(row["error"]).startswith(INVALID_PREFIX):
                values.append(1.0)
            else:
                failed += 1
        elif not row.get("missing"):
            values.append(0.0)
    return {**bootstrap_ci(values, seed=seed).as_dict(), "failed": failed}


def rating_histogram(rows: Iterable[Row]) -> dict[str, Any]:
    """How often the judge gave each rating: bin ``k`` holds ratings in [k, k + 1) (10: exactly
    10). Ratings given without the judge (``missing`` answers) are left out."""
    bins = dict.fromkeys([str(k) for k in range(1, 11)], 0)
    for row in rows:
        if "error" not in row and not row.get("missing"):
            bins[str(min(10, math.floor(row["rating"])))] += 1
    return {"bins": bins, "n": sum(bins.values())}


def mean_rating(
    rows: Iterable[Row], *, seed: int = 0, include_missing: bool = True
) -> dict[str, Any]:
    """The mean rating with its CI; ``include_missing``: answers that were missing count with
    the rating :class:`SingleJudge` gave them (seed 001 scores failures as failures)."""
    values = [
        float(row["rating"])
        for row in rows
        if "error" not in row and (include_missing or not row.get("missing"))
    ]
    return bootstrap_ci(values, seed=seed).as_dict()


# ------------------------------------------------------------------------- agreement with humans


def item_ratings(
    rows_by_system: Mapping[str, Iterable[Row]], *, include_missing: bool = True
) -> dict[str, dict[str, float]]:
    """item → system → single rating, from each system's :class:`SingleJudge` rows."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for system, rows in rows_by_system.items():
        for row in rows:
            if "error" not in row and (include_missing or not row.get("missing")):
                out[str(row["id"])][system] = float(row["rating"])
    return dict(out)


def item_win_shares(rows: Iterable[Row]) -> dict[str, dict[str, float]]:
    """item → system → (wins + ties / 2) / decided pairs of that item, from pairwise rows."""
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0]))
    for item, pair in judged_pairs(rows):
        if pair["outcome"] not in _DECIDED:
            continue
        for side in ("a", "b"):
            score = 1.0 if pair["outcome"] == side else 0.5 if pair["outcome"] == "tie" else 0.0
            cell = tally[item][pair[side]]
            cell[0] += score
            cell[1] += 1
    return {item: {s: w / n for s, (w, n) in per.items()} for item, per in tally.items()}


def spearman_vs_human_ranks(
    scores: Mapping[str, float], mean_ranks: Mapping[str, float], *, seed: int = 0
) -> Correlation:
    """Spearman ρ between the systems' judge scores and their human mean ranks (rank 1 = best),
    oriented so that agreement is positive (the ranks are negated), as seed 001 reports it
    (単一評価 0.82, 比較評価 0.78). Systems in both mappings; at least 3."""
    systems = [s for s in scores if s in mean_ranks]
    return correlation(
        [scores[s] for s in systems], [-mean_ranks[s] for s in systems], "spearman", seed=seed
    )


def agreement_with_humans(
    scores: Mapping[str, Mapping[str, float]],
    human_ranks: Mapping[str, Mapping[str, float]],
    *,
    seed: int = 0,
    n_resamples: int = 1000,
) -> dict[str, Any]:
    """Agreement of a judge with human rankings (seed 001's human evaluation).

    ``scores``: item → system → judge score (:func:`item_ratings`, :func:`item_win_shares`);
    ``human_ranks``: item → system → the rank humans gave (mean over annotators; 1 = best).
    On the items in both, each system's mean score and mean rank; ρ (oriented as in
    :func:`spearman_vs_human_ranks`) and its p-value over the systems; the 95 % CI resamples
    the items (seeded) and recomputes the means and ρ."""
    items = sorted(set(scores) & set(human_ranks))
    if not items:  # nothing both judged and ranked (no item axis for the arrays below)
        nan = float("nan")
        none = {"n_items": 0, "n_systems": 0, "systems": {}}
        return {"rho": nan, "p": nan, "ci_low": nan, "ci_high": nan, **none}
    systems = sorted(
        {s for i in items for s in scores[i]} & {s for i in items for s in human_ranks[i]}
    )
    judge = np.array([[scores[i].get(s, np.nan) for s in systems] for i in items], dtype=float)
    human = np.array([[human_ranks[i].get(s, np.nan) for s in systems] for i in items], dtype=float)
    judge_means, human_means = _column_means(judge), _column_means(human)
    out: dict[str, Any] = {
        "n_items": len(items),
        "n_systems": len(systems),
        "systems": {
            s: {"judge": float(j), "human_mean_rank": float(h)}
            for s, j, h in zip(systems, judge_means, human_means, strict=True)
        },
    }
    if len(systems) < 3:
        nan = float("nan")
        return {"rho": nan, "p": nan, "ci_low": nan, "ci_high": nan, **out}
    r, p = _spearman(judge_means, -human_means, p_value=True)

    def rho(sample: Sequence[int]) -> float:
        idx = np.asarray(sample)
        return _spearman(_column_means(judge[idx]), -_column_means(human[idx]))[0]

    ci = bootstrap_ci(list(range(len(items))), rho, n_resamples=n_resamples, seed=seed)
    return {"rho": r, "p": p, "ci_low": ci.low, "ci_high": ci.high, **out}


# -------------------------------------------------------------------------------- judge quality


def judge_quality(
    single: Iterable[Row] | None = None,
    pairwise: Iterable[Row] | None = None,
    *,
    seed: int = 0,
    threshold: float = FLIP_RATE_THRESHOLD,
) -> dict[str, Any]:
    """The judge-quality block of a summary: for pairwise rows the flip rate (and flag) and the
    unparsed share, for single rows (all systems' rows together) the unparsed share and the
    rating histogram."""
    out: dict[str, Any] = {}
    if pairwise is not None:
        rows = list(pairwise)
        out["flip_rate"] = flip_rate(rows, seed=seed, threshold=threshold)
        out["unparsed_pairwise"] = unparsed_share_pairwise(rows, seed=seed)
    if single is not None:
        rows = list(single)
        out["unparsed_single"] = unparsed_share_single(rows, seed=seed)
        out["rating_histogram"] = rating_histogram(rows)
    out["flagged"] = bool(out.get("flip_rate", {}).get("flagged", False))
    return out


def quality_notes(quality: Mapping[str, Any]) -> list[str]:
    """The warnings a summary should show beside the numbers of :func:`judge_quality`."""
    flip = quality.get("flip_rate")
    if not flip or not flip["flagged"]:
        return []
    return [
        f"the judge changed its pairwise verdict when the answers swapped places on "
        f"{flip['value']:.0%} of pairs (n={flip['n']}; above {flip['threshold']:.0%}): "
        "those pairs count as ties, so its win rates say little"
    ]


# ------------------------------------------------------------------------------------- helpers


def _ratio(parts: Sequence[tuple[float, float]], seed: int) -> dict[str, Any]:
    """sum(numerators) / sum(denominators) with a CI resampling the parts (items)."""
    num = np.array([p[0] for p in parts], dtype=float)
    den = np.array([p[1] for p in parts], dtype=float)

    def ratio(sample: Sequence[int]) -> float:
        idx = np.asarray(sample)
        total = den[idx].sum()
        return float(num[idx].sum() / total) if total else float("nan")

    est = bootstrap_ci(list(range(len(parts))), ratio, seed=seed).as_dict()
    return {**est, "n": int(den.sum()), "n_items": len(parts)}


def _column_means(m: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a system absent from a resample
        return np.asarray(np.nanmean(m, axis=0), dtype=float)


def _spearman(x: np.ndarray, y: np.ndarray, *, p_value: bool = False) -> tuple[float, float]:
    """Spearman ρ (and its p-value when asked) over the systems with both values; NaN when
    fewer than 3 or one side is constant; the p-value as :func:`taiwa.metrics.stats.correlation`
    gives it (none below 4 systems, the permutation p up to 12, issue 39)."""
    from scipy import stats  # imported here: scipy costs ~0.3 s at start-up

    ok = np.isfinite(x) & np.isfinite(y)
    a, b = x[ok], y[ok]
    if len(a) < 3 or np.all(a == a[0]) or np.all(b == b[0]):
        return float("nan"), float("nan")
    if p_value:
        return spearman_with_p(a, b)
    return float(np.corrcoef(stats.rankdata(a), stats.rankdata(b))[0, 1]), float("nan")
