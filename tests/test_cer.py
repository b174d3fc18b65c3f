"""Character error rate (metrics/cer.py): normalisation, Levenshtein distance, rates."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taiwa.metrics.cer import CharErrors, cer, cer_normalise, char_errors, edit_distance


def test_normalise_drops_punctuation_and_spaces_and_folds_width() -> None:
    assert cer_normalise("明日、７時に 起こして！") == "明日7時に起こして"
    assert cer_normalise("「タイマー」止めて。\n") == "タイマー止めて"
    assert cer_normalise("ｶﾀｶﾅ") == "カタカナ"


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [
        ("", "", 0),
        ("abc", "", 3),
        ("", "ab", 2),
        ("kitten", "sitting", 3),
        ("タイマー", "タイマ", 1),
    ],
)
def test_edit_distance(a: str, b: str, d: int) -> None:
    assert edit_distance(a, b) == d == edit_distance(b, a)


def test_cer_counts_substitutions_deletions_and_insertions() -> None:
    assert cer("8分のタイマーお願い。", "8分のタイマーお願い") == 0.0
    # 八 for 8: one substitution over 10 characters
    assert cer("八分のタイマーお願い", "8分のタイマーお願い") == pytest.approx(1 / 10)
    # an extra word: insertions count too, so CER can exceed 1
    assert char_errors("あ", "") == CharErrors(1, 0)
    assert cer("", "") == 0.0 and cer("あ", "") == 1.0
    assert cer("ああああ", "い") == 4.0


@given(st.text(max_size=12), st.text(max_size=12), st.text(max_size=12))
def test_edit_distance_is_a_metric(a: str, b: str, c: str) -> None:
    assert edit_distance(a, b) == edit_distance(b, a)
    assert (edit_distance(a, b) == 0) == (a == b)
    assert edit_distance(a, c) <= edit_distance(a, b) + edit_distance(b, c)
    assert abs(len(a) - len(b)) <= edit_distance(a, b) <= max(len(a), len(b))
