"""λ of seed 003 §2.2 eq. (1): hand-computed 2×2 tables, scipy's G-test, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import chi2_contingency

from taiwa.resources import llr, llr_array


def g_test(g: int, h_v: int, h_w: int, F: int) -> float:
    """scipy's G statistic of the same 2×2 table (no continuity correction)."""
    table = np.array([[g, h_v - g], [h_w - g, F - h_v - h_w + g]])
    return float(chi2_contingency(table, lambda_="log-likelihood", correction=False)[0])


def test_hand_computed_table() -> None:
    # g=10, h(v)=20, h(w)=30, F=100: f11=10 f12=10 f21=20 f22=60; rows 20/80, columns 30/70.
    expected = 2 * (
        10 * (math.log(10 / 100) - math.log(20 * 30 / 100**2))
        + 10 * (math.log(10 / 100) - math.log(20 * 70 / 100**2))
        + 20 * (math.log(20 / 100) - math.log(80 * 30 / 100**2))
        + 60 * (math.log(60 / 100) - math.log(80 * 70 / 100**2))
    )
    assert llr(10, 20, 30, 100) == pytest.approx(expected, rel=1e-12)
    assert llr(10, 20, 30, 100) == pytest.approx(g_test(10, 20, 30, 100), rel=1e-12)
    # 2 (10·0.51083 − 10·0.33647 − 20·0.18232 + 60·0.06899) by hand
    assert expected == pytest.approx(4.4734, abs=1e-4)


def test_zero_cells_contribute_nothing() -> None:
    # Never together: f11=0 f12=5 f21=5 f22=0 -> 2 (5 log(5*10/25) + 5 log(5*10/25)) = 20 log 2
    assert llr(0, 5, 5, 10) == pytest.approx(20 * math.log(2), rel=1e-12)
    # Always together: f11=5 f12=0 f21=0 f22=5 -> the same value
    assert llr(5, 5, 5, 10) == pytest.approx(20 * math.log(2), rel=1e-12)
    for table in ((0, 5, 5, 10), (5, 5, 5, 10), (3, 3, 7, 12), (0, 4, 6, 10)):
        assert llr(*table) == pytest.approx(g_test(*table), rel=1e-12)


def test_one_sided_zero_row() -> None:
    # A word in every sentence: row 2 is empty, every term is 0 or log 1.
    assert llr(4, 10, 4, 10) == 0.0
    assert llr(0, 0, 0, 0) == 0.0


def test_independence_gives_zero_and_strength_grows() -> None:
    assert llr(2, 4, 5, 10) == pytest.approx(0.0, abs=1e-12)  # g F = h_v h_w
    weak, strong = llr(30, 100, 100, 1000), llr(90, 100, 100, 1000)
    assert 0 < weak < strong


def test_web_scale_numbers() -> None:
    # F = 2e10 sentences (the seed's corpus): no overflow, agrees with scipy.
    table = (2_000_000, 50_000_000, 8_000_000, 20_000_000_000)
    assert llr(*table) == pytest.approx(g_test(*table), rel=1e-9)
    assert llr(*table) > 10_000


@given(
    st.integers(1, 10_000),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
)
def test_matches_scipy_g_test(a: int, b: int, c: int, d: int) -> None:
    # Any 2×2 table with non-zero margins (scipy refuses zero expected counts).
    if min(a + b, c + d, a + c, b + d) == 0:
        return
    g, h_v, h_w, n = a, a + b, a + c, a + b + c + d
    assert llr(g, h_v, h_w, n) == pytest.approx(g_test(g, h_v, h_w, n), rel=1e-9, abs=1e-9)
    assert llr_array([g], [h_v], [h_w], [n])[0] == pytest.approx(llr(g, h_v, h_w, n), rel=1e-12)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 5, 5, 10), "g must be"),
        ((1, -5, 5, 10), "h_v must be"),
        ((1, 5, 5, float("nan")), "F must be"),
        ((6, 5, 9, 20), "min"),
        ((1, 8, 8, 10), "<= F"),
    ],
)
def test_validation(args: tuple[float, float, float, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        llr(*args)
    with pytest.raises(ValueError):
        llr_array(*args)


def test_llr_array_broadcasts_and_agrees() -> None:
    g = np.array([0, 5, 10, 3, 2])
    h_v = np.array([5, 5, 20, 3, 4])
    h_w = np.array([5, 5, 30, 7, 5])
    out = llr_array(g, h_v, h_w, 100)
    assert out.dtype == np.float64 and out.shape == (5,)
    for i in range(5):
        assert out[i] == pytest.approx(llr(g[i], h_v[i], h_w[i], 100), rel=1e-12)
    assert llr_array(5, 5, 5, 10) == pytest.approx(20 * math.log(2))
