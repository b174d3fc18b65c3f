"""Bootstrap CIs, correlations, vote aggregation (seed 002 §3.3, seed 004 §2.3), P/R/F1."""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import pytest
from scipy import stats as sps

from taiwa.metrics import dae
from taiwa.metrics.stats import bootstrap_ci, correlation, majority_vote, precision_recall_f1


def test_bootstrap_is_seeded_and_covers_the_mean() -> None:
    values = list(np.random.default_rng(1).normal(0.5, 0.2, 200))
    a, b = bootstrap_ci(values, seed=3), bootstrap_ci(values, seed=3)
    assert a == b
    assert a.n == 200
    assert a.low < a.value < a.high
    assert a.value == pytest.approx(float(np.mean(values)))
    # ~ mean ± 1.96 σ/√n
    half = 1.96 * np.std(values, ddof=1) / math.sqrt(200)
    assert (a.high - a.low) / 2 == pytest.approx(half, rel=0.15)


def test_bootstrap_other_statistic_and_edge_cases() -> None:
    acts = ["意見"] * 30 + ["質問"] * 10
    est = bootstrap_ci(acts, dae, n_resamples=300)
    assert est.value == pytest.approx(dae(acts))
    assert est.low <= est.value <= est.high
    assert bootstrap_ci([0.3]).low == 0.3
    assert math.isnan(bootstrap_ci([]).value) and bootstrap_ci([]).n == 0


@pytest.mark.parametrize("method", ["spearman", "pearson", "kendall"])
def test_correlation_matches_scipy(method: str) -> None:
    x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    y = [2.0, 1.0, 4.0, 3.0, 7.0, 5.0, 6.0]
    ref = {"spearman": sps.spearmanr, "pearson": sps.pearsonr, "kendall": sps.kendalltau}[method](
        x, y
    )
    c = correlation(x, y, method)  # type: ignore[arg-type]
    if method == "spearman":  # 7 pairs: the exact permutation p, not the t approximation
        rx, ry = sps.rankdata(x), sps.rankdata(y)  # no ties: ρ is Pearson's r of the ranks
        rhos = [np.corrcoef(rx, ry[list(order)])[0, 1] for order in permutations(range(7))]
        exact = sum(abs(r) >= abs(ref[0]) - 1e-12 for r in rhos) / len(rhos)
        ref = (ref[0], exact)
    assert (c.r, c.p, c.n) == pytest.approx((ref[0], ref[1], 7))
    assert c.low <= c.r <= c.high


def test_a_rank_correlation_of_a_few_pairs_has_an_exact_p_or_none() -> None:
    """ρ = 1 over 3 pairs: scipy's t approximation says p = 0, but 2 of the 3! = 6 orders are
    as extreme, so no p is given below 4 pairs; over 4, the exact p is 2/24 (issue 39)."""
    three = correlation([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    assert three.r == pytest.approx(1.0) and math.isnan(three.p)
    assert math.isnan(correlation([1.0, 2.0, 3.0], [3.0, 1.0, 2.0], "kendall").p)
    four = correlation([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0])
    assert four.p == pytest.approx(2 / 24)
    ten = correlation(list(range(10)), [0, 2, 1, 3, 5, 4, 6, 8, 7, 9], seed=1)
    assert 0 < ten.p < 0.001


def test_correlation_needs_three_pairs_and_varying_input() -> None:
    with pytest.raises(ValueError, match="at least 3"):
        correlation([1.0, 2.0], [1.0, 2.0])
    assert math.isnan(correlation([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]).r)


def test_majority_vote_seed002_rule() -> None:
    # 5 annotators, each may select several acts; >= 2 votes and the most votes wins.
    ballots = [{"意見", "質問"}, {"意見"}, {"リアクション"}, {"意見", "リアクション"}, set()]
    assert majority_vote(ballots, min_votes=2) == "意見"
    # Nothing reaches 2 votes → no label.
    assert majority_vote([{"a"}, {"b"}, {"c"}, {"d"}, {"e"}], min_votes=2) is None
    # A selection counts once per annotator.
    assert majority_vote([["a", "a", "a"], ["b"], ["b"]], min_votes=2) == "b"


def test_majority_vote_ties_are_seeded() -> None:
    ballots = [{"a"}, {"a"}, {"b"}, {"b"}, {"c"}]
    picks = {majority_vote(ballots, seed=s) for s in range(40)}
    assert picks == {"a", "b"}
    assert majority_vote(ballots, seed=7) == majority_vote(ballots, seed=7)
    assert majority_vote(ballots, ties="exclude") is None


def test_majority_vote_seed004_rule() -> None:
    # 3 annotators: adopted when 2 agree, excluded when all differ.
    assert majority_vote(["B", "B", "C"], min_votes=2, ties="exclude") == "B"
    assert majority_vote(["A", "B", "C"], min_votes=2, ties="exclude") is None
    assert majority_vote([], min_votes=2) is None


def test_precision_recall_f1() -> None:
    gold = ["a", "a", "b", "b", "c"]
    pred = ["a", "b", "b", "b", "a"]
    s = precision_recall_f1(gold, pred)
    assert s["a"].precision == pytest.approx(0.5) and s["a"].recall == pytest.approx(0.5)
    assert s["b"].precision == pytest.approx(2 / 3) and s["b"].recall == pytest.approx(1.0)
    assert s["b"].f1 == pytest.approx(0.8)
    assert s["c"] == type(s["c"])(0.0, 0.0, 0.0, 1)


@pytest.mark.parametrize("n", [1_999, 2_001, 10_000])
def test_a_large_mean_is_resampled_as_one_sequential_draw(n: int) -> None:
    """Above 2,000 items the indices are drawn in blocks, the next block on a second thread
    while one is averaged: the interval is the one a single sequential draw of the seed gives
    (2,000 resamples x n indices), whatever the block size or the threads."""
    values = (np.random.default_rng(5).random(n) < 0.3).astype(float)
    rng = np.random.default_rng(11)
    means = np.array([values[rng.integers(0, n, size=n)].mean() for _ in range(2000)])
    low, high = np.quantile(means, [0.025, 0.975])
    got = bootstrap_ci(list(values), seed=11)
    assert (got.value, got.low, got.high, got.n) == (values.mean(), low, high, n)
    again = bootstrap_ci(list(values), seed=11)  # remembered: the same, without a new draw
    assert (again.low, again.high) == (got.low, got.high)
