"""Issue 38, point 4: the offline annotator on replies that perform none of the request's acts
and on gold replies made of two questions (seed 000 §3.2, App. A.2; WED: §4.1.2).

A reaction that neither answers, accepts, refuses, asks, requests nor suggests (そうなんですね。,
なるほど、勉強になります。) is annotated ``Inform``: the taxonomy's act for what a reply says that
is not an answer (回答以外の補足情報や通知); every sentence of a reply carries one of the seven
acts (seed 000 eq. 3 needs importances summing to 1, so the sequence cannot be empty). An
all-``Inform`` sequence has a positive WED against any gold sequence with another act in it:
each such gold step costs its insertion or a substitution (eqs. 5–6).

The reactions and questions below were written for these tests: none is a sentence of the
training file (checked here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taiwa.benchmarks import get_method
from taiwa.benchmarks.da_response.dataset import load_da_response
from taiwa.benchmarks.da_response.shipped_annotator import TRAIN, default_annotator
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.metrics import wed

ITEMS = load_da_response(sample_path("da_response/gold.jsonl"))

FIXED_REACTIONS = (
    "そうなんですね。",
    "なるほど、それは面白いですね。",
    "私もそう思います。",
    "へえ、それは知りませんでした。",
    "たしかに、そういうこともありますよね。",
    "わかります、その気持ち。",
    "うーん、なかなか難しいところですね。",
    "それはいいですね！",
    "なるほど、勉強になります。",
    "お話ししてくれてありがとうございます。",
)
"""The lines of ``builtin:fixed``'s script that perform no act of a request (the other two ask
and request: それで、どうなったんですか？ is a Question, 〜聞かせてください a Request)."""

MORE_REACTIONS = (
    "へえ、そうなんですね。",
    "いいですねえ、それ。",
    "おもしろいですね！",
    "それは大変ですね。",
    "そうですか。",
    "なるほどですね。",
    "そうなんですか！",
    "へー、すごい。",
    "そっか。",
    "わかるー。",
    "なるほど",
)

TWO_QUESTIONS = (
    # (request, reply, the acts: a yes/no or wh question, then a wh question in 〜ましょうか)
    ("年賀状作りたい", "写真は入れますか？枚数はどうしましょうか？", ("Question", "Question")),
    ("友達を家に呼びたい", "何人来ますか？料理は何を作りましょうか？", ("Question", "Question")),
    (
        "お湯わかして",
        "何度にしましょうか？どれくらいの量にしましょうか？",
        ("Question", "Question"),
    ),
    ("映画のチケット取って", "今日の上映ですか？何枚取りましょうか？", ("Question", "Question")),
    ("ピザ頼んで", "いつものお店でいいですか？サイズはどうしましょうか？", (None, "Question")),
    ("出前頼んで", "お寿司でいいですか？何人前にしましょうか？", (None, "Question")),
    ("メール送って", "宛先は部長でいいですか？件名はどうしましょうか？", (None, "Question")),
    ("ケーキ買ってきて", "チョコレートのでいいですか？いくつ買いましょうか？", (None, "Question")),
    ("アラームかけて", "明日の朝ですか？何時に鳴らしましょうか？", (None, "Question")),
    ("エアコンつけて", "リビングのですか？温度は何度にしましょうか？", (None, "Question")),
)
"""Two questions; ``None``: Question or Check-Question (〜でいいですか？ confirms a guess)."""


def _training_sentences() -> set[str]:
    rows = sample_path(TRAIN).read_text("utf-8").splitlines()
    return {
        s["sentence"]
        for row in rows
        if row.strip()
        for s in json.loads(row)["output_dialogue_acts"]["steps"]
    }


def test_the_reactions_and_questions_here_are_not_training_sentences() -> None:
    train = _training_sentences()
    mine = set(FIXED_REACTIONS) | set(MORE_REACTIONS)
    mine |= {s for _, reply, _ in TWO_QUESTIONS for s in reply.replace("？", "？\n").split()}
    assert not mine & train


@pytest.mark.parametrize("reaction", FIXED_REACTIONS + MORE_REACTIONS)
def test_a_reaction_is_inform_and_never_at_wed_zero_against_an_answer_or_an_action(
    reaction: str,
) -> None:
    seqs = default_annotator().annotate_many([it.input.text for it in ITEMS], [reaction] * 60)
    assert sum(s.acts == ["Inform"] for s in seqs) >= 59  # 1,319 of 1,320 in all when written
    asking = [(it, s) for it, s in zip(ITEMS, seqs, strict=True) if set(it.gold.acts) - {"Inform"}]
    assert len(asking) == 60  # every benchmark reply answers, acts, asks, requests or suggests
    assert min(wed(s, it.gold).total for it, s in asking) > 0


def test_fixed_baseline_run_has_no_item_at_wed_zero(tmp_path: Path) -> None:
    """``taiwa run da-response -m builtin:fixed``: そうなんですね。 to all 60 items is Inform
    (not Question), and no item reaches WED 0 (the report's "min WED" example is not a
    perfect score)."""
    cfg = RunConfig(
        method="da-response",
        models=["builtin:fixed"],
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    summary = run(cfg, get_method(cfg.method), show_progress=False).summary
    lines = (tmp_path / "run" / "scores.jsonl").read_text("utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 60 and {r["reply"] for r in rows} == {"そうなんですね。"}
    assert {s["act"] for r in rows for s in r["pred_steps"]} == {"Inform"}
    assert min(r["wed"] for r in rows) > 0
    assert summary["systems"]["builtin:fixed"]["examples"]["min_wed"]["wed"] > 0


@pytest.mark.parametrize(("request_text", "reply", "acts"), TWO_QUESTIONS)
def test_two_questions_are_not_a_question_and_a_suggestion(
    request_text: str, reply: str, acts: tuple[str | None, str]
) -> None:
    """The gold case of issue 38 (two questions tagged Check-Question + Suggestion), in kind: a
    wh question in 〜ましょうか asks (Question); only an offer without one suggests."""
    got = default_annotator().annotate(request_text, reply).acts
    assert len(got) == 2 and "Suggestion" not in got
    assert got[1] == acts[1]
    assert got[0] == acts[0] if acts[0] else got[0] in ("Question", "Check-Question")


def test_an_offer_after_a_question_still_suggests() -> None:
    """The other side of the line: 〜ましょうか with no question word offers (Suggestion)."""
    got = default_annotator().annotate(
        "部屋の片付け手伝って", "どこから始めますか？先に床の物を拾いましょうか？"
    )
    assert got.acts == ["Question", "Suggestion"]
