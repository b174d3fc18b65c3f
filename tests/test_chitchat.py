"""The chitchat method's core (seed 001): corpus, task builder, prompts, regex extraction,
ROUGE rows, human rankings, rank correlations and the per-task difficulty table."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from taiwa.benchmarks.chitchat.analysis import rank_correlation, system_ranks, task_difficulty
from taiwa.benchmarks.chitchat.builder import BuildSettings, build_tasks
from taiwa.benchmarks.chitchat.cli import register
from taiwa.benchmarks.chitchat.corpus import MAX_ID_CHARS, iter_corpus, load_corpus, turns
from taiwa.benchmarks.chitchat.dataset import (
    ChitchatItem,
    Turn,
    iter_tasks,
    load_tasks,
    render_turns,
)
from taiwa.benchmarks.chitchat.extraction import extract_reply
from taiwa.benchmarks.chitchat.human_ranks import iter_rankings, mean_ranks
from taiwa.benchmarks.chitchat.prompts import (
    chat_messages,
    instruction,
    judge_question,
    render_prompt,
)
from taiwa.benchmarks.chitchat.scoring import score_generated, score_output
from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.samples import sample_path
from taiwa.core.schema import MAX_TEXT_CHARS

CORPUS = sample_path("chitchat/corpus.jsonl")
TASKS_FILE = sample_path("chitchat/tasks.jsonl")


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


def _chat(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {
        "id": "d1",
        "utterances": [{"speaker": s, "text": t, "role": "human"} for s, t in pairs],
    }


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """A fresh app (the chitchat builder is not in METHODS yet)."""

    register(app)
    return app


def _build(args: list[str]) -> Any:
    return CliRunner().invoke(_app(), ["chitchat", *args])


# ---------------------------------------------------------------------------- corpus


def test_bundled_corpus_matches_issue_11() -> None:
    """12 two-person and 8 three-person first-meeting chats of 20+ turns in chat style."""
    dialogues = load_corpus(CORPUS)
    sizes = Counter(len({u.speaker for u in d.utterances}) for d in dialogues)
    assert sizes == {2: 12, 3: 8}
    text = "".join(u.text for d in dialogues for u in d.utterances)
    for d in dialogues:
        assert len(d.utterances) >= 20
        assert "はじめまして" in d.utterances[0].text + d.utterances[1].text
        assert len(turns(d)) < len(d.utterances)  # someone writes two messages in a row
    assert text.count("笑") > 50 and text.count("！") > 50 and text.count("～") > 10
    # prompts show drawn labels, so the text never names the corpus' own speaker ids
    assert "Aさん" not in text and "Bさん" not in text and "Cさん" not in text


@pytest.mark.parametrize(
    ("utterances", "field", "expected"),
    [
        ([{"text": "こんにちは", "role": "human"}], "utterances[1].speaker", "to be present"),
        ([{"speaker": " ", "text": "やあ", "role": "human"}], "utterances[1].speaker", "non-blank"),
        ([{"speaker": "B", "text": "", "role": "human"}], "utterances[1].text", "non-blank"),
        ([{"speaker": "A", "text": "もう一回", "role": "human"}], "utterances", "2 or 3"),
    ],
)
def test_corpus_errors_name_file_line_and_field(
    tmp_path: Path, utterances: list[dict[str, Any]], field: str, expected: str
) -> None:
    good = _chat(("A", "はじめまして"), ("B", "どうも"))
    first = {"speaker": "A", "text": "はい", "role": "human"}
    bad = {"id": "d2", "utterances": [first, *utterances]}
    path = _write(tmp_path / "c.jsonl", [good, bad])
    with pytest.raises(InputError) as err:
        list(iter_corpus(path))
    assert str(err.value).startswith(f"{path}:2: field '{field}': expected")
    assert expected in str(err.value)
    assert "\n" not in str(err.value)


def test_corpus_id_leaves_room_for_the_item_ids(tmp_path: Path) -> None:
    """A dialogue id within the text limit made the builder's item ids (id + ``-cont-t14``)
    too long: a traceback from ``taiwa build chitchat`` (found by the fuzzer)."""
    long = {**_chat(*[("A", "あ"), ("B", "い")] * 8), "id": "い" * (MAX_TEXT_CHARS - 1)}
    path = _write(tmp_path / "c.jsonl", [_chat(("A", "あ"), ("B", "い")), long])
    with pytest.raises(InputError, match=r"c.jsonl:2: field 'id': expected an id of at most"):
        load_corpus(path)
    out = tmp_path / "t.jsonl"
    res = _build(["--corpus", str(path), "--out", str(out), "--min-context", "2"])
    assert isinstance(res.exception, InputError) and res.exception.field == "id"
    assert not out.exists()
    ok = {**long, "id": "い" * MAX_ID_CHARS}
    built = build_tasks(load_corpus(_write(tmp_path / "ok.jsonl", [ok])), BuildSettings())
    assert built.items and all(len(it.id) <= MAX_TEXT_CHARS for it in built.items)


def test_corpus_four_speakers_and_duplicate_ids(tmp_path: Path) -> None:
    four = _chat(("A", "あ"), ("B", "い"), ("C", "う"), ("D", "え"))
    with pytest.raises(InputError, match=r":1: field 'utterances': expected a chat of 2 or 3"):
        load_corpus(_write(tmp_path / "four.jsonl", [four]))
    two = _chat(("A", "あ"), ("B", "い"))
    with pytest.raises(InputError, match=r":2: field 'id': expected unique ids"):
        load_corpus(_write(tmp_path / "dup.jsonl", [two, two]))


# ---------------------------------------------------------------------------- builder


def test_bundled_tasks_are_the_default_build_of_the_bundled_corpus(tmp_path: Path) -> None:
    out = tmp_path / "tasks.jsonl"
    result = _build(["--corpus", str(CORPUS), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == TASKS_FILE.read_bytes()
    assert "60 item(s)" in result.output


def test_builder_is_reproducible_and_the_seed_changes_labels(tmp_path: Path) -> None:
    outs = [tmp_path / f"{name}.jsonl" for name in ("a", "b", "c")]
    for out, seed in zip(outs, ("7", "7", "8"), strict=True):
        assert _build(["--corpus", str(CORPUS), "--out", str(out), "--seed", seed]).exit_code == 0
    assert outs[0].read_bytes() == outs[1].read_bytes()
    same_seed = {it.id: it.labels for it in load_tasks(outs[0])}
    other_seed = {it.id: it.labels for it in load_tasks(outs[2])}
    assert same_seed != other_seed
    assert list(same_seed.values()) != list(other_seed.values())


def test_built_items_follow_seed_001() -> None:
    """References are the real continuation, cut points differ, labels vary by family."""
    dialogues = {d.id: d for d in load_corpus(CORPUS)}
    items = load_tasks(TASKS_FILE)
    assert Counter(it.task for it in items) == {
        "next_utterance": 24,
        "next_speaker": 16,
        "continuation": 20,
    }
    assert {it.family for it in items} == {"role", "name", "id", "spk", "s"}
    assert {it.family for it in items if it.task != "next_utterance"} <= {"name", "id", "spk", "s"}
    cuts: dict[str, set[int]] = {}
    for it in items:
        assert it.dialogue is not None and it.cut is not None
        dialogue = dialogues[it.dialogue]
        real = [u.text for u in dialogue.utterances]
        shown = [line for t in [*it.context, *it.reference] for line in t.lines]
        assert shown == real[: len(shown)]  # context from the start, then the true next turns
        assert len(it.context) == it.cut >= 6
        assert it.dialogue not in cuts or it.cut not in cuts[it.dialogue]
        cuts.setdefault(it.dialogue, set()).add(it.cut)
        if it.task == "continuation":
            assert 2 <= it.n_turns <= 5 and len(it.reference) == it.n_turns
        else:
            assert it.target == it.reference[0].speaker
            assert len(it.labels) == (2 if it.task == "next_utterance" else 3)
        if it.family == "role":
            assert it.target == "ASSISTANT"
        if it.family == "spk":
            assert it.labels == [f"SPK{i}" for i in range(1, len(it.labels) + 1)]
            assert it.context[0].speaker == "SPK1"


def test_builder_settings_and_errors(tmp_path: Path) -> None:
    out = str(tmp_path / "o.jsonl")
    result = _build(["--corpus", str(CORPUS), "--out", out, "--min-turns", "4", "--max-turns", "3"])
    assert isinstance(result.exception, TaiwaError)
    assert "--min-turns" in str(result.exception)
    short = _write(tmp_path / "short.jsonl", [_chat(("A", "あ"), ("B", "い"), ("A", "う"))])
    result = _build(["--corpus", str(short), "--out", str(tmp_path / "o.jsonl")])
    assert isinstance(result.exception, TaiwaError)
    assert "no item built" in str(result.exception)
    bad = _write(tmp_path / "bad.jsonl", [{"id": "x", "utterances": [{"text": "あ"}]}])
    result = _build(["--corpus", str(bad), "--out", str(tmp_path / "o.jsonl")])
    assert isinstance(result.exception, InputError)
    assert not (tmp_path / "o.jsonl").exists()
    settings = BuildSettings(per_dialogue=30, continuations=0, min_context=2)
    built = build_tasks(load_corpus(CORPUS)[:1], settings)
    assert built.short == ["cc2-01"]  # fewer cut points than items asked for
    assert len({it.cut for it in built.items}) == len(built.items)
    with pytest.raises(ValueError, match="min_turns"):
        BuildSettings(min_turns=3, max_turns=2)


# ---------------------------------------------------------------------------- prompts

SEED_INSTRUCTION = (
    "ASSISTANTとして、次のUSER、ASSISTANTらのテキストチャットの文脈に続けて発話を1つ出力して"
    "ください。対話は挨拶のみにならないようにし、対話を終わらせないようにしてください。"
    "対話の内容は文脈に合わせて話題を展開し、自然に、楽しく、相手を不快にさせないものにしてください。"
    "出力は対話のみとし、対話の形式は文脈と合わせてください。"
    "発話には絵文字や顔文字、URLや個人情報については含めないでください。"
)
"""Seed 001, 次発話生成タスク, word for word."""

SEED_ITEM = ChitchatItem(
    id="seed",
    task="next_utterance",
    labels=["USER", "ASSISTANT"],
    target="ASSISTANT",
    context=[
        Turn(speaker="USER", lines=["こんにちは"]),
        Turn(speaker="ASSISTANT", lines=["こんにちは"]),
        Turn(speaker="USER", lines=["昨夜は何を召し上がりましたか？"]),
        Turn(speaker="ASSISTANT", lines=["昨夜は、シーズンオフですがすいかが夕飯代わりでした……"]),
        Turn(speaker="USER", lines=["昨日は、カレーを食べました。", "カレーは好きですか？"]),
    ],
    reference=[
        Turn(
            speaker="ASSISTANT",
            lines=[
                "はい！",
                "そういえば、昨日テレビでアナウンサーのカレー選手権やってたのでちょっと観ました",
            ],
        )
    ],
)
"""Seed 001's next-utterance example (its （中略） left out)."""


def test_seed_example_prompt() -> None:
    """The 補足 figure's layout: 指示, 入力, then 出力: and the target's label."""
    assert instruction(SEED_ITEM) == SEED_INSTRUCTION
    assert render_prompt(SEED_ITEM) == (
        f"指示: {SEED_INSTRUCTION}\n\n入力:\nUSER: こんにちは\nASSISTANT: こんにちは\n"
        "USER: 昨夜は何を召し上がりましたか？\n"
        "ASSISTANT: 昨夜は、シーズンオフですがすいかが夕飯代わりでした……\n"
        "USER: 昨日は、カレーを食べました。\nカレーは好きですか？\n\n出力:\nASSISTANT:"
    )
    assert judge_question(SEED_ITEM) == (SEED_INSTRUCTION, render_turns(SEED_ITEM.context))
    assert render_turns(SEED_ITEM.context).endswith(
        "USER: 昨日は、カレーを食べました。\nカレーは好きですか？"
    )
    messages = chat_messages(SEED_ITEM)
    assert [m.role for m in messages] == ["user"]
    assert messages[0].text == render_prompt(SEED_ITEM)


COMMON = (
    "対話は挨拶のみにならないようにし、対話を終わらせないようにしてください。"
    "対話の内容は文脈に合わせて話題を展開し、自然に、楽しく、相手を不快にさせないものにしてください。"
    "出力は対話のみとし、対話の形式は文脈と合わせてください。"
    "発話には絵文字や顔文字、URLや個人情報については含めないでください。"
)

SNAPSHOTS = {
    "cc2-01-next-t06": (
        "指示: ASSISTANTとして、次のASSISTANT、USERらのテキストチャットの文脈に続けて発話を1つ"
        f"出力してください。{COMMON}\n\n入力:\n"
        "ASSISTANT: はじめまして！よろしくお願いします\n"
        "USER: はじめまして、こちらこそよろしくお願いします\n"
        "ASSISTANT: プロフィールに料理が好きって書いてありましたけど、よく作られるんですか？\n"
        "USER: はい、平日はほぼ自炊してます\n"
        "といっても凝ったものじゃなくて、炒め物とか汁物とかばっかりですけど笑\n"
        "ASSISTANT: いやいや、毎日自炊できるだけですごいですよ\n"
        "私は週末にまとめて作り置きするくらいです\n"
        "USER: 作り置き、いいですね！何を作ることが多いですか？\n\n"
        "出力:\nASSISTANT:"
    ),
    "cc3-02-spk-t09": (
        "指示: 次の吉田、山本、鈴木らのテキストチャットについて、与えられた文脈に続けて話者 山本の"
        f"発話を1つ出力してください。{COMMON}\n\n入力:\n"
        "吉田: こんにちは、はじめましての方ばかりですね\n"
        "山本: はじめまして！\n"
        "鈴木: はじめまして、どうぞよろしくです\n"
        "吉田: 話題どうしましょう？\n"
        "鈴木: 休日何してるかとかどうですか\n"
        "山本: いいですね。私はカフェ巡りが多いです\n"
        "吉田: おしゃれ！\n"
        "山本: いやいや、ただコーヒー飲んでぼーっとしてるだけです笑\n"
        "知らない駅で降りて、お店を探すのが好きで\n"
        "鈴木: それ楽しそう。当たり外れとかあります？\n\n"
        "出力:\n山本:"
    ),
    "cc2-06-cont-t06": (
        "指示: 次のID7673、ID4215らのテキストチャットについて、与えられた文脈に続けて4つの発話を"
        f"出力してください。{COMMON}\n\n入力:\n"
        "ID7673: はじめまして。よろしくお願いいたします\n"
        "ID4215: はじめまして！お手柔らかにお願いします笑\n"
        "最近引っ越されたってプロフィールで見ました\n"
        "ID7673: そうなんです、先月こっちに来たばかりで\n"
        "まだ段ボールがいくつか開いてないです笑\n"
        "ID4215: あるあるですね笑 どちらから来られたんですか？\n"
        "ID7673: 地方の海沿いの町からです。こっちは人が多くてびっくりしてます\n"
        "ID4215: 最初は駅の人の多さに疲れますよね\n\n"
        "出力:"
    ),
}


@pytest.mark.parametrize("item_id", list(SNAPSHOTS))
def test_built_prompt_snapshot(item_id: str) -> None:
    """One built prompt per task type, as the bundled task set has it."""
    items = {it.id: it for it in iter_tasks(TASKS_FILE)}
    assert render_prompt(items[item_id]) == SNAPSHOTS[item_id]


def test_item_schema_errors(tmp_path: Path) -> None:
    good = SEED_ITEM.model_dump(exclude_none=True)
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"target": "SPK9"}, "target", "the label of the speaker"),
        ({"labels": ["USER", "USER"]}, "labels", "distinct"),
        # the extraction compares labels after NFKC and case folding: one speaker to it
        ({"labels": ["USER", "user"], "target": "user"}, "labels", "case folding"),
        ({"labels": ["ＵＳＥＲ", "USER"], "target": "USER"}, "labels", "case folding"),
        ({"labels": ["A", "B", "C"]}, "labels", "2 speaker labels"),
        ({"labels": ["US ER", "ASSISTANT"]}, "labels[0]", "without spaces"),
        ({"reference": [{"speaker": "USER", "lines": ["はい"]}]}, "reference", "turn 0"),
        ({"n_turns": 2}, "n_turns", "1 for a next_utterance"),
        ({"context": [{"speaker": "USER", "lines": ["a\nb"]}]}, "context[0].lines[0]", "one"),
    ]
    for patch, field, expected in cases:
        path = _write(tmp_path / "t.jsonl", [{**good, **patch}])
        with pytest.raises(InputError) as err:
            load_tasks(path)
        assert f":1: field '{field}': expected" in str(err.value), (patch, str(err.value))
        assert expected in str(err.value)


# ---------------------------------------------------------------------------- extraction

SEED_OUTPUT = (
    "ASSISTANT: はい！\n"
    "そういえば、昨日テレビでアナウンサーのカレー選手権やってたのでちょっと観ました\n"
    "USER: そうなんですね！アナウンサーカレー選手権、何で競うんでしょう？気になりますね…\n"
    "ASSISTANT: 私が見たときは、利きカレールー勝負をしていました"
)
"""The model output of seed 001's 補足 figure, which runs on past its turn."""


@pytest.mark.parametrize(
    "output",
    [
        SEED_OUTPUT,
        SEED_OUTPUT.removeprefix("ASSISTANT: "),  # the cue's label not repeated
        "\n出力:\n" + SEED_OUTPUT,  # the cue echoed
        SEED_OUTPUT.replace("ASSISTANT: ", "ＡＳＳＩＳＴＡＮＴ：").replace("USER: ", "ＵＳＥＲ："),
        SEED_OUTPUT.replace("ASSISTANT: はい！", "assistant:\nはい！\n"),
    ],
)
def test_seed_extraction_example(output: str) -> None:
    got = extract_reply(SEED_ITEM, output)
    assert got.ok and got.error is None and got.cut
    assert got.reply == SEED_ITEM.reference_text


@pytest.mark.parametrize(
    ("output", "reply"),
    [
        ("10:30に集合でどうですか？", "10:30に集合でどうですか？"),
        ("今日のおすすめはこれです：カレー\nぜひ！", "今日のおすすめはこれです：カレー\nぜひ！"),
        ("いいですね\nhttps://example.com です", "いいですね\nhttps://example.com です"),
        ("好きです！\n佐藤: 私もです", "好きです！"),  # a name-like label ends the reply
        ("好きです！\nS4: 私もです", "好きです！"),
    ],
)
def test_extraction_label_lines(output: str, reply: str) -> None:
    got = extract_reply(SEED_ITEM, output)
    assert got.ok and got.reply == reply


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ("", "empty output"),
        ("  \n\n", "empty output"),
        ("USER: カレー好きですか？", "another speaker's label 'USER'"),
        ("ASSISTANT:\nUSER: えっと", "no text before the next speaker label"),
    ],
)
def test_extraction_failures(output: str, error: str) -> None:
    got = extract_reply(SEED_ITEM, output)
    assert not got.ok and got.reply == ""
    assert got.error is not None and error in got.error


CONTINUATION = ChitchatItem(
    id="seed-cont",
    task="continuation",
    labels=["S1", "S2", "S3"],
    n_turns=5,
    context=[
        Turn(speaker="S1", lines=["こんにちは！"]),
        Turn(speaker="S2", lines=["こんにちは！"]),
        Turn(speaker="S3", lines=["こんにちは"]),
        Turn(speaker="S1", lines=["明日から更に寒くなるみたいなので路面凍結気をつけないとですね"]),
        Turn(speaker="S3", lines=["雪の日の運転怖いですね"]),
    ],
    reference=[
        Turn(speaker="S2", lines=["あ、明日って今日より寒いんですか？", "いやですねー"]),
        Turn(speaker="S1", lines=["この間仕事で六甲山にいきましたが最徐行で運転しました"]),
        Turn(speaker="S2", lines=["わお、地面凍ってました？"]),
        Turn(speaker="S3", lines=["しばらく寒いですね"]),
        Turn(
            speaker="S1",
            lines=[
                "幸い天気が良かったので凍結まではいってなかったです！",
                "それでも慣れない雪山だったので緊張しました(笑)",
            ],
        ),
    ],
)
"""Seed 001's continuation example: 「5つの発話」 are five labelled turns of seven lines."""


def test_continuation_extraction_of_the_seed_example() -> None:
    got = extract_reply(CONTINUATION, CONTINUATION.reference_text)
    assert got.ok and not got.cut
    assert got.reply == CONTINUATION.reference_text
    assert [t.speaker for t in got.turns] == ["S2", "S1", "S2", "S3", "S1"]
    assert got.plain == CONTINUATION.reference_plain
    assert got.plain.count("\n") == 6
    row = got.as_row(CONTINUATION)
    assert row["extracted"] and row["turns"] == row["n_turns"] == 5


def test_continuation_extraction_rules() -> None:
    more = CONTINUATION.reference_text + "\nS2: まだ続きます"
    got = extract_reply(CONTINUATION, more)
    assert got.ok and got.cut and len(got.turns) == 5 and "まだ続きます" not in got.reply
    merged = extract_reply(CONTINUATION, "S1: 寒いですね\nS1: ほんとに\nS2: ですね")
    assert [t.lines for t in merged.turns] == [["寒いですね", "ほんとに"], ["ですね"]]
    assert merged.ok and merged.as_row(CONTINUATION)["turns"] == 2  # fewer than 5: still ok
    assert extract_reply(CONTINUATION, "ｓ１：さむい").reply == "S1: さむい"
    unknown = extract_reply(CONTINUATION, "S1: 寒いですね\nS4: 私も")
    assert not unknown.ok and unknown.error is not None and "'S4'" in unknown.error
    late = extract_reply(CONTINUATION, CONTINUATION.reference_text + "\nS4: 範囲外")
    assert late.ok and late.cut  # a stranger after the kept turns does not matter
    preamble = extract_reply(CONTINUATION, "続きです。\nS1: 寒いですね")
    assert not preamble.ok and preamble.error == "text before the first speaker label"
    assert not extract_reply(CONTINUATION, "S1:\nS2:").ok


def test_every_bundled_reference_extracts_to_itself() -> None:
    """The human references pass the same post-processing as the systems' outputs."""
    for item in iter_tasks(TASKS_FILE):
        got = extract_reply(item, item.reference_text)
        assert got.ok and got.reply == item.reference_text, item.id
        assert got.plain == item.reference_plain


# ---------------------------------------------------------------------------- ROUGE rows


def test_score_rows() -> None:
    row = score_output(SEED_ITEM, SEED_OUTPUT)
    assert row["extracted"] and row["task"] == "next_utterance"
    assert row["rouge1"] == row["rouge2"] == row["rougeL"] == pytest.approx(1.0)
    failed = score_generated(SEED_ITEM, {"generate": {"text": "USER: はい"}})
    assert failed["extracted"] is False and failed["reply"] == ""
    assert failed["rouge1"] == failed["rouge2"] == failed["rougeL"] == 0.0
    assert score_output(SEED_ITEM, None)["extraction_error"] == "empty output"
    partial = score_output(SEED_ITEM, "はい！カレーは大好きです")
    assert 0.0 < partial["rouge1"] < 1.0
    # a continuation's labels are not counted: other speakers, the same words, full marks
    swapped = CONTINUATION.reference_text.replace("S1:", "S9:").replace("S3:", "S1:")
    swapped = swapped.replace("S9:", "S3:")
    row = score_output(CONTINUATION, swapped)
    assert row["extracted"] and row["rougeL"] == pytest.approx(1.0)


# ---------------------------------------------------------------------------- human ranks


def _rankings(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    return _write(tmp_path / "ranks.jsonl", rows)


def test_human_rankings_mean_rank(tmp_path: Path) -> None:
    rows = [
        {"id": "i1", "annotator": "a1", "ranks": {"x": 1, "y": 2, "z": 3}},
        {"id": "i1", "annotator": "a2", "ranks": {"x": 2, "y": 1, "z": 3}},
        {"id": "i2", "annotator": "a1", "ranks": {"x": 1, "y": 3, "z": 2}},
    ]
    table = mean_ranks(iter_rankings(_rankings(tmp_path, rows), items={"i1", "i2"}))
    assert list(table) == ["x", "y", "z"]  # best first
    assert table["x"]["mean_rank"]["value"] == pytest.approx(4 / 3)
    assert table["x"]["mean_rank"]["n"] == table["x"]["n"] == 3
    assert table["y"]["median"] == 2.0
    assert table["y"]["variance"] == pytest.approx(1.0)  # sample variance of 2, 1, 3
    csv = tmp_path / "ranks.csv"
    csv.write_text("id,annotator,x,y,z\ni1,a1,1,2,3\ni1,a2,2,1,3\ni2,a1,1,3,2\n", "utf-8")
    assert mean_ranks(iter_rankings(csv, systems=["x", "y", "z"])) == table


@pytest.mark.parametrize(
    ("second", "kwargs", "field", "expected"),
    [
        ({"x": 1, "y": 1, "z": 3}, {}, "ranks", "rank 1 given to 'x' and 'y'"),
        ({"x": 1, "y": 2, "z": 4}, {}, "ranks", "the ranks 1 to 3"),
        ({"x": 1, "y": 2, "w": 3}, {}, "ranks.w", "the systems ranked on line 1"),
        ({"x": 1, "y": 2}, {}, "ranks", "no rank for 'z'"),
        ({"x": 1, "y": 2, "z": True}, {}, "ranks.z", "whole-number rank"),
        ({"x": 1, "y": 2, "z": 0}, {}, "ranks.z", "greater than or equal to 1"),
        ({"x": 3, "y": 2, "z": 1}, {"systems": ["x", "y", "v"]}, "ranks.z", "systems of the run"),
    ],
)
def test_human_ranking_errors(
    tmp_path: Path, second: dict[str, Any], kwargs: dict[str, Any], field: str, expected: str
) -> None:
    rows = [
        {"id": "i1", "annotator": "a1", "ranks": {"x": 1, "y": 2, "z": 3}},
        {"id": "i2", "annotator": "a1", "ranks": second},
    ]
    path = _rankings(tmp_path, rows)
    with pytest.raises(InputError) as err:
        list(iter_rankings(path, **kwargs))
    line = 1 if "systems" in kwargs else 2
    assert f"{path}:{line}: field '{field}': expected" in str(err.value), str(err.value)
    assert expected in str(err.value)


def test_human_ranking_unknown_item_and_repeat(tmp_path: Path) -> None:
    one = {"id": "i1", "annotator": "a1", "ranks": {"x": 1, "y": 2}}
    path = _rankings(tmp_path, [one, {**one, "id": "i9"}])
    with pytest.raises(InputError, match=r":2: field 'id': expected the id of a task item"):
        list(iter_rankings(path, items={"i1"}))
    path = _rankings(tmp_path, [one, {**one, "ranks": {"x": 2, "y": 1}}])
    with pytest.raises(InputError, match=r":2: field 'annotator'.*already on line 1"):
        list(iter_rankings(path))


# ---------------------------------------------------------------------------- analysis

SYSTEMS = ["CA", "JStable", "youri", "ELYZA", "LLMJp", "nekomata", "GPT3.5", "GPT4"]
SYSTEMS += ["H0", "H1", "H2", "H3", "H4"]
SINGLE = [6.08, 3.35, 2.64, 5.07, 3.62, 3.13, 7.50, 8.13, 7.55, 7.52, 7.23, 7.25, 7.75]
WIN_RATE = [41, 20, 16, 37, 24, 21, 73, 93, 65, 64, 54, 56, 75]
ROUGE_L = [0.178, 0.119, 0.143, 0.182, 0.139, 0.142, 0.169, 0.169, 0.173, 0.200, 0.192]
ROUGE_L += [0.188, 0.193]
ROUGE_L_RANK = [6, 13, 10, 5, 12, 11, 8, 9, 7, 1, 3, 4, 2]
HUMAN_MEAN_RANK = [6.87, 10.78, 11.02, 8.36, 10.43, 10.07, 7.13, 6.13, 4.42, 3.81, 4.20]
HUMAN_MEAN_RANK += [4.58, 3.74]
"""Seed 001's tables: 自動評価結果 (単一評価 String, Rouge-L), 一貫性 (比較評価 %, the
Rouge-L rank column) and 人手評価 (平均順位), in the first table's system order."""


def _scores(values: Sequence[float], drop_gpt: bool = False) -> dict[str, float]:
    return {s: v for s, v in zip(SYSTEMS, values, strict=True) if not (drop_gpt and "GPT" in s)}


def test_system_ranks_reproduce_seed_columns() -> None:
    single = system_ranks(_scores(SINGLE))
    assert [single[s] for s in SYSTEMS] == [8, 11, 13, 9, 10, 12, 5, 1, 3, 4, 7, 6, 2]
    pairwise = system_ranks(_scores(WIN_RATE))
    assert [pairwise[s] for s in SYSTEMS] == [8, 12, 13, 9, 10, 11, 3, 1, 4, 5, 7, 6, 2]
    human = system_ranks(_scores(HUMAN_MEAN_RANK), lower_is_better=True)
    assert human["H4"] == 1 and human["youri"] == 13
    rouge = system_ranks(_scores(ROUGE_L))
    assert rouge["GPT3.5"] == rouge["GPT4"] == 8.5  # .169 both: the seed broke it as 8 and 9


@pytest.mark.parametrize(
    ("values", "drop_gpt", "rho"),
    [
        (SINGLE, False, 0.82),  # seed: 単一評価 0.82
        (WIN_RATE, False, 0.78),  # seed: 比較評価 0.78
        ([-r for r in ROUGE_L_RANK], False, 0.86),  # seed: 簡易評価 0.86 (its rank column)
        (ROUGE_L, True, 0.87),  # seed: 簡易評価 wo GPTs 0.87
        # Not reproduced: the seed reports 0.91 wo GPTs for both 単一評価 and 比較評価, but
        # its tables give 0.93 and 0.95 (the human mean ranks of the 11 others keep their
        # order without GPT-3.5/4; the seed may have re-ranked per item without the GPTs,
        # which its tables cannot show). We report what the tables give.
        (SINGLE, True, 0.93),
        (WIN_RATE, True, 0.95),
        # ROUGE-L values (GPT-3.5 and GPT-4 tied at .169, averaged) give 0.87, not 0.86
        (ROUGE_L, False, 0.87),
    ],
)
def test_spearman_reproduces_seed_001(values: Sequence[float], drop_gpt: bool, rho: float) -> None:
    got = rank_correlation(
        _scores(values, drop_gpt), _scores(HUMAN_MEAN_RANK), y_lower_is_better=True
    )
    assert round(got.rho, 2) == rho
    assert got.n == (11 if drop_gpt else 13)
    assert got.p < 0.01
    assert got.low <= got.rho <= got.high
    assert got.as_dict()["systems"] == [s for s in SYSTEMS if not (drop_gpt and "GPT" in s)]


def test_rank_correlation_orientation_and_errors() -> None:
    same = rank_correlation(_scores(SINGLE), _scores(SINGLE))
    assert same.rho == pytest.approx(1.0)
    flipped = rank_correlation(_scores(SINGLE), _scores(HUMAN_MEAN_RANK))
    assert flipped.rho == pytest.approx(-0.82, abs=0.005)
    with pytest.raises(ValueError, match="3 or more systems"):
        rank_correlation({"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 3.0, "c": 2.0})


def test_task_difficulty_table() -> None:
    rows: list[dict[str, Any]] = [{"task": "next_utterance", "score": s} for s in (7, 6, 5.5)]
    rows += [{"task": "next_speaker", "score": s} for s in (6, 6, None)]
    rows += [{"task": "continuation", "score": s} for s in (5, 6, float("nan"))]
    table = task_difficulty(rows)
    tasks = table["tasks"]
    assert list(tasks) == ["next_utterance", "next_speaker", "continuation"]
    assert tasks["next_utterance"]["value"] == pytest.approx(6.1666, abs=1e-3)
    assert tasks["next_speaker"]["n"] == 2 and tasks["next_speaker"]["missing"] == 1
    assert tasks["continuation"]["value"] == 5.5 and tasks["continuation"]["missing"] == 1
    assert tasks["next_utterance"]["ci_low"] <= 6.17 <= tasks["next_utterance"]["ci_high"]
    assert tasks["next_speaker"]["title"] == "次話者発話生成"
    assert table["decreasing"]
    rows.append({"task": "continuation", "score": 10})
    assert not task_difficulty(rows)["decreasing"]
    with pytest.raises(ValueError, match="task 'chat'"):
        task_difficulty([{"task": "chat", "score": 1}])
