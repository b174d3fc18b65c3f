"""Paired comparisons (issue 27): CI coverage and family-wise error on synthetic data with a
known difference or none, exact small cases, Holm, items one side lacks, the summary block and
its table."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from rich.console import Console
from scipy.stats import t as stats_t

from taiwa.display.comparison_table import comparisons_markdown, comparisons_table
from taiwa.metrics.comparisons import ComparedMetric, build_comparisons, collect, pairs_of
from taiwa.metrics.da_distribution import dae, dami
from taiwa.metrics.detectable import discordant_mdd
from taiwa.metrics.imputed import IMPUTED
from taiwa.metrics.paired import (
    ActEntropy,
    ActMutualInformation,
    align,
    difference_tests,
    holm,
    minimum_detectable,
    paired_difference,
    paired_statistic_difference,
)
from taiwa.metrics.sign_flip import sign_flips
from taiwa.metrics.stats import bootstrap_ci

ACTS = np.array(["質問", "応答", "同意", "提案"])


def entropy_bits(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def paired_acts(rng: np.random.Generator, n: int, pa: np.ndarray, q: np.ndarray, keep: float):
    """System A's acts drawn from ``pa``; B copies A's act with probability ``keep`` (paired
    items), else draws from ``q``: B's act distribution is ``keep·pa + (1 − keep)·q``."""
    a = rng.choice(len(pa), size=n, p=pa)
    b = np.where(rng.random(n) < keep, a, rng.choice(len(q), size=n, p=q))
    return ACTS[a].tolist(), ACTS[b].tolist()


# ---------------------------------------------------------------- small exact cases


def test_sign_flip_exact_on_a_hand_computable_example() -> None:
    # d = 1, 2, 3: the 8 sign patterns sum to ±6, ±4, ±2, 0, 0; |T| ≥ 6 for 2 of 8.
    assert sign_flips(np.array([[1.0], [2.0], [3.0]])).p[0] == pytest.approx(2 / 8)
    # d = 1, 1, 1, 1, −1: |T| = 3 is reached by T ∈ {±3, ±5}: 2 · (1 + 5) = 12 of 32 patterns
    flips = sign_flips(np.array([[1.0], [1.0], [1.0], [1.0], [-1.0]]))
    assert flips.p[0] == pytest.approx(12 / 32) and flips.test.startswith("sign-flip, exact")
    # the same through paired_difference, from 6 items (the floor): d = 1 … 6, |T| = 21 is
    # reached only by the observed pattern and its mirror
    r = paired_difference([2.0, 4.0, 6.0, 8.0, 10.0, 12.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert r.p == pytest.approx(2 / 64) and r.difference.value == pytest.approx(3.5)
    assert r.test.startswith("sign-flip, exact") and r.no_test is None
    assert paired_difference([1.0] * 6, [1.0] * 6).p == 1.0


def test_below_the_floor_there_is_no_test_and_it_says_why() -> None:
    """5 measured items: even all five for one side give an exact p of 2/32 = 0.0625, so no
    test runs; the difference is still shown, with why there is no test."""
    r = paired_difference([3.0, 4.0, 5.0, 1.0, 2.0], [2.0, 2.0, 2.0, 0.0, 0.0])
    assert math.isnan(r.p) and math.isnan(r.difference.low) and math.isnan(r.mdd)
    assert r.difference.value == pytest.approx(1.8) and r.difference.n == 5
    assert r.no_test is not None and "below the floor of 6" in r.no_test
    none = paired_difference({"a": IMPUTED, "b": 1.0}, {"a": 2.0, "b": None})
    assert (
        none.no_test.startswith("no item measured on both sides") and "1 left out" in none.no_test
    )


def test_holm_on_a_textbook_example() -> None:
    # sorted 0.005, 0.01, 0.03, 0.04 × 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 → monotone 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    out = holm([0.2, float("nan"), 0.6])  # NaN is no test: m = 2
    assert out[0] == pytest.approx(0.4) and math.isnan(out[1]) and out[2] == pytest.approx(0.6)
    assert holm([0.9, 0.8]) == [1.0, 1.0]


def test_items_only_one_side_has_are_counted_and_left_out() -> None:
    a = {"d1": 0.5, "d2": 0.7, "d3": None, "d4": 0.1, "d5": float("nan")}
    b = {"d2": 0.6, "d4": 0.3, "d5": 0.2, "d6": 0.9, "d1": 0.4}
    ids, _, xb, counts = align(a, b)
    assert ids == ["d1", "d2", "d4"] and xb == [0.4, 0.6, 0.3]
    assert (counts.shared, counts.only_a, counts.only_b) == (3, 0, 2)
    r = paired_difference(a, b)
    assert r.difference.n == 3 and r.difference.value == pytest.approx((0.1 + 0.1 - 0.2) / 3)
    assert (r.counts.only_a, r.counts.only_b) == (0, 2)
    assert paired_difference([1.0, None, 2.0], [1.5, 1.0, None]).counts.shared == 1
    with pytest.raises(ValueError):
        align([1.0, 2.0], [1.0])


def test_interval_inverts_the_sign_flip_test_and_columns_are_independent() -> None:
    """The interval is every δ the sign-flip test of d − δ does not reject at 5 %: just inside
    its ends the test's p is at least 0.05, just outside below it; each column gets what it
    would alone; the MDD is the t-based one for a family of one."""
    rng = np.random.default_rng(5)
    for n in (12, 40):  # exact enumeration, and random patterns
        d = rng.normal(0.1, 1.0, size=(n, 3))
        together = difference_tests(d, seed=3, n_permutations=2000)
        for j in range(3):
            est = together[j].difference
            assert est.low < est.value < est.high
            for end, inward in ((est.low, 1e-3), (est.high, -1e-3)):
                inside = d[:, [j]] - (end + inward)
                outside = d[:, [j]] - (end - inward)
                assert sign_flips(inside, 2000, seed=3).p[0] >= 0.05
                assert sign_flips(outside, 2000, seed=3).p[0] < 0.05
            alone = difference_tests(d[:, [j]], seed=3, n_permutations=2000)[0]
            assert alone.p == together[j].p
            assert (alone.difference.low, alone.difference.high) == pytest.approx(
                (est.low, est.high),
                abs=1e-6,  # random patterns summed in float32
            )
            sd = float(np.std(d[:, j], ddof=1))
            t = stats_t.ppf(0.975, n - 1) + stats_t.ppf(0.8, n - 1)
            assert together[j].mdd == pytest.approx(t * sd / math.sqrt(n), rel=1e-6)
    assert minimum_detectable(1.0) == pytest.approx(1.959964 + 0.841621, rel=1e-6)


def test_interval_and_p_agree_on_every_small_zero_one_table() -> None:
    """0/1 items: for every split of n = 6 … 30 items into b for A, c for B and ties, the
    interval holds 0 exactly when McNemar's exact p (the sign-flip p) is at least 0.05; the
    8-item case of issue 39 (A right on all, B on 4) is not significant and its interval
    holds 0."""
    for n in range(6, 31, 3):
        splits = [(b, c) for b in range(n + 1) for c in range(n - b + 1)]
        d = np.zeros((n, len(splits)))
        for j, (b, c) in enumerate(splits):
            d[:b, j], d[b : b + c, j] = 1.0, -1.0
        for (b, c), r in zip(splits, difference_tests(d, n_permutations=500), strict=True):
            assert (r.p >= 0.05) == (r.difference.low <= 0 <= r.difference.high), (n, b, c)
    issue = paired_difference([1.0] * 8, [1.0] * 4 + [0.0] * 4)
    assert issue.p == pytest.approx(0.125) and issue.difference.low <= 0 < issue.difference.high
    assert issue.interval.startswith("Tango") and issue.small_n


def test_item_means_are_marked_below_30_items_and_0_1_items_below_10() -> None:
    """The audit: a difference of item means as skewed as an exponential's is covered only
    0.90–0.92 below 30 items, 0/1 differences 0.93 or more from 10 (docs/statistics.md)."""
    rng = np.random.default_rng(3)
    for n, marked in ((12, True), (29, True), (30, False)):
        a = rng.normal(size=n).tolist()
        assert paired_difference(a, [x - 0.2 for x in a]).small_n is marked, n
    right = [1.0] * 12
    assert not paired_difference(right, [1.0] * 6 + [0.0] * 6).small_n


class PlainEntropy:
    """DAE without its bias correction, vectorised (what ActEntropy was before issue 39)."""

    def __call__(self, records: Sequence[object]) -> float:
        return dae(records)

    def prepare(self, records: Sequence[object]) -> object:
        return ActEntropy().prepare(records)

    def resampled(self, prepared: object, idx: np.ndarray) -> np.ndarray:
        return ActEntropy().resampled(prepared, idx)  # type: ignore[arg-type]


def test_statistic_without_a_vectorised_form_gives_the_same_numbers() -> None:
    rng = np.random.default_rng(2)
    a, b = paired_acts(rng, 60, np.array([0.4, 0.3, 0.2, 0.1]), np.full(4, 0.25), 0.5)
    fast = paired_statistic_difference(a, b, PlainEntropy(), seed=4, n_resamples=300)
    slow = paired_statistic_difference(a, b, dae, seed=4, n_resamples=300)
    assert fast.difference.value == pytest.approx(dae(a) - dae(b))
    assert (fast.difference.low, fast.difference.high, fast.p) == pytest.approx(
        (slow.difference.low, slow.difference.high, slow.p)
    )
    # the bias-corrected DAE: its point is the jackknife-corrected difference
    corrected = paired_statistic_difference(a, b, ActEntropy(), seed=4, n_resamples=300)
    assert corrected.difference.value != pytest.approx(fast.difference.value)
    assert "bias-corrected" in corrected.interval
    # DAMI over (previous act, act) pairs: B answers a question with an answer more often
    prev = ACTS[np.random.default_rng(3).integers(0, 4, size=60)].tolist()
    pairs_a = list(zip(prev, a, strict=True))
    mi = ActMutualInformation()
    whole = np.arange(60)[None]
    assert mi(pairs_a) == pytest.approx(dami(pairs_a))
    assert mi.resampled(mi.prepare(pairs_a), whole)[0] == pytest.approx(dami(pairs_a))


def test_declaring_comparisons_imports_no_numpy() -> None:
    import subprocess
    import sys

    code = "import sys, taiwa.metrics.comparisons; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- coverage, error, power


def test_ci_coverage_of_an_item_mean_difference() -> None:
    """400 independent datasets (the columns), n = 100 items, true difference 0.3: the 95 %
    CI covers it in about 95 % of them."""
    rng = np.random.default_rng(11)
    n, draws, delta = 100, 400, 0.3
    item = rng.normal(0, 2.0, size=(n, draws))  # item difficulty shared by both systems
    a = item + delta + rng.normal(0, 1.0, size=(n, draws))
    b = item + rng.exponential(1.0, size=(n, draws)) - 1.0  # skewed noise, mean 0
    res = difference_tests(a - b, seed=0, n_permutations=200)
    covered = np.mean([r.difference.low <= delta <= r.difference.high for r in res])
    assert 0.92 <= covered <= 0.98, covered
    # pairing matters: the paired CI is much narrower than the per-system ones
    width = np.mean([r.difference.high - r.difference.low for r in res[:20]])
    single = bootstrap_ci(a[:, 0].tolist())
    assert width < 0.7 * (single.high - single.low)


def test_the_bootstrap_p_of_a_few_items_is_not_below_what_an_exact_test_allows() -> None:
    """6 items, a ahead on every one (a win rate, say): the percentile bootstrap alone gives
    p = 2/(B+1) (about 0.001, 'significant'); swapping each item's pair is one of 2^6
    arrangements, so no test can say less than 2/64. From about 20 items on the floor is far
    below the bootstrap's p and changes nothing. Below 6 items there is no test."""

    def share(records: Sequence[object]) -> float:
        return sum(1 for r in records if r == "win") / len(records)

    a = {f"i{k}": "win" for k in range(6)}
    b = {f"i{k}": "loss" for k in range(6)}
    r = paired_statistic_difference(a, b, share, seed=0, n_resamples=2000)
    assert r.p == pytest.approx(2 / 2**6)
    assert "floor" in r.test
    four = paired_statistic_difference(dict(list(a.items())[:4]), b, share)
    assert math.isnan(four.p) and four.no_test is not None and four.difference.value == 1.0
    a40 = {f"i{k}": "win" if k % 4 else "loss" for k in range(40)}
    b40 = {f"i{k}": "loss" if k % 4 else "win" for k in range(40)}
    r40 = paired_statistic_difference(a40, b40, share, seed=0, n_resamples=2000)
    assert r40.p < 0.01 and "floor" not in r40.test


def test_ci_coverage_of_a_dae_difference() -> None:
    """DAE (act entropy) of two systems over the same 300 items, B partly copying A's act:
    the paired bootstrap CI covers the true entropy difference in about 95 % of 400 draws."""
    rng = np.random.default_rng(12)
    pa, q, keep = np.array([0.55, 0.25, 0.15, 0.05]), np.full(4, 0.25), 0.6
    truth = entropy_bits(pa) - entropy_bits(keep * pa + (1 - keep) * q)
    hits = 0
    for draw in range(400):
        a, b = paired_acts(rng, 300, pa, q, keep)
        r = paired_statistic_difference(a, b, ActEntropy(), seed=draw, n_resamples=1000)
        hits += r.difference.low <= truth <= r.difference.high
    assert 0.92 <= hits / 400 <= 0.98, hits / 400


def _null_values(rng: np.random.Generator, n: int) -> dict[str, dict[str, dict[str, object]]]:
    """Three systems with the same distribution of scores and acts on shared items."""
    item = rng.normal(0, 1.0, size=n)
    out: dict[str, dict[str, dict[str, object]]] = {}
    for s in ("甲", "乙", "丙"):
        score = item + rng.normal(0, 1.0, size=n)
        acts = ACTS[rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1])]
        out[s] = {
            "score": {f"i{k}": float(score[k]) for k in range(n)},
            "act": {f"i{k}": str(acts[k]) for k in range(n)},
        }
    return out


METRICS = (
    ComparedMetric("score", "score", "higher", "score", "score"),
    ComparedMetric("act", "DAE", "higher", "tag", "act", "statistic", ActEntropy()),
)


def test_holm_corrected_family_wise_error_under_the_null() -> None:
    """3 systems × 2 metrics (an item mean and DAE), no true difference, 300 datasets: the
    share with any Holm-corrected p < 0.05 is at most 5 %."""
    rng = np.random.default_rng(13)
    false_alarms = 0
    for draw in range(300):
        block = build_comparisons(
            _null_values(rng, 120), METRICS, seed=draw, n_resamples=1000, n_permutations=1000
        )
        assert block["family"] == 6
        false_alarms += any(r["significant"] for r in block["rows"])
    assert false_alarms / 300 <= 0.05, false_alarms


def test_a_large_true_difference_is_detected() -> None:
    rng = np.random.default_rng(14)
    values = _null_values(rng, 150)
    values["甲"]["score"] = {k: v + 0.8 for k, v in values["甲"]["score"].items()}  # type: ignore[operator]
    values["丙"]["act"] = {k: "応答" for k in values["丙"]["act"]}  # one act only: DAE 0
    block = build_comparisons(values, METRICS)
    by = {(r["a"], r["b"], r["metric"]): r for r in block["rows"]}
    assert by["甲", "乙", "score"]["significant"] and by["甲", "乙", "score"]["better"] == "甲"
    assert by["甲", "丙", "score"]["better"] == "甲"
    assert not by["乙", "丙", "score"]["significant"]
    assert by["乙", "丙", "act"]["better"] == "乙" and by["甲", "丙", "act"]["better"] == "甲"
    assert by["甲", "乙", "score"]["mdd"] < 0.8


# ---------------------------------------------------------------- the block and its table


def test_block_baseline_direction_and_left_out_items() -> None:
    wed = ComparedMetric("wed", "WED", "lower", "score", "wed.total")
    rows = {
        "human": [{"id": f"d{k}", "wed": {"total": 0.1 + 0.01 * (k % 3)}} for k in range(30)],
        "parrot": [{"id": f"d{k}", "wed": {"total": 0.6 + 0.02 * (k % 5)}} for k in range(30)],
        "llm": [{"id": f"d{k}", "wed": {"total": 0.3 + 0.01 * (k % 7)}} for k in range(28)]
        + [{"id": "d28", "error": "timeout"}, {"id": "d29", "wed": {}}],
    }
    values = collect([wed], list(rows), lambda stage, system: rows[system])
    assert len(values["llm"]["wed"]) == 28
    block = build_comparisons(values, [wed], baseline="human")
    assert [(r["a"], r["b"]) for r in block["rows"]] == [("parrot", "human"), ("llm", "human")]
    parrot, llm = block["rows"]
    assert parrot["difference"]["value"] > 0 and parrot["better"] == "human"
    assert parrot["significant"] and parrot["p_holm"] <= 2 * parrot["p"]
    assert (llm["shared"], llm["only_a"], llm["only_b"]) == (28, 0, 2)
    with pytest.raises(ValueError, match="--baseline"):
        pairs_of(["a", "b"], "c")

    console = Console(width=80, record=True, color_system=None)
    console.print(comparisons_table(block))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "parrot − human" in text and "0/2" in text and "WED ↓" in text
    md = comparisons_markdown(block)
    assert md.count("\n| ") == 2 and "| parrot − **human** |" in md.splitlines()[2]


def test_long_names_still_fit_80_columns() -> None:
    rng = np.random.default_rng(3)
    values = _null_values(rng, 40)
    values = {f"openai:very-long-model-name-{s}-2026-11-25": v for s, v in values.items()}
    block = build_comparisons(values, METRICS, n_resamples=200)
    console = Console(width=80, record=True, color_system=None)
    console.print(comparisons_table(block))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert len(block["rows"]) == 6


def test_no_item_differing_gives_no_minimum_detectable_difference() -> None:
    """Two systems equal on every item (both wrong throughout): no item differs, and an MDD
    from a spread estimated as 0 would read "this n detects any difference"; the MDD is NaN
    (shown "–") instead. With differences, 0/1 items get McNemar's exact MDD."""
    same = paired_difference([0.0] * 8, [0.0] * 8)
    assert math.isnan(same.mdd) and same.sd == 0.0
    assert math.isnan(minimum_detectable(0.0)) and math.isnan(minimum_detectable(float("nan")))
    moved = paired_difference([1.0] * 30 + [0.0] * 30, [0.0] * 20 + [1.0] * 20 + [0.0] * 20)
    assert moved.discordant == 30  # 20 items for A, 10 for B
    assert moved.mdd == pytest.approx(discordant_mdd(60, 30), rel=1e-9) and moved.mdd < 30 / 60
