"""Japanese ROUGE via rouge-score with the fugashi tokenizer (seed 001)."""

from __future__ import annotations

import pytest
from rouge_score.rouge_scorer import RougeScorer

from taiwa.metrics import rouge_ja


def test_identical_japanese_is_one() -> None:
    s = rouge_ja("週末は友達と映画を見に行きました。", "週末は友達と映画を見に行きました。")
    assert (s.rouge1, s.rouge2, s.rougeL) == (1.0, 1.0, 1.0)


def test_default_rouge_score_tokenizer_drops_japanese() -> None:
    # The reason we pass our own tokenizer: rouge-score alone sees no token in Japanese.
    plain = RougeScorer(["rouge1"]).score("映画を見た", "映画を見た")["rouge1"].fmeasure
    assert plain == 0.0


def test_partial_overlap_by_hand() -> None:
    # ref: 今日 は 晴れ です (4), pred: 今日 は 雨 です (4) → 3 shared unigrams, F = 0.75
    s = rouge_ja("今日は雨です", "今日は晴れです")
    assert s.rouge1 == pytest.approx(0.75)
    # bigrams: ref {今日は, は晴れ, 晴れです}, pred {今日は, は雨, 雨です} → 1/3
    assert s.rouge2 == pytest.approx(1 / 3)
    assert s.rougeL == pytest.approx(0.75)


@pytest.mark.parametrize(
    ("pred", "ref"), [("", ""), ("", "こんにちは"), ("こんにちは", ""), ("。", "、")]
)
def test_empty_strings_score_zero(pred: str, ref: str) -> None:
    s = rouge_ja(pred, ref)
    assert s.as_dict() == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}


def test_full_width_and_half_width_match() -> None:
    assert rouge_ja("ＡＢＣ１２３", "ABC123").rouge1 == 1.0
