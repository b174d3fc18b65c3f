"""The closed-form tails of :mod:`taiwa.metrics.exact_tail` equal scipy's, and an intent run
(whose answer-distribution flags use them) never imports ``scipy.stats`` (issue 29: half a
second of the whole command)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy import stats

from cli import after_a_run
from taiwa.metrics.exact_tail import binom_sf, chi2_sf


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(b, 1e-250) or abs(a - b) < 1e-280


@pytest.mark.parametrize("n", [1, 2, 5, 30, 300, 5000])
@pytest.mark.parametrize("p", [0.0, 0.01, 0.25, 0.5, 0.9, 1.0])
def test_binom_sf_is_scipys(n: int, p: float) -> None:
    for k in sorted({-1, 0, 1, n // 4, n // 2, n - 1, n, n + 1}):
        assert _close(binom_sf(k, n, p), float(stats.binom.sf(k, n, p))), (k, n, p)


@pytest.mark.parametrize("df", range(1, 12))
def test_chi2_sf_is_scipys(df: int) -> None:
    for x in (0.0, 1e-6, 0.1, 1.0, 2.5, 5.0, 10.0, 30.0, 100.0, 500.0):
        assert _close(chi2_sf(x, df), float(stats.chi2.sf(x, df))), (x, df)
    with pytest.raises(ValueError, match="degrees of freedom"):
        chi2_sf(1.0, 0)


def test_the_flags_statistic_is_scipys_chisquare() -> None:
    from taiwa.metrics.answer_flags import answer_distribution

    choices = [0] * 40 + [1] * 5 + [2] * 3 + [None] * 2
    golds = [0, 1, 2, 3] * 12 + [0, 1]
    dist = answer_distribution(choices, golds, 4)
    used = [i for i in range(4) if dist["gold"][i]]
    within = sum(dist["answers"][i] for i in used)
    expected = [dist["gold"][i] / len(golds) * within for i in used]
    ref = stats.chisquare([dist["answers"][i] for i in used], expected)
    assert dist["chi2"]["statistic"] == pytest.approx(float(ref.statistic), rel=1e-12)
    assert dist["chi2"]["p"] == pytest.approx(float(ref.pvalue), rel=1e-9)
    top = dist["top"]
    assert top["p"] == pytest.approx(
        float(stats.binom.sf(top["count"] - 1, 48, top["gold_share"])), rel=1e-9
    )


def test_an_intent_run_imports_no_scipy_stats(tmp_path: Path) -> None:
    imported = after_a_run(
        ["intent", "-m", "builtin:fixed", "-m", "builtin:random"],
        tmp_path,
        "",
        "sorted(m for m in sys.modules if m.startswith('scipy.stats'))",
    )
    assert imported == []
