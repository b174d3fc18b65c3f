"""The intent method (seed 004): answer parsing, the dependent/independent split, the stability
analysis against plain definitions, and runs through the real CLI (a seeded random guesser,
the annotators' answers, a replay model with unreadable answers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cli import taiwa_main
from taiwa.benchmarks.intent import parse_answer
from taiwa.benchmarks.intent.dataset import IntentItem, dependent_groups, iter_items
from taiwa.benchmarks.intent.prompts import model_prompt, question_text
from taiwa.benchmarks.intent.stability import default_step, stability
from taiwa.core.samples import sample_path
from taiwa.models.builtin import random_choice

OPTIONS = ["この部屋を気に入った", "夏は暑くて大変そうだ", "鉢植えはここに置くとよい", "該当なし"]
ITEMS = sample_path("intent/items.jsonl")


@pytest.mark.parametrize(
    ("answer", "index"),
    [
        ("2", 1),
        ("２", 1),
        ("選択肢2です", 1),
        ("選択肢 2 です。", 1),
        ("答え：B", 1),
        ("b", 1),
        ("(3)", 2),
        ("3番", 2),
        ("3番目です", 2),
        ("Answer: 4", 3),
        ("正解は選択肢3。", 2),
        ("この部屋を気に入った", 0),
        ("「この部屋を気に入った。」", 0),
        ("この部屋を、気に入った！", 0),
        ("　夏は暑くて大変そうだ　", 1),
        ("私は「夏は暑くて大変そうだ」だと思います。", 1),
        ("2. 夏は暑くて大変そうだ", 1),
        ("該当なし", 3),
    ],
)
def test_parse_answer_reads_one_option(answer: str, index: int) -> None:
    assert parse_answer(answer, OPTIONS) == index


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   ",
        "5",  # no fifth option
        "e",
        "1か2",  # two choices
        "選択肢1と選択肢2",
        "この部屋を気に入ったし、夏は暑くて大変そうだ",  # two option texts
        "1. 夏は暑くて大変そうだ",  # the number and the text disagree
        "どれにも当てはまりません",
        "わかりません",
    ],
)
def test_parse_answer_refuses_what_names_no_single_option(answer: str) -> None:
    assert parse_answer(answer, OPTIONS) is None


def test_an_option_inside_a_longer_option_is_not_a_second_answer() -> None:
    options = ["暑い", "暑いので窓を開けてほしい", "該当なし"]
    assert parse_answer("暑いので窓を開けてほしい", options) == 1
    assert parse_answer("たぶん「暑いので窓を開けてほしい」です", options) == 1


def test_the_question_is_the_seeds() -> None:
    text = question_text(
        "入院中の病院の環境はどうでしたか？", "ベッドの上での生活は大変でした。", OPTIONS
    )
    assert text.startswith("以下の対話文を読んで、その後の質問に答えてください。\n\n【対話文】\n")
    assert "B: 入院中の病院の環境はどうでしたか？\nA: ベッドの上での生活は大変でした。" in text
    assert "発話者 A は、「ベッドの上での生活は大変でした。」と言うことによって" in text
    assert text.endswith("【選択肢】\n1. この部屋を気に入った\n2. 夏は暑くて大変そうだ\n"
                         "3. 鉢植えはここに置くとよい\n4. 該当なし")  # fmt: skip
    assert model_prompt("a", "b", OPTIONS).endswith("番号を1つだけ答えてください。")


def _item(uid: str, group: str, gold: int) -> IntentItem:
    return IntentItem(id=uid, group=group, context=f"文脈{uid}", core=f"コア{group}",
                      options=OPTIONS, gold=gold)  # fmt: skip


def test_dependent_groups_have_two_distinct_gold_labels() -> None:
    items = [
        _item("a1", "A", 0), _item("a2", "A", 1),  # depends on the context
        _item("b1", "B", 2), _item("b2", "B", 2),  # the same intent in both contexts
        _item("c1", "C", 3),  # one context only
    ]  # fmt: skip
    assert dependent_groups(items) == {"A"}


@pytest.mark.parametrize("kept", [10_000, 5])
def test_items_know_their_dependence_read_once_or_twice(
    kept: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to KEPT_ITEMS items the dependence pass's items are yielded (the file is read and
    validated once); beyond it the file is read again. The items are the same either way."""
    from taiwa.benchmarks.intent import dataset

    reads: list[int] = []
    real = dataset.iter_items

    def counted(path: str | Path) -> Any:
        reads.append(1)
        return real(path)

    monkeypatch.setattr(dataset, "KEPT_ITEMS", kept)
    monkeypatch.setattr(dataset, "iter_items", counted)
    items = list(dataset.read_with_dependence(ITEMS))
    plain = list(real(ITEMS))
    assert len(reads) == (1 if len(plain) <= kept else 2)
    assert [it.id for it in items] == [it.id for it in plain]
    dependent = dependent_groups(plain)
    assert [it.dependent for it in items] == [it.group in dependent for it in plain]
    assert any(it.dependent for it in items) and not all(it.dependent for it in items)


def test_bundled_items_cover_the_issue() -> None:
    items = list(iter_items(ITEMS))
    groups = {it.group for it in items}
    dependent = dependent_groups(items)
    assert len(dependent) >= 25 and len(groups - dependent) >= 3
    for g in dependent:
        assert 2 <= sum(it.group == g for it in items) <= 4
    assert all(it.options[-1] == "該当なし" for it in items)


def test_bad_items_are_one_line_errors(tmp_path: Path) -> None:
    good = json.loads(ITEMS.read_text("utf-8").splitlines()[0])
    rows = [good, {**good, "id": "x2", "gold": 9}, {**good, "id": "x3", "core": "別の文"}]
    for k, bad in enumerate(rows[1:], start=2):
        f = tmp_path / f"bad{k}.jsonl"
        f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in (good, bad)) + "\n")
        r = taiwa_main("run", "intent", "-m", "builtin:random", "--data", str(f), "-q")
        assert r.returncode == 2
        assert f"{f}:2" in r.stderr and len(r.stderr.strip().splitlines()) == 1


# -------------------------------------------------------------------------- stability


def test_stability_prefix_gaps_and_the_stable_size() -> None:
    correct = [True, True, False, True] * 25 + [False] * 20  # 120 items, full accuracy 0.625
    st = stability(correct, step=20, seed=1)
    assert st.sizes == (20, 40, 60, 80, 100)
    assert st.full == pytest.approx(75 / 120)
    for n, gap in zip(st.sizes, st.prefix_gap, strict=True):
        assert gap == pytest.approx(abs(np.mean(correct[:n]) - 75 / 120))
    # gaps: 0.125 up to n = 100 (0.75 vs 0.625): never below 0.02
    assert st.stable_from is None
    loose = stability(correct, step=20, threshold=0.2)
    assert loose.stable_from == 20 and loose.as_dict()["threshold"] == 0.2  # the one used
    # random subsets: the mean gap shrinks as n grows, reproducibly
    assert list(st.random_mean) == sorted(st.random_mean, reverse=True)
    assert stability(correct, step=20, seed=1) == st
    assert stability(correct, step=20, seed=2).random_mean != st.random_mean


def test_stability_random_gap_matches_the_hypergeometric_spread() -> None:
    rng = np.random.default_rng(0)
    correct = rng.random(700) < 0.8
    st = stability(correct, step=100, subsets=4000)
    p, n_all = correct.mean(), correct.size
    for n, mean_gap in zip(st.sizes, st.random_mean, strict=True):
        sd = np.sqrt(p * (1 - p) / n * (n_all - n) / (n_all - 1))
        assert mean_gap == pytest.approx(sd * np.sqrt(2 / np.pi), rel=0.08)


def test_default_step() -> None:
    assert default_step(735) == 50 and default_step(500) == 50
    assert default_step(99) == 10 and default_step(30) == 5


# -------------------------------------------------------------------------- runs


def test_random_guess_is_one_of_the_numbered_options() -> None:
    prompt = model_prompt("c", "k", OPTIONS)
    picks = {random_choice(prompt, seed) for seed in range(40)}
    assert picks == {"1", "2", "3", "4"}
    assert random_choice(prompt, 3) == random_choice(prompt, 3)


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text("utf-8"))


def test_table_1_with_a_random_guesser_and_the_annotators(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = taiwa_main("run", "intent", "-m", "builtin:random", "-m", "human", "--out", str(out),
              "--no-cache", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "seed 004 Table 1" in r.stdout and "seed 004 Table 2" in r.stdout
    s = _summary(out)
    items = list(iter_items(ITEMS))
    n_dep = sum(it.group in dependent_groups(items) for it in items)
    assert s["across"]["items"] == {"all": 99, "dependent": n_dep, "independent": 99 - n_dep}
    human, guess = s["systems"]["human"], s["systems"]["builtin:random"]
    assert human["accuracy"]["value"] == 1.0 and human["unparseable"] == 0
    assert guess["accuracy"]["n"] == 99 and guess["accuracy_dependent"]["n"] == n_dep
    assert 0.1 < guess["accuracy"]["value"] < 0.45  # chance is about 1 in 4
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text("utf-8").splitlines()]
    hits = [x["correct"] for x in scores if x["system"] == "builtin:random"]
    assert guess["accuracy"]["value"] == pytest.approx(np.mean(hits))
    st = guess["stability"]
    assert [p["n"] for p in st["points"]] == list(range(10, 99, 10))
    assert st["threshold"] == 0.02 and not (out / "stability.svg").exists()  # the report draws it
    from taiwa.benchmarks.intent.plots import stability_svg

    svg = stability_svg({"builtin:random": st})
    assert svg.startswith("<?xml") and "builtin:random" in svg


def test_unparseable_answers_are_counted_and_wrong(tmp_path: Path) -> None:
    items = list(iter_items(ITEMS))[:6]
    answers = ["2", "わかりません", items[2].options[items[2].gold], "1か2", "選択肢1です", "?"]
    replay = tmp_path / "answers.jsonl"
    replay.write_text(
        "".join(
            json.dumps({"id": it.id, "text": a}, ensure_ascii=False) + "\n"
            for it, a in zip(items, answers, strict=True)
        ),
        "utf-8",
    )
    out = tmp_path / "run"
    r = taiwa_main("run", "intent", "-m", f"replay:{replay}", "--limit", "6", "--out", str(out),
              "--no-cache", "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    block = _summary(out)["systems"][f"replay:{replay}"]
    assert block["unparseable"] == 3
    expect = [parse_answer(a, it.options) == it.gold for it, a in zip(items, answers, strict=True)]
    assert block["accuracy"]["value"] == pytest.approx(np.mean(expect))
    assert any("3 answer(s) named no single option" in n for n in _summary(out)["notes"])
