"""Paired comparisons (issue 27): CI coverage and family-wise error on synthetic data with a
known difference or none, exact small cases, Holm, items one side lacks, the summary block and
its table."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from rich.console import Console

from taiwa.display.comparison_table import comparisons_markdown, comparisons_table
from taiwa.metrics.comparisons import ComparedMetric, build_comparisons, collect, pairs_of
from taiwa.metrics.da_distribution import dae, dami
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
    r = paired_difference([3.0, 4.0, 5.0], [2.0, 2.0, 2.0])
    assert r.p == pytest.approx(2 / 8)
    assert r.difference.value == pytest.approx(2.0)
    assert r.test.startswith("sign-flip, exact")
    # d = 1, 1, 1, 1, −1: |T| = 3 is reached by T ∈ {±3, ±5}: 2 · (1 + 5) = 12 of 32 patterns
    r = paired_difference([1, 1, 1, 1, 0], [0, 0, 0, 0, 1])
    assert r.p == pytest.approx(12 / 32)
    assert paired_difference([1.0, 2.0], [1.0, 2.0]).p == 1.0


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


def test_ci_is_bootstrap_ci_of_the_differences_and_columns_are_independent() -> None:
    rng = np.random.default_rng(5)
    for n in (40, 2500):  # bootstrap_ci's cached draw, and its blocked one (n · 2000 > 4M)
        d = rng.normal(0.1, 1.0, size=(n, 3))
        together = difference_tests(d, seed=3, n_permutations=500)
        for j in range(3):
            ref = bootstrap_ci(d[:, j].tolist(), seed=3)
            est = together[j].difference
            assert (est.value, est.low, est.high) == pytest.approx((ref.value, ref.low, ref.high))
            alone = difference_tests(d[:, [j]], seed=3, n_permutations=500)[0]
            assert alone.p == together[j].p
            assert (alone.difference.low, alone.difference.high) == pytest.approx(
                (est.low, est.high)
            )
            sd = float(np.std(d[:, j], ddof=1))
            assert together[j].mdd == pytest.approx(2.8016 * sd / math.sqrt(n), rel=1e-4)
    assert minimum_detectable(1.0) == pytest.approx(1.959964 + 0.841621, rel=1e-6)


def test_statistic_without_a_vectorised_form_gives_the_same_numbers() -> None:
    rng = np.random.default_rng(2)
    a, b = paired_acts(rng, 60, np.array([0.4, 0.3, 0.2, 0.1]), np.full(4, 0.25), 0.5)
    fast = paired_statistic_difference(a, b, ActEntropy(), seed=4, n_resamples=300)
    slow = paired_statistic_difference(a, b, dae, seed=4, n_resamples=300)
    assert fast.difference.value == pytest.approx(dae(a) - dae(b))
    assert (fast.difference.low, fast.difference.high, fast.p) == pytest.approx(
        (slow.difference.low, slow.difference.high, slow.p)
    )
    # DAMI over (previous act, act) pairs: B answers a question with an answer more often
    prev = ACTS[np.random.default_rng(3).integers(0, 4, size=60)].tolist()
    pairs_a, pairs_b = list(zip(prev, a, strict=True)), list(zip(prev, b, strict=True))
    fast = paired_statistic_difference(pairs_a, pairs_b, ActMutualInformation(), n_resamples=200)
    slow = paired_statistic_difference(pairs_a, pairs_b, dami, n_resamples=200)
    assert fast.difference.value == pytest.approx(dami(pairs_a) - dami(pairs_b))
    assert (fast.difference.low, fast.difference.high) == pytest.approx(
        (slow.difference.low, slow.difference.high)
    )


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
    """4 items, a ahead on every one (a win rate, say): the percentile bootstrap alone gives
    p = 2/(B+1) (about 0.001, 'significant'); swapping each item's pair is one of 2^4
    arrangements, so no test can say less than 2/16. From about 20 items on the floor is far
    below the bootstrap's p and changes nothing."""

    def share(records: Sequence[object]) -> float:
        return sum(1 for r in records if r == "win") / len(records)

    a = {f"i{k}": "win" for k in range(4)}
    b = {f"i{k}": "loss" for k in range(4)}
    r = paired_statistic_difference(a, b, share, seed=0, n_resamples=2000)
    assert r.p == pytest.approx(2 / 2**4)
    assert "floor" in r.test
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
    """Two systems equal on every item (both wrong throughout): the SD of the differences is
    estimated as 0, and 2.80 · 0 / √n = 0 would read "this n detects any difference"; the MDD
    is NaN (shown "–") instead. With differences it is the usual 2.80 · sd / √n."""
    same = paired_difference([0.0] * 3, [0.0] * 3)
    assert math.isnan(same.mdd) and same.sd == 0.0
    assert math.isnan(minimum_detectable(0.0)) and math.isnan(minimum_detectable(float("nan")))
    moved = paired_difference([1.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.0])
    assert moved.mdd == pytest.approx(2.8016 * moved.sd / 2, rel=1e-4)
