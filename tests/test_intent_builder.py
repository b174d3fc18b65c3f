"""``taiwa build intent`` / ``intent-import`` (seed 004 §2.1–2.3, §3.2): a scripted model on the
stub server end to end (extraction, contexts, LLM and manual filters, sheets, 2-of-3
aggregation, seeded shuffle), the one-line errors of bad sheets, and the demo model."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from taiwa.benchmarks.intent import cli as intent_cli
from taiwa.benchmarks.intent.build_records import Question
from taiwa.benchmarks.intent.builder_prompts import parse_candidates, parse_contexts, parse_verdict
from taiwa.benchmarks.intent.dataset import NONE_OF_THESE, iter_items
from taiwa.benchmarks.intent.prompts import question_text
from taiwa.benchmarks.intent.sheets import aggregate
from taiwa.cli.app import main
from taiwa.core.samples import sample_path
from taiwa.testing.stub_server import StubState, serve

CORPUS = sample_path("intent/corpus.jsonl")
GARBLED = "ic-03"
"""The dialogue whose extraction the scripted model never answers with JSON."""
DIRECT = "ic-05"
"""The dialogue whose written context has a too-direct intent (the LLM filter drops it)."""

_LINE = re.compile(r"^\d+\. (\S+): (.*)$", re.MULTILINE)


def _first_user(body: dict[str, Any]) -> str:
    return str(next(m["content"] for m in body["messages"] if m["role"] == "user"))


def _script(body: dict[str, Any]) -> str:
    """Extraction: utterances 2 and 3 (B then A); contexts: two new ones; filter: drops intents
    marked そのまま. The dialogue id is read back from the utterance text (the corpus's first
    words differ per dialogue), so one dialogue can be made to fail."""
    prompt = _first_user(body)
    if "【対話】" in prompt:
        lines = _LINE.findall(prompt)
        if lines[0][1].startswith(_first_words(GARBLED)):
            return "すみません、うまく抜き出せませんでした。"
        context, core = lines[1][1], lines[2][1]
        return json.dumps(
            {"candidates": [{"context": context, "core": core, "intent": f"意図「{core[:12]}」"}]},
            ensure_ascii=False,
        )
    if "新しい文脈文" in prompt:
        core = re.search(r"A（コア文）: (.*)", prompt)
        assert core is not None
        text = core.group(1)
        direct = any(text.startswith(c) for c in _cores_of(DIRECT))
        contexts = [
            {
                "context": f"場面{k}で「{text[:8]}」と言われたら？",
                "intent": f"別の意図{k}「{text[:8]}」",
            }
            for k in (1, 2)
        ]
        if direct:
            contexts[1]["intent"] = f"そのまま{text[:8]}"
        return "```json\n" + json.dumps({"contexts": contexts}, ensure_ascii=False) + "\n```"
    if "too_direct" in prompt:
        flag = "言外の意図: そのまま" in prompt
        return json.dumps({"too_direct": flag, "unnatural": False, "reason": "scripted"})
    raise AssertionError(prompt[:200])


def _dialogues() -> list[dict[str, Any]]:
    return [json.loads(x) for x in CORPUS.read_text(encoding="utf-8").splitlines() if x.strip()]


def _first_words(dialogue: str) -> str:
    d = next(d for d in _dialogues() if d["id"] == dialogue)
    return str(d["utterances"][0]["text"][:10])


def _cores_of(dialogue: str) -> list[str]:
    d = next(d for d in _dialogues() if d["id"] == dialogue)
    return [" ".join(str(d["utterances"][2]["text"]).split())]


def _taiwa(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, " ".join(out.split()), err  # rich wraps at the terminal width


@pytest.fixture(scope="module")
def stub() -> Iterator[str]:
    with serve(StubState(script=_script)) as url:
        yield url


def _build(
    capsys: pytest.CaptureFixture[str], url: str, out: Path, *extra: str
) -> tuple[int, str, str]:
    return _taiwa(
        capsys,
        "build", "intent", "--corpus", str(CORPUS), "-m", "openai:stub", "--base-url", url,
        "--out", str(out), "--cache-dir", str(out.parent / "cache"), "--concurrency", "4",
        *extra,
    )  # fmt: skip


def _questions(d: Path) -> list[Question]:
    lines = (d / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [Question.model_validate_json(x) for x in lines]


def _fill(d: Path, answer: Callable[[int, Question], int | str]) -> None:
    """Fill every sheet: ``answer(annotator, question)`` is the cell (a 1-based number)."""
    for k in (1, 2, 3):
        path = d / "sheets" / f"annotator{k}.csv"
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.DictReader(fh))
        by_id = {q.id: q for q in _questions(d)}
        for row in rows:
            row["answer"] = str(answer(k, by_id[row["id"]]))
        with path.open("w", encoding="utf-8-sig", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


def test_build_then_import_with_llm_filter(
    stub: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "build"
    code, out, err = _build(capsys, stub, d, "--filter", "llm")
    assert code == 0, err
    record = json.loads((d / "build.json").read_text(encoding="utf-8"))
    counts = record["counts"]
    assert counts["dialogues"] == 10 and counts["extracted"] == 9 and counts["generated"] == 18
    assert counts["unparseable"] == {"extract": 1}
    assert counts["dropped"] == {"llm: too direct": 1}
    assert counts["questions"] == 26 and counts["groups"] == 9
    assert "1 unparseable model output(s)" in out and "1 llm: too direct" in out
    assert "intent-import" in out
    failures = (d / "failures.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(failures[0])["request"] == f"extract:{GARBLED}"

    questions = _questions(d)
    groups: dict[str, list[Question]] = {}
    for q in questions:
        groups.setdefault(q.group, []).append(q)
        assert q.options[-1] == NONE_OF_THESE and len(q.options) <= 4
        assert q.options[q.intended] != NONE_OF_THESE
    for members in groups.values():  # one option list per core sentence, one intent per context
        assert len({tuple(q.options) for q in members}) == 1
        assert sorted(q.intended for q in members) == list(range(len(members)))
    assert any(len(m) == 2 for m in groups.values())  # the group whose context was dropped

    raw = (d / "sheets" / "annotator1.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    q0 = questions[0]
    text = question_text(q0.context, q0.core, q0.options)
    assert text.startswith(
        "以下の対話文を読んで、その後の質問に答えてください。\n\n【対話文】\nB: "
    )
    assert f"A: {q0.core}\n\n【質問】\n発話者 A は、「{q0.core}」と言うことによって、" in text
    assert text.endswith(
        "【選択肢】\n" + "\n".join(f"{k}. {o}" for k, o in enumerate(q0.options, 1))
    )
    assert text in raw.decode("utf-8-sig")

    split, majority = questions[0].id, questions[1].id

    def answer(k: int, q: Question) -> int:
        if q.id == split:
            return k  # 1, 2, 3: all different
        if q.id == majority and k == 3:
            return len(q.options)  # 該当なし, outvoted
        return q.intended + 1

    _fill(d, answer)
    items_path = tmp_path / "items.jsonl"
    code, out, err = _taiwa(capsys, "build", "intent-import", str(d), "--out", str(items_path))
    assert code == 0, err
    assert "25 item(s)" in out and "1 excluded" in out
    items = list(iter_items(items_path))
    by_id = {it.id: it for it in items}
    assert len(items) == 25 and split not in by_id
    m = by_id[majority]
    assert m.gold == questions[1].intended and m.votes == [m.gold, m.gold, len(m.options) - 1]
    assert all("order seed 0" in it.source for it in items)
    meta = json.loads((tmp_path / "items.meta.json").read_text(encoding="utf-8"))
    assert meta["seed"] == 0 and meta["excluded"] == [split]
    assert meta["counts"]["excluded_all_different"] == 1

    again, other = tmp_path / "again.jsonl", tmp_path / "other.jsonl"
    assert _taiwa(capsys, "build", "intent-import", str(d), "--out", str(again))[0] == 0
    assert again.read_bytes() == items_path.read_bytes()
    code, _, _ = _taiwa(
        capsys, "build", "intent-import", str(d), "--out", str(other), "--seed", "1"
    )
    assert code == 0
    order = [it.id for it in iter_items(other)]
    assert order != [it.id for it in items] and sorted(order) == sorted(by_id)

    # filled sheets are never overwritten by accident
    code, _, err = _build(capsys, stub, d)
    assert code == 2 and "--overwrite" in err


def test_manual_filter_review(
    stub: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # wide enough for the whole path: under pytest-xdist tmp_path is longer (popen-gwN/), and
    # at 80 columns rich elides the end of the path, file name included
    monkeypatch.setattr(intent_cli.console.get(), "width", 400)
    d = tmp_path / "build"
    code, out, err = _build(capsys, stub, d, "--filter", "manual", "--contexts", "1")
    assert code == 0, err
    assert "review.csv" in out
    with (d / "review.csv").open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(_questions(d)) == 18
    rows[0]["keep"], rows[1]["keep"], rows[2]["keep"] = "0", "no", "1"
    with (d / "review.csv").open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    _fill(d, lambda k, q: q.intended + 1)
    items = tmp_path / "items.jsonl"
    code, out, err = _taiwa(capsys, "build", "intent-import", str(d), "--out", str(items))
    assert code == 0, err
    assert "16 item(s)" in out and "2 dropped in review.csv" in out
    assert {rows[0]["id"], rows[1]["id"]}.isdisjoint(it.id for it in iter_items(items))

    rows[0]["keep"] = "maybe"
    with (d / "review.csv").open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    code, _, err = _taiwa(capsys, "build", "intent-import", str(d), "--out", str(items))
    assert code == 2 and "review.csv:2: field 'keep'" in err and "'maybe'" in err


@pytest.fixture(scope="module")
def built(stub: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("intent") / "build"
    with pytest.raises(SystemExit) as done:
        main(["build", "intent", "--corpus", str(CORPUS), "-m", "openai:stub", "--base-url", stub,
              "--out", str(d), "--cache-dir", str(d.parent / "cache"), "--limit", "3"])  # fmt: skip
    assert done.value.code == 0
    return d


def _edit_sheet(d: Path, edit: Callable[[list[dict[str, str]]], None]) -> None:
    path = d / "sheets" / "annotator2.csv"
    with path.open(encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    edit(rows)
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _set(row: int, column: str, value: str) -> Callable[[list[dict[str, str]]], None]:
    def edit(rows: list[dict[str, str]]) -> None:
        rows[row][column] = value

    return edit


def _duplicate(rows: list[dict[str, str]]) -> None:
    rows[2]["id"] = rows[0]["id"]


@pytest.mark.parametrize(
    ("edit", "where", "says"),
    [
        (_set(1, "answer", ""), "annotator2.csv:3: field 'answer'", "an empty cell"),
        (_set(0, "answer", "9"), "annotator2.csv:2: field 'answer'", "got '9'"),
        (_set(0, "answer", "二"), "annotator2.csv:2: field 'answer'", "1 to"),
        (_duplicate, "annotator2.csv:4: field 'id'", "again (first in row 2)"),
        (_set(0, "id", "nope"), "annotator2.csv:2: field 'id'", "'nope'"),
    ],
)
def test_bad_sheets_are_one_line_errors(
    built: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[list[dict[str, str]]], None],
    where: str,
    says: str,
) -> None:
    d = tmp_path / "copy"
    _copy(built, d)
    _fill(d, lambda k, q: 1)
    _edit_sheet(d, edit)
    code, _, err = _taiwa(
        capsys, "build", "intent-import", str(d), "--out", str(tmp_path / "i.jsonl")
    )
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert where in err and says in err and str(d / "sheets") in err


def test_wrong_number_of_sheets(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "copy"
    _copy(built, d)
    _fill(d, lambda k, q: 1)
    (d / "sheets" / "annotator3.csv").unlink()
    code, _, err = _taiwa(
        capsys, "build", "intent-import", str(d), "--out", str(tmp_path / "i.jsonl")
    )
    assert code == 2 and "expected the 3 sheets" in err and "annotator3.csv" in err


def _copy(src: Path, dst: Path) -> None:
    import shutil

    shutil.copytree(src, dst)


def test_aggregate_two_of_three() -> None:
    assert aggregate([1, 1, 0]) == 1 and aggregate([2, 2, 2]) == 2
    assert aggregate([0, 1, 2]) is None and aggregate([]) is None
    assert aggregate([0, 0, 1, 1]) is None and aggregate([3, 3, 1, 0]) == 3


def test_reply_parsers() -> None:
    entry = {"context": "雨ですね", "core": "傘を忘れました", "intent": "傘を貸してほしい"}
    fenced = "前置き\n```json\n" + json.dumps({"candidates": [entry]}, ensure_ascii=False) + "\n```"
    [c] = parse_candidates(fenced)
    assert (c.context, c.core, c.intent) == ("雨ですね", "傘を忘れました", "傘を貸してほしい")
    with pytest.raises(ValueError, match="copies the example"):
        parse_candidates('{"candidates": [{"context": "文脈文", "core": "a", "intent": "b"}]}')
    with pytest.raises(ValueError, match="at least one"):
        parse_contexts('{"contexts": []}')
    with pytest.raises(ValueError, match="too_direct"):
        parse_verdict('{"too_direct": "yes", "unnatural": false}')
    assert parse_verdict('{"too_direct": true, "unnatural": false}').too_direct


@pytest.mark.slow
def test_demo_model_builds_sheets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The embedded demo LLM on 2 short dialogues: whatever it writes, the build counts it and
    writes the sheets."""
    corpus = tmp_path / "corpus.jsonl"
    short = [{**d, "utterances": d["utterances"][:4]} for d in _dialogues()[:2]]
    corpus.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in short), "utf-8")
    d = tmp_path / "build"
    code, out, err = _taiwa(
        capsys,
        "build", "intent", "--corpus", str(corpus), "-m", "demo", "--out", str(d),
        "--cache-dir", str(tmp_path / "cache"), "--per-dialogue", "1", "--contexts", "1",
        "--attempts", "1", "--max-tokens", "96",
    )  # fmt: skip
    assert code == 0, err
    counts = json.loads((d / "build.json").read_text(encoding="utf-8"))["counts"]
    assert counts["dialogues"] == 2
    assert counts["extracted"] + counts["unparseable"].get("extract", 0) == 2
    assert counts["questions"] <= counts["extracted"] + counts["generated"]
    for k in (1, 2, 3):
        assert (d / "sheets" / f"annotator{k}.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert "dialogue(s)" in out


@pytest.mark.parametrize(
    "record",
    ["[" * 100_000 + "]" * 100_000, '{"annotators": 1000000000}', '{"annotators": "3"}'],
    ids=["deeply-nested", "a-billion-sheets", "a-string"],
)
def test_broken_build_record(
    record: str, built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25: build.json nested 100,000 deep or asking for a billion sheets is one line
    naming the file, before anything is allocated."""
    d = tmp_path / "copy"
    _copy(built, d)
    (d / "build.json").write_text(record, encoding="utf-8")
    code, _, err = _taiwa(
        capsys, "build", "intent-import", str(d), "--out", str(tmp_path / "i.jsonl")
    )
    assert code == 2 and len(err.strip().splitlines()) == 1 and "build.json" in err, err
