"""DAE, DAMI, Distinct-n and transition lift (seed 002 §3.4, §4, App. C, Tables 1–2)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from taiwa.metrics import dae, dami, distinct, transition_lift
from taiwa.metrics.da_distribution import entropy_bits

ACTS = [
    "あいさつ",
    "うなずき・おうむ返し",
    "リアクション",
    "知識",
    "身の回りに関する事実",
    "意見",
    "質問",
    "命令・お願い",
    "アドバイス・注意",
    "提案",
    "その他",
]
# Seed 002 Table 1: act counts of human and system replies.
HUMAN = [366, 446, 1080, 115, 790, 3116, 132, 162, 199, 223, 79]
SYSTEM = [737, 827, 646, 83, 595, 3245, 57, 135, 252, 119, 33]


def _expand(counts: list[int]) -> list[str]:
    return [a for a, c in zip(ACTS, counts, strict=True) for _ in range(c)]


def test_dae_from_table1_counts_is_in_bits() -> None:
    # 2.52 bits for humans (Table 2 has 2.48 on another sample); natural log would give 1.75.
    assert dae(_expand(HUMAN)) == pytest.approx(2.5215, abs=1e-4)
    assert dae(_expand(SYSTEM)) == pytest.approx(2.4303, abs=1e-4)
    assert dae(_expand(HUMAN)) > dae(_expand(SYSTEM))


def test_parrot_scores_zero() -> None:
    # Seed 002 Table 2: おうむ返し gets DAE = DAMI = 0.
    acts = ["うなずき・おうむ返し"] * 50
    prevs = (ACTS * 5)[:50]
    assert dae(acts) == 0.0
    assert dami(zip(prevs, acts, strict=True)) == 0.0


def test_dae_uniform() -> None:
    assert dae(["a", "b", "c", "d"]) == pytest.approx(2.0)
    assert dae([]) == 0.0


def test_dami_deterministic_reply_equals_reply_entropy() -> None:
    pairs = [("質問", "身の回りに関する事実"), ("あいさつ", "あいさつ")] * 10
    assert dami(pairs) == pytest.approx(1.0)


def test_dami_independent_is_zero() -> None:
    pairs = [(a, b) for a in ("x", "y") for b in ("p", "q", "r")]
    assert dami(pairs) == pytest.approx(0.0, abs=1e-12)


@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("pqrs")), min_size=1, max_size=60)
)
def test_dami_is_mutual_information(pairs: list[tuple[str, str]]) -> None:
    hx = entropy_bits(Counter(a for a, _ in pairs).values())
    hy = entropy_bits(Counter(b for _, b in pairs).values())
    hxy = entropy_bits(Counter(pairs).values())
    assert dami(pairs) == pytest.approx(max(0.0, hx + hy - hxy), abs=1e-9)
    assert 0.0 <= dami(pairs) <= min(hx, hy) + 1e-9


def test_distinct_counts_japanese_tokens() -> None:
    # 今日 / は / 晴れ / です ×2 → 4 distinct of 8 unigrams.
    assert distinct(["今日は晴れです。", "今日は晴れです"], 1) == pytest.approx(0.5)
    assert distinct(["今日は晴れです。", "今日は雨です。"], 2) == pytest.approx(5 / 6)
    assert distinct([], 1) == 0.0
    with pytest.raises(ValueError):
        distinct(["a"], 0)


def test_transition_lift_by_hand() -> None:
    pairs = [("q", "a"), ("q", "a"), ("q", "b"), ("s", "b")]
    tl = transition_lift(pairs, ["q", "s", "a", "b"])
    # P(a|q)=2/3, P(a)=1/2 → 4/3 ; P(b|s)=1, P(b)=1/2 → 2
    assert tl.lift[0, 2] == pytest.approx(4 / 3)
    assert tl.lift[1, 3] == pytest.approx(2.0)
    assert math.isnan(tl.lift[2, 2])  # "a" never precedes anything
    assert np.isnan(tl.lift[:, 0]).all()  # "q" never follows
    with pytest.raises(ValueError, match="outside"):
        transition_lift([("q", "zzz")], ["q"])
