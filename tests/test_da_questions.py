"""A question is a question (issue 38; seed 002 §3.1): a reply whose last sentence asks is
質問 unless the definitions say otherwise, whatever its style — ELIZA's reflections, compound
assistant replies ending in a question, unpunctuated chat."""

from __future__ import annotations

import numpy as np
import pytest

from taiwa.annotators.da_classifier.model import DAClassifier, default_classifier
from taiwa.annotators.da_classifier.questions import (
    allowed_acts,
    allowed_mask,
    asks,
    last_sentence,
    sentence_count,
)
from taiwa.core.taxonomies import load_taxonomy

ACTS = load_taxonomy("chitchat11").names
QUESTION = "質問"

ASKING = [
    # ELIZA (builtin:eliza's reflections): the case, tagged 提案 before
    ("最近仕事が忙しくて", "あなたはそれについてどう感じていますか？"),
    ("猫を飼い始めました", "なぜそう思うのですか？"),
    ("昨日は映画を見てた", "それはあなたにとってどんな意味がありますか？"),
    ("なんか疲れちゃって", "もう少し詳しく話してもらえますか？ それはいつからですか？"),
    # compound assistant-style replies: agreement, opinion, advice, then a closing question
    (
        "最近ランニングを始めたんです",
        "それは素晴らしいですね！ランニングは体にも心にも良い影響があると言われています。"
        "最初は無理をせず、短い距離から始めるのがおすすめです。どのくらいの距離を走っていますか？",
    ),
    (
        "週末は料理をすることが多いです",
        "いいですね、料理は気分転換にもなりますよね。私も新しいレシピに挑戦するのが好きです。"
        "最近作った料理で、特においしかったものは何ですか？😊",
    ),
    (
        "旅行が好きで、よく一人で行きます",
        "一人旅、素敵ですね。自分のペースで回れるのが魅力だと思います。安全には気をつけて"
        "くださいね。これまでで一番印象に残っている場所はどこですか？",
    ),
    # real-chat style, with and without punctuation
    ("習字をしていました。", "私も習字ならってましたー！段とかありましたか？"),
    ("北海道に住んでます", "冬は雪かき大変なんですか"),
    ("犬を飼ってます", "えーいいですね！何犬ですか？（笑）"),
]


def test_asks_reads_the_last_sentence() -> None:
    for _, reply in ASKING:
        assert asks(reply), reply
    assert (
        last_sentence("いいですね！何犬ですか？（笑）") == "何犬ですか?"
    )  # NFKC; a bare laugh is no sentence
    assert sentence_count("いいですね！何犬ですか？（笑）") == 2
    assert sentence_count("はい") == 1
    # a question in the middle: the reply ends by telling, the model decides
    assert not asks("コメダって周りにありますか？そこのバナナジュースが最高です！")
    # hedges said with a rising tone, musings, listings: not asking
    for reply in ("モンブランとか？", "鳥取かも？", "60時間くらいか。", "あ、熱帯ゾーンとか。", ""):
        assert not asks(reply), reply


def test_allowed_acts_follow_the_definitions() -> None:
    def allowed(reply: str) -> set[str]:
        return {a for a, ok in zip(ACTS, allowed_acts(reply, ACTS), strict=True) if ok}

    asking = allowed("あなたはそれについてどう感じていますか？")
    assert QUESTION in asking and {"命令・お願い", "提案", "リアクション"} <= asking
    for never in ("身の回りに関する事実", "知識", "その他", "意見", "アドバイス・注意"):
        assert never not in asking
    assert "意見" in allowed("それって結構大変じゃないですか？")  # a rhetorical tag
    assert "意見" in allowed("猫って不思議なほど人の気持ち理解してたりしません？")
    assert "アドバイス・注意" in allowed("一度、病院で診てもらってはいかがでしょうか？")
    assert allowed("昨日ラーメン食べた") == set(ACTS)  # not asking: every act
    # a taxonomy without 質問 has no rule
    assert allowed_acts("どうですか？", ["Inform", "Question"]) == [True, True]
    mask = allowed_mask(["どうですか？", "はい"], ACTS)
    assert mask.shape == (2, len(ACTS)) and mask[1].all() and not mask[0].all()


@pytest.fixture(scope="module")
def shipped() -> DAClassifier:
    return default_classifier()


def test_the_shipped_tagger_tags_questions_as_questions(shipped: DAClassifier) -> None:
    assert shipped.question_rule
    contexts, replies = [c for c, _ in ASKING], [r for _, r in ASKING]
    tags = shipped.tag_many(contexts, replies)
    wrong = [(r, t) for r, t in zip(replies, tags, strict=True) if t != QUESTION]
    assert not wrong, wrong


def test_the_rule_is_the_models_and_keeps_proba_and_tags_agreeing(shipped: DAClassifier) -> None:
    contexts, replies = [c for c, _ in ASKING], [r for _, r in ASKING]
    proba = shipped.proba(contexts, replies)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    mask = allowed_mask(replies, shipped.acts)
    assert (proba[~mask] == 0).all()
    assert [shipped.acts[k] for k in proba.argmax(axis=1)] == shipped.tag_many(contexts, replies)
    # without the rule, the same weights give some of these replies an act a question cannot
    # take (what the rule is there for)
    bare = DAClassifier.load()
    bare.meta = {**bare.meta, "question_rule": False}
    assert not bare.question_rule
    raw = bare.proba(contexts, replies)
    assert (raw[~mask] > 0).all()
