"""The item view's data and ``taiwa show`` (issue 43): every method records each item once, the
item records read from a run say what its stage files say (metrics, states, WED's alignment,
the judge's flips, the tagger's probabilities), the filters of ``taiwa show`` list exactly the
items the stage files name, and an item prints at 80 columns without a line cut or broken.
The browser side is ``test_item_view_browser.py``."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from cli import taiwa_main
from item_runs import build_item_runs, by_system, flipped_pairs, rows
from taiwa.benchmarks import get_method
from taiwa.display.ja_wrap import NO_START, break_offsets, unbreakable
from taiwa.harness.evidence import item_evidence
from taiwa.harness.item_records import ItemRecord, item_records, prompt_note
from taiwa.harness.run_reader import load_run

RUNS = ["da-response", "chitchat-flips", "da-distribution", "cohesion", "intent", "prompts"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_item_runs(tmp_path_factory.mktemp("items"))


def _records(run: Path) -> dict[str, ItemRecord]:
    data = load_run(run)
    return {r.id: r for r in item_records(data, item_evidence(get_method(data.method)))}


@pytest.mark.parametrize("name", RUNS)
def test_each_item_is_recorded_once_and_read_back(runs: dict[str, Path], name: str) -> None:
    run = runs[name]
    recorded = [r["id"] for r in rows(run / "items.jsonl")]
    scored = {r["id"] for r in rows(run / "scores.jsonl")} if name != "da-distribution" else set()
    assert len(recorded) == len(set(recorded)) and (not scored or set(recorded) == scored)
    records = _records(run)
    assert list(records) == recorded
    summary = json.loads((run / "summary.json").read_text("utf-8"))
    for rec in records.values():
        assert rec.blocks, (name, rec.id)  # the input, context or gold
        assert set(rec.systems) <= set(summary["systems"])
        if name != "cohesion":
            assert rec.prompt and rec.prompt[-1][1], (name, rec.id)  # the prompt rebuilt


def test_the_records_say_what_the_stage_files_say(runs: dict[str, Path]) -> None:
    intent = _records(runs["intent"])
    for system, correct in by_system(runs["intent"] / "scores.jsonl", "correct").items():
        for ident, value in correct.items():
            assert intent[ident].systems[system].metrics["correct"] == float(value)
    chosen = by_system(runs["intent"] / "scores.jsonl", "choice")
    for system, choices in chosen.items():
        for ident, choice in choices.items():
            assert intent[ident].systems[system].imputed is (choice is None)
    da = _records(runs["da-distribution"])
    for r in rows(runs["da-distribution"] / "tags.jsonl"):
        for system, act in r["acts"].items():
            got = da[r["id"]].systems[system]
            assert got.splits["act"] == act
            assert got.metrics["prob"] == pytest.approx(r["probs"][system])
            assert 0 < r["probs"][system] <= 1
    chitchat = _records(runs["chitchat-flips"])
    flips = flipped_pairs(runs["chitchat-flips"])
    assert any(flips.values()) and not all(flips.values())  # some items flip, some do not
    for ident, pairs in flips.items():
        for system, part in chitchat[ident].systems.items():
            assert ("flip" in part.flags) == any(system in p for p in pairs)


def test_the_wed_alignment_adds_up_to_the_breakdown(runs: dict[str, Path]) -> None:
    """The score row's alignment (what the item view draws) costs what its breakdown says."""
    for run in (runs["da-response"], runs["da-response-2"]):
        for r in rows(run / "scores.jsonl"):
            ops = r["alignment"]
            assert len([o for o in ops if o[0] != "insertion"]) == len(r["pred_steps"])
            assert len([o for o in ops if o[0] != "deletion"]) == len(r["gold_steps"])
            for part in ("deletion", "insertion", "substitution"):
                drawn = sum(o[3] for o in ops if o[0] == part)
                assert drawn == pytest.approx(r[part], abs=1e-5), (r["id"], part)
            assert sum(o[3] for o in ops) == pytest.approx(r["wed"], abs=1e-5)


def _show(*args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    """``taiwa show`` in an 80-column terminal (or ``columns``)."""
    return subprocess.run(
        [sys.executable, "-m", "taiwa", "show", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": str(columns)},
    )


@pytest.mark.parametrize("name", RUNS)
def test_show_prints_an_item_at_80_columns_without_a_broken_line(
    runs: dict[str, Path], name: str
) -> None:
    run = runs[name]
    records = _records(run)
    rec = next(iter(records.values()))
    out = _show(str(run), rec.id)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(cell_len(x) for x in lines) <= 80
    # Japanese wraps by its rules: no line (nor a table cell's line) starts with 。、」 or っ,
    # the item's nor the list's
    listed = _show(str(run), "--limit", "30")
    assert listed.returncode == 0, listed.stderr
    every = lines + listed.stdout.splitlines()
    assert max(cell_len(x) for x in every) <= 80
    starts = [(x, c.strip()) for x in every for c in re.split(r"[│┃]", x) if c.strip()]
    assert not [x for x, c in starts if c[0] in NO_START]
    for system in rec.systems:  # each system's part under its own whole name
        assert any(x.startswith(system) for x in lines), system
    flat = re.sub(r"[\s│┃┏┓┗┛┡┩└┘┌┐━─╇┳┻┼]+", "", out.stdout)
    for part in rec.systems.values():  # each reply printed whole, nothing cut
        if part.reply:
            assert re.sub(r"\s+", "", part.reply) in flat, (name, part.system)
    assert rec.id in out.stdout


def test_show_filters_list_what_the_scores_say(runs: dict[str, Path]) -> None:
    intent = runs["intent"]
    correct = by_system(intent / "scores.jsonl", "correct")
    wanted = sorted(
        i for i, ok in correct["builtin:random"].items() if not ok and correct["human"].get(i)
    )
    out = taiwa_main(
        "show",
        str(intent),
        "--filter",
        "wrong=builtin:random",
        "--filter",
        "right=human",
        "--limit",
        "500",
    )
    assert out.returncode == 0, out.stderr
    listed = re.findall(r"^│ (it-\d+)", out.stdout, re.M)
    assert sorted(listed) == wanted and f"{len(wanted)} of 99 items" in out.stdout
    # lower is better for WED: better=A,B lists the items where A's WED is below B's
    da = runs["da-response"]
    wed = by_system(da / "scores.jsonl", "wed")["builtin:fixed"]
    out = taiwa_main("show", str(da), "--filter", "wed>=1", "--sort", "score:asc")
    listed = re.findall(r"^│ (dr\d+)", out.stdout, re.M)
    assert listed == sorted((i for i, v in wed.items() if v >= 1), key=lambda i: (wed[i], i))


def test_the_list_stacks_rather_than_squeeze_its_text(runs: dict[str, Path]) -> None:
    """When the systems' names leave the text little room (long names, a replay named by its
    file's path; here a 40-column terminal), the list keeps eight characters of each item's
    text on its line and stacks the other systems in a part whose '(continued, 2 of 2)' stands
    whole on its own line."""
    records = _records(runs["intent"])
    out = _show(str(runs["intent"]), "--limit", "5", columns=40)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(cell_len(x) for x in lines) <= 40
    for rec in list(records.values())[:5]:
        line = next(x for x in lines if x.startswith(rec.id))
        assert rec.title[:8] in line, (rec.id, line)
    assert "(continued, 2 of 2)" in lines


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--filter", "nosuch"], "--filter 'nosuch': expected one of failed"),
        (["--filter", "wrong=gpt"], "'gpt' is not a system of the run"),
        (["--metric", "wed"], "--metric 'wed': not a per-item metric of this method (correct)"),
        (["--sort", "diff=human"], "--sort 'diff=human': expected order, score or diff=A,B"),
        (["--system", ""], "--system: '' is not a system of the run"),
        (["it-999"], "no item 'it-999' in this run (99 items)"),
    ],
)
def test_show_refuses_what_it_cannot_read_in_one_line(
    runs: dict[str, Path], args: list[str], says: str
) -> None:
    out = taiwa_main("show", str(runs["intent"]), *args)
    assert out.returncode != 0 and says in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_the_prompt_note_says_when_the_run_s_templates_differ(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    import shutil

    run = tmp_path / "intent"
    shutil.copytree(runs["intent"], run)
    method = get_method("intent")
    assert prompt_note(load_run(run), method).startswith("the prompt as sent")
    config = json.loads((run / "config.json").read_text("utf-8"))
    config["prompt_sha256"]["question"] = "0" * 64
    (run / "config.json").write_text(json.dumps(config), "utf-8")
    note = prompt_note(load_run(run), method)
    assert "differ" in note and "question" in note


def test_a_run_without_item_records_and_a_damaged_row(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """A run written before items were recorded shows its items without their input; a row
    the declaration cannot read is one line naming the files and the item."""
    import shutil

    old = tmp_path / "old"
    shutil.copytree(runs["intent"], old)
    (old / "items.jsonl").unlink()
    config = json.loads((old / "config.json").read_text("utf-8"))
    del config["stage_files"]["item"]
    (old / "config.json").write_text(json.dumps(config), "utf-8")
    records = _records(old)
    assert len(records) == 99 and all(not r.blocks and not r.prompt for r in records.values())
    assert records["it-001"].systems["human"].metrics["correct"] == 1.0
    out = taiwa_main("show", str(old), "it-001")
    assert out.returncode == 0 and "options, gold" not in out.stdout
    bad = tmp_path / "bad"
    shutil.copytree(runs["intent"], bad)
    lines = (bad / "items.jsonl").read_text("utf-8").splitlines()
    lines[2] = lines[2].replace('"options": [', '"choices": [')  # the reader passes it
    (bad / "items.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    out = taiwa_main("show", str(bad), "it-003")
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "the rows of item 'it-003' are not as taiwa wrote them" in out.stderr


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        ("返答をしてください。次へ", 10, ["返答をして", "ください。", "次へ"]),
        ("茶色いものばっかりです", 10, ["茶色いもの", "ばっかりで", "す"]),
        ("「はい」と言った", 4, ["「は", "い」", "と", "言っ", "た"]),
        ("reply: アラームです", 12, ["reply: ア", "ラームです"]),
        ("tokens 88 in / 29 out", 12, ["tokens 88 in ", "/ 29 out"]),
        ("。。。。。。", 4, ["。。", "。。", "。。"]),
    ],
)
def test_japanese_wraps_by_its_rules(text: str, width: int, lines: list[str]) -> None:
    """No line starts with a closing mark or a small kana, none ends with an opening bracket;
    Latin words break at spaces; a line the rules cannot break is cut where it is full."""
    cuts = [0, *break_offsets(text, width), len(text)]
    assert [text[a:b] for a, b in itertools.pairwise(cuts)] == lines
    assert all(cell_len(x.rstrip()) <= width for x in lines)
    assert unbreakable("tokens 88") == 6 and unbreakable("ください。") == 4
