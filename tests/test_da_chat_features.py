"""Casual-chat normalisation, morpheme features and calibration of the DA classifier (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest

from taiwa.annotators.da_classifier.calibration import (
    expected_calibration_error,
    fit_temperature,
    nll,
    softmax,
)
from taiwa.annotators.da_classifier.chat_text import SHAPE_NAMES, casual_form, strip_punctuation
from taiwa.annotators.da_classifier.morphs import word_columns


def flags(text: str) -> set[str]:
    return {n for n, v in zip(SHAPE_NAMES, casual_form(text)[1], strict=True) if v}


@pytest.mark.parametrize(
    ("text", "core", "shape"),
    [
        ("そうなんだ", "そうなんだ", set()),
        ("そうなんだ。", "そうなんだ", {"period"}),
        ("えー、マジで？？", "マジで", {"question", "filler"}),
        ("すごーーーい！！", "すごーい", {"exclaim", "lengthened"}),
        ("それなww", "それな笑", {"laugh"}),
        ("ウケる（笑）", "ウケる笑", {"laugh"}),
        ("草", "笑", {"laugh"}),
        ("えっと、駅前のとこ", "駅前のとこ", {"filler"}),
        ("あのね、昨日", "あのね昨日", set()),
        ("コーヒー飲む？", "コーヒー飲む", {"question"}),
        ("ははは、おつかれ", "笑おつかれ", {"laugh"}),
        ("window", "window", set()),
    ],
)
def test_casual_form(text: str, core: str, shape: set[str]) -> None:
    assert casual_form(text)[0] == core
    assert flags(text) == shape


def test_punctuated_and_bare_share_the_core() -> None:
    for text in ("明日ひま？", "え、ほんとに！", "行く行く。", "それな…"):
        assert casual_form(text)[0] == casual_form(strip_punctuation(text))[0]
    assert strip_punctuation("え、ほんと？") == "えほんと"


def test_word_columns_mark_the_end() -> None:
    a = word_columns([(0, "行く/動詞-一般"), (1, "う/助動詞")], 14)
    b = word_columns([(0, "行く/動詞-一般"), (1, "た/助動詞")], 14)
    assert a != b and all(0 <= c < 1 << 14 for c in a)
    assert word_columns([], 14) == word_columns([], 14) and len(word_columns([], 14)) == 1


def test_temperature_fixes_overconfidence() -> None:
    rng = np.random.default_rng(0)
    n, k = 4000, 5
    y = rng.integers(0, k, n)
    logits = rng.normal(0, 1, (n, k))
    logits[np.arange(n), y] += 1.0  # true model: these logits
    over = logits * 4.0  # an overconfident copy
    t = fit_temperature(over, y)
    assert t == pytest.approx(4.0, rel=0.15)
    assert nll(over, y, t) < nll(over, y, 1.0)
    before = expected_calibration_error(softmax(over), y)
    after = expected_calibration_error(softmax(over, t), y)
    assert after < before / 3
    assert (softmax(over, t).argmax(axis=1) == over.argmax(axis=1)).all()


def test_ece_of_a_perfect_and_a_wrong_forecaster() -> None:
    y = np.array([0, 1, 0, 1])
    sure = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    assert expected_calibration_error(sure, y) == pytest.approx(0.0)
    assert expected_calibration_error(sure[:, ::-1], y) == pytest.approx(1.0)
