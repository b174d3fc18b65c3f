"""Held-out check of intent's answer parsing: phrasings composed at random from parts that
``tests/test_intent_parsing.py``'s table does not use (openings, answer forms, closing
explanations that reject another option), on every bundled item with each option taken as the
answer. The bar (issue 24): 97 % or more of correct-answer phrasings read as the option they
name, none read as another option; ambiguous ones never read as any option.

Run as a script to print the rates: ``python tests/test_intent_parsing_heldout.py``."""

from __future__ import annotations

import random
import unicodedata

from taiwa.benchmarks.intent.dataset import iter_items
from taiwa.benchmarks.intent.parsing import parse_answer
from taiwa.core.samples import sample_path

OPENINGS = [
    "",
    "はい、",
    "考えてみますね。\n",
    "Sure! ",
    "この対話ではAの発話の意図が問われています。\n",
    "結論から言うと、",
    "Let me think.\n",
    "そうですね……",
]
FORMS = [
    "{n}",
    "{fw}番です",
    "回答: {n}",
    "【回答】{n}",
    "正解：{circ}",
    "選択肢{fw}",
    "私の選択は{n}です",
    "I'd go with {n}",
    "Final answer: {n}",
    "**{n}. {text}**",
    "{n}（{text}）",
    "答えは「{text}」",
    "「{text}」だと思います",
    "Option {n}",
    "option {n}: {text}",
    "自分なら{n}を選びます",
    "{n}が妥当です",
    "{n}が最もふさわしいでしょう",
    "選ぶとすれば{n}です",
    "The best answer is option {n}",
    "**答え**：{fw}",
    "{n}番の「{text}」です",
    "選択肢{n}の「{text}」が近いと感じます",
    "ここでは{n}が当てはまります",
]
CLOSINGS = [
    "",
    "。",
    "\n\n理由：Aは文脈に沿った発言をしています。",
    "。他の選択肢は文脈に合いません。",
    "。選択肢{w}は当てはまりません。",
    ". Option {w} does not match the context.",
    "。{w}ではないと考えます。",
    "。{w}番は少しずれています。",
    "\n\n（{w}は誤りです）",
]
AMBIGUOUS = ["{n}か{w}", "{n} or {w}", "{n}と{w}が当てはまる", "{n}、{w}", "{n}か{w}のどちらか"]

CIRCLED = "①②③④⑤⑥⑦⑧⑨"


def phrasings(
    seed: int = 7, per_item: int = 12
) -> tuple[list[tuple[str, list[str], int]], list[tuple[str, list[str]]]]:
    """(answer, options, the index it names) for correct-answer phrasings, and ambiguous ones."""
    rng = random.Random(seed)
    named, ambiguous = [], []
    for item in iter_items(sample_path("intent/items.jsonl")):
        options = list(item.options)
        for _ in range(per_item):
            k = rng.randrange(len(options))
            w = rng.choice([j for j in range(len(options)) if j != k]) + 1
            fields = {
                "n": k + 1,
                "fw": unicodedata.normalize("NFKC", str(k + 1)).translate(
                    str.maketrans("0123456789", "０１２３４５６７８９")
                ),
                "circ": CIRCLED[k],
                "text": options[k],
                "w": w,
            }
            text = rng.choice(OPENINGS) + rng.choice(FORMS).format(**fields)
            text += rng.choice(CLOSINGS).format(**fields)
            named.append((text, options, k))
            ambiguous.append((rng.choice(AMBIGUOUS).format(**fields), options))
    return named, ambiguous


def rates() -> tuple[float, int, int, int]:
    named, ambiguous = phrasings()
    got = [parse_answer(t, o) for t, o, _ in named]
    right = sum(g == k for g, (_, _, k) in zip(got, named, strict=True))
    wrong = sum(g is not None and g != k for g, (_, _, k) in zip(got, named, strict=True))
    taken = sum(parse_answer(t, o) is not None for t, o in ambiguous)
    return right / len(named), wrong, taken, len(named)


def test_held_out_phrasings_parse_right_and_never_to_a_wrong_option() -> None:
    share, wrong, taken, n = rates()
    assert n > 1000
    assert wrong == 0
    assert taken == 0
    assert share >= 0.97


if __name__ == "__main__":
    share, wrong, taken, n = rates()
    print(
        f"{n} phrasings: {share:.1%} parsed right, {wrong} to a wrong option; "
        f"{taken} ambiguous taken"
    )
    named, _ = phrasings()
    for t, o, k in named:
        if parse_answer(t, o) != k:
            print(repr(t), k, parse_answer(t, o))
