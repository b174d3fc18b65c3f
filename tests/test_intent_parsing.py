"""Answer parsing of intent (seed 004 §3): a table of phrasings chat models put around an
answer, each read as the option it names, and of ambiguous or empty answers, each refused.
The held-out check (phrasings composed from parts this table does not use) is
``tests/test_intent_parsing_heldout.py``."""

from __future__ import annotations

import pytest

from taiwa.benchmarks.intent.parsing import parse_answer

OPTIONS = ["この部屋を気に入った", "夏は暑くて大変そうだ", "鉢植えはここに置くとよい", "該当なし"]
HOSPITAL = [
    "ギプス期間中は安静にしていなければならず辛かった",
    "リハビリテーションに長期間かかった",
    "入院中の環境が快適ではなかった",
    "該当なし",
]
CLOCK = ["3時に駅で待ち合わせたい", "2人分の席を取ってほしい", "遅れそうで焦っている", "該当なし"]

ACCEPTED: list[tuple[str, list[str], int]] = [
    # the five
    ("**2**", OPTIONS, 1),
    ("The answer is 2", OPTIONS, 1),
    ("番号：２", OPTIONS, 1),
    ("私は2を選びます。", OPTIONS, 1),
    ("選択肢2が最も適切です。選択肢3は文脈に合いません。", OPTIONS, 1),
    # bare numbers and frames
    ("2", OPTIONS, 1),
    ("２", OPTIONS, 1),
    ("2。", OPTIONS, 1),
    ("2です", OPTIONS, 1),
    ("2番", OPTIONS, 1),
    ("2番目です。", OPTIONS, 1),
    ("(2)", OPTIONS, 1),
    ("（２）", OPTIONS, 1),
    ("答え：③", OPTIONS, 2),
    ("答えは③です", OPTIONS, 2),
    ("回答：1", OPTIONS, 0),
    ("正解は4", OPTIONS, 3),
    ("選択肢２", OPTIONS, 1),
    ("選択肢B", OPTIONS, 1),
    ("答え：C", OPTIONS, 2),
    ("選択肢二", OPTIONS, 1),
    ("三番", OPTIONS, 2),
    # markdown
    ("**答え：2**", OPTIONS, 1),
    ("**Answer:** 3", OPTIONS, 2),
    ("`2`", OPTIONS, 1),
    ("### 回答\n2", OPTIONS, 1),
    ("> 2", OPTIONS, 1),
    ("__1__", OPTIONS, 0),
    ("**選択肢2：夏は暑くて大変そうだ**", OPTIONS, 1),
    # English
    ("Answer: 2", OPTIONS, 1),
    ("I choose 2.", OPTIONS, 1),
    ("I would pick option 3.", OPTIONS, 2),
    ("Option 1 is the most appropriate.", OPTIONS, 0),
    ("The correct choice is (2).", OPTIONS, 1),
    ("2 is correct because A is worried about the heat.", OPTIONS, 1),
    ("My answer is 2, not 3.", OPTIONS, 1),
    ("The answer is 2. Option 1 does not fit the context.", OPTIONS, 1),
    # first person, Japanese
    ("2だと思います。", OPTIONS, 1),
    ("おそらく2でしょう。", OPTIONS, 1),
    ("私の答えは2です。", OPTIONS, 1),
    ("2を選択します。", OPTIONS, 1),
    ("最も適切なのは2です。", OPTIONS, 1),
    ("一番近いのは2番です。", OPTIONS, 1),
    ("選択肢の中では2が一番当てはまると思います。", OPTIONS, 1),
    # chosen first, rejected after
    ("2です。1は文脈に合いません。", OPTIONS, 1),
    ("2。3ではありません。", OPTIONS, 1),
    ("3ではなく2です。", OPTIONS, 1),
    ("1や3は違います。2が正解です。", OPTIONS, 1),
    ("選択肢2が適切で、選択肢4は当てはまりません。", OPTIONS, 1),
    ("2が正解で、ほかは違います。", OPTIONS, 1),
    # label and option text
    ("2. 夏は暑くて大変そうだ", OPTIONS, 1),
    ("選択肢２：夏は暑くて大変そうだ", OPTIONS, 1),
    ("2（夏は暑くて大変そうだ）", OPTIONS, 1),
    ("答え：2「夏は暑くて大変そうだ」", OPTIONS, 1),
    # the option's text
    ("夏は暑くて大変そうだ", OPTIONS, 1),
    ("「夏は暑くて大変そうだ」", OPTIONS, 1),
    ("「夏は暑くて大変そうだ」が最も適切です。", OPTIONS, 1),
    ("該当なし", OPTIONS, 3),
    ("答えは「該当なし」です。", OPTIONS, 3),
    # trailing explanation
    ("2\n\nAは日当たりの良さから夏の暑さを心配しています。", OPTIONS, 1),
    ("1です。Bが部屋の感想を尋ねているので、Aは気に入ったと伝えています。", OPTIONS, 0),
    ("Aは褒めているので、答えは1です。", OPTIONS, 0),
    ("文脈から考えると、Aは部屋を褒めています。したがって1が正解です。", OPTIONS, 0),
    # options with digits and negations inside
    ("3. 入院中の環境が快適ではなかった", HOSPITAL, 2),
    ("選択肢3：入院中の環境が快適ではなかった", HOSPITAL, 2),
    ("入院中の環境が快適ではなかった", HOSPITAL, 2),
    ("1です。2人分の席の話はしていません。", CLOCK, 0),
    ("「2人分の席を取ってほしい」です", CLOCK, 1),
    ("答えは3です。3時の待ち合わせの話ではありません。", CLOCK, 2),
    # a hesitation that ends in a decision: the last explicit decision wins
    ("1と2で迷いましたが、2にします", OPTIONS, 1),
    ("1か2で迷いましたが、答えは2です。", OPTIONS, 1),
    ("1と3で悩みましたが、最終的に3を選びます。", OPTIONS, 2),
    ("2か3か。答えは3にします。", OPTIONS, 2),
    ("I was torn between 1 and 2, but I will choose 2.", OPTIONS, 1),
    # a clear choice, another option only named as possible: the choice stands
    ("2だと思いますが、1の可能性もあります。", OPTIONS, 1),
    ("1や3の可能性もありますが、2が正解です。", OPTIONS, 1),
]

REFUSED: list[tuple[str, list[str]]] = [
    ("", OPTIONS),
    ("   ", OPTIONS),
    ("**", OPTIONS),
    ("5", OPTIONS),
    ("e", OPTIONS),
    ("2か3", OPTIONS),
    ("2 or 3", OPTIONS),
    ("2と3", OPTIONS),
    ("2、3", OPTIONS),
    ("選択肢1と選択肢2", OPTIONS),
    ("2か3だと思います。", OPTIONS),
    ("The answer is 2 or 3.", OPTIONS),
    ("Either 1 or 2.", OPTIONS),
    ("2と3のどちらも当てはまります。", OPTIONS),
    ("この部屋を気に入ったし、夏は暑くて大変そうだ", OPTIONS),
    ("1. 夏は暑くて大変そうだ", OPTIONS),
    ("どれにも当てはまりません", OPTIONS),
    ("わかりません", OPTIONS),
    ("2です。いや、やはり答えは3です。", OPTIONS),
    ("1ではありません。", OPTIONS),
    ("1〜4の中から選ぶのは難しいです。", OPTIONS),
    ("選択肢7", OPTIONS),
    ("The answer is a polite request.", OPTIONS),
    # a hedge or hesitation with no single decision stays refused
    ("1と2で迷いましたが、答えは1か2です。", OPTIONS),
    ("2と3で迷いましたが、5にします。", OPTIONS),
    ("2か3か迷います。", OPTIONS),
    ("2だと思いますが、3かもしれません。", OPTIONS),
    ("1の可能性もあります。", OPTIONS),
    ("1と2のどちらかですが、2の可能性もあります。", OPTIONS),
]


def test_the_tables_are_as_large_as_promised() -> None:
    assert len(ACCEPTED) >= 60 and len(REFUSED) >= 20
    assert len({a for a, _, _ in ACCEPTED}) == len(ACCEPTED)


@pytest.mark.parametrize(("answer", "options", "index"), ACCEPTED)
def test_accepted_phrasings(answer: str, options: list[str], index: int) -> None:
    assert parse_answer(answer, options) == index


@pytest.mark.parametrize(("answer", "options"), REFUSED)
def test_refused_phrasings(answer: str, options: list[str]) -> None:
    assert parse_answer(answer, options) is None
