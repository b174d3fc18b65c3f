"""Japanese ROUGE with the fugashi tokenizer (seed 001): rouge-score's formulas, checked equal
to rouge-score itself."""

from __future__ import annotations

import random

import pytest
from rouge_score.rouge_scorer import RougeScorer

from taiwa.metrics import rouge_ja
from taiwa.metrics.overlap import ROUGE_TYPES, lcs_f, ngram_f
from taiwa.text.tokenizer import default_tokenizer


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


class _Given:
    """A tokenizer that splits on spaces: token lists chosen by the test."""

    def tokenize(self, text: str) -> list[str]:
        return text.split()


def test_equal_to_rouge_score_float_for_float_on_random_token_lists() -> None:
    """rouge-score's own computation (same tokens) against ours, exactly equal, over random
    token lists with repeats, empty sides and one-token sides."""
    rng = random.Random(7)
    words = ["今日", "は", "雨", "です", "ね", "明日", "晴れ", "かな", "。", "猫"]
    tok = _Given()
    for _ in range(400):
        ref = " ".join(rng.choices(words, k=rng.randint(0, 14)))
        pred = " ".join(rng.choices(words, k=rng.randint(0, 14)))
        got = RougeScorer(list(ROUGE_TYPES), tokenizer=tok).score(ref, pred)
        r, p = tok.tokenize(ref), tok.tokenize(pred)
        assert ngram_f(r, p, 1) == got["rouge1"].fmeasure, (ref, pred)
        assert ngram_f(r, p, 2) == got["rouge2"].fmeasure, (ref, pred)
        assert lcs_f(r, p) == got["rougeL"].fmeasure, (ref, pred)


def test_equal_to_rouge_score_on_japanese_sentences() -> None:
    pairs = [
        ("昨日は駅前の本屋で料理の本を買いました。", "駅前の本屋で昨日、料理の本を二冊買ったよ。"),
        ("うん、そうだね。また今度行こう。", "そうですね、また今度一緒に行きましょう。"),
        ("週末は家でゆっくりしてた", "週末はずっと家でゆっくり過ごしていました。"),
        ("はい", "いいえ、違います。"),
    ]
    tok = default_tokenizer()
    for pred, ref in pairs:
        got = RougeScorer(list(ROUGE_TYPES), tokenizer=tok).score(ref, pred)
        ours = rouge_ja(pred, ref)
        assert ours.as_dict() == {k: got[k].fmeasure for k in ROUGE_TYPES}, (pred, ref)
