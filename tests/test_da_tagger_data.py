"""The labelled data the default chitchat11 tagger is trained and validated on since issue 38:
real recorded chats (``realchat_*.jsonl``, RealPersonaChat, CC BY-SA 4.0) and system-style
replies to real-chat contexts (``systemstyle_*.jsonl``). Both are split by dialogue: no
dialogue is in two splits, nor in two files; the shipped licence covers them."""

from __future__ import annotations

import json
import tomllib
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from taiwa.annotators.agreement import agreement, cohen_kappa
from taiwa.annotators.da_classifier.encoder_train import checked_examples
from taiwa.annotators.da_classifier.model import load_examples
from taiwa.annotators.da_classifier.recipe import HELD_OUT_FILES, TRAINING_FILES
from taiwa.core.taxonomies import load_taxonomy

DIR = "data/samples/da_distribution"
FILES = {
    "real-train": "realchat_train.jsonl",
    "real-heldout": "realchat_heldout.jsonl",
    "system-train": "systemstyle_train.jsonl",
    "system-heldout": "systemstyle_heldout.jsonl",
}
SECOND = "realchat_second_labeller.jsonl"
MINIMUM = {  # utterances, dialogues (real) or replies (system style)
    "real-train": (2400, 80),
    "real-heldout": (600, 24),
    "system-train": (600, 600),
    "system-heldout": (200, 200),
}
KINDS = ("llm_assistant", "demo_llm", "rule_bot", "template_echo")
ACTS = load_taxonomy("chitchat11").names
HISTORY = 4
"""Earlier utterances a row carries in ``history`` (the last of them is ``context``)."""


def _path(name: str) -> Path:
    return Path(str(resources.files("taiwa").joinpath(f"{DIR}/{name}")))


def _rows(key: str) -> list[dict[str, Any]]:
    text = _path(FILES.get(key, key)).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _counts(rows: list[dict[str, Any]]) -> str:
    counts = Counter(row["act"] for row in rows)
    return ", ".join(f"{act} {counts[act]}" for act in ACTS)


@pytest.mark.parametrize("key", FILES)
def test_loads_with_both_loaders_and_acts_are_valid(key: str) -> None:
    rows = _rows(key)
    checked = checked_examples(_path(FILES[key]))  # `taiwa validate tagger --data`
    loaded, _ = load_examples(_path(FILES[key]))  # the default classifier's reader
    assert checked == loaded and len(loaded) == len(rows)
    assert all(row["act"] in ACTS for row in rows), _counts(rows)
    assert len({row["id"] for row in rows}) == len(rows)
    assert all(e.group == row["dialogue"] for e, row in zip(loaded, rows, strict=True))


@pytest.mark.parametrize("key", FILES)
def test_sizes(key: str) -> None:
    rows = _rows(key)
    n_rows, n_dialogues = MINIMUM[key]
    dialogues = {row["dialogue"] for row in rows}
    summary = f"{key}: {len(rows)} rows, {len(dialogues)} dialogues; {_counts(rows)}"
    assert len(rows) >= n_rows and len(dialogues) >= n_dialogues, summary
    print(summary)


def test_split_by_dialogue_across_every_file() -> None:
    """No dialogue of RealPersonaChat is in two splits or two files (a system-style reply's
    context comes from a dialogue of its own)."""
    seen: dict[str, str] = {}
    for key in FILES:
        for dialogue in {row["dialogue"] for row in _rows(key)}:
            assert dialogue not in seen, f"{dialogue} in {seen.get(dialogue)} and {key}"
            seen[dialogue] = key
    assert len(_rows("real-train")) + len(_rows("real-heldout")) >= 3000


@pytest.mark.parametrize("key", ["real-train", "real-heldout"])
def test_real_chats_are_whole_dialogues_both_speakers_labelled(key: str) -> None:
    by_dialogue: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in _rows(key):
        assert row["reply"].strip() and row["speaker"] in ("A", "B"), row["id"]
        by_dialogue[row["dialogue"]].append(row)
    for dialogue, turns in by_dialogue.items():
        assert dialogue.startswith("rpc"), dialogue
        assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1)), dialogue
        assert {t["speaker"] for t in turns} == {"A", "B"}, dialogue
        for i, t in enumerate(turns):
            before = [p["reply"] for p in turns[:i]]
            assert t["id"] == f"{dialogue}-{t['turn']:02d}"
            assert t["history"] == before[-HISTORY:], t["id"]
            assert t["context"] == (before[-1] if before else ""), t["id"]
            assert t["prev_act"] == (turns[i - 1]["act"] if i else ""), t["id"]


@pytest.mark.parametrize("key", ["system-train", "system-heldout"])
def test_system_style_replies_answer_real_contexts(key: str) -> None:
    rows = _rows(key)
    kinds = Counter(row["kind"] for row in rows)
    assert set(kinds) == set(KINDS), kinds
    assert min(kinds.values()) >= (100 if key == "system-train" else 30), kinds
    for row in rows:
        assert row["dialogue"].startswith("rpc") and row["speaker"] == "system", row["id"]
        assert row["history"] and row["history"][-1] == row["context"] != "", row["id"]
        assert len(row["history"]) <= HISTORY and row["reply"].strip(), row["id"]
    # the kinds users evaluate: assistant-style questions, advice and requests are there
    acts = Counter(row["act"] for row in rows)
    for act in ("質問", "アドバイス・注意", "命令・お願い", "うなずき・おうむ返し", "知識"):
        assert acts[act] >= (20 if key == "system-train" else 10), _counts(rows)


def test_second_labelling_covers_held_out_dialogues_whole() -> None:
    held = {row["id"]: row for row in _rows("real-heldout")}
    second = _rows(SECOND)
    assert len(second) >= 200 and all(set(r) == {"id", "act"} for r in second)
    assert all(r["id"] in held and r["act"] in ACTS for r in second)
    dialogues = {held[r["id"]]["dialogue"] for r in second}
    whole = {i for i, row in held.items() if row["dialogue"] in dialogues}
    assert whole == {r["id"] for r in second}  # whole dialogues, not picked utterances
    figures = agreement({i: r["act"] for i, r in held.items()}, {r["id"]: r["act"] for r in second})
    assert figures["n"] == len(second) and 0.6 <= figures["kappa"] < 1.0, figures
    assert figures["kappa"] < figures["agreement"]  # κ discounts chance agreement


def test_cohen_kappa() -> None:
    assert cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"]) == 1.0
    # observed 0.5, expected 0.5 (each labeller half a, half b): no better than chance
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == 0.0
    # p_o = 35/50 = 0.7; p_e = (35·30 + 15·20) / 50² = 0.54 -> κ = 0.16 / 0.46
    first = ["y"] * 25 + ["y"] * 10 + ["n"] * 5 + ["n"] * 10
    second = ["y"] * 25 + ["n"] * 10 + ["y"] * 5 + ["n"] * 10
    assert cohen_kappa(first, second) == pytest.approx((0.7 - 0.54) / 0.46)
    with pytest.raises(ValueError):
        cohen_kappa(["a"], [])


def test_licence_notes_and_the_package_licence() -> None:
    real = _path("LICENSE_realchat.md").read_text("utf-8")
    system = _path("LICENSE_systemstyle.md").read_text("utf-8")
    for note in (real, system):
        assert "CC BY-SA 4.0" in note and "RealPersonaChat" in note and "Yamashita" in note
    assert all(f"`{name}" in system for name in ("systemstyle_train", "systemstyle_heldout"))
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text("utf-8"))
    assert "CC-BY-SA-4.0" in pyproject["project"]["license"]
    # the recipe names every file with its licence, and the corpus files as CC BY-SA
    licences = {p: lic for p, (_, lic) in TRAINING_FILES.items()}
    licences |= {p: lic for p, _, lic in HELD_OUT_FILES.values()}
    for name in FILES.values():
        assert licences[f"{DIR}/{name}"].startswith("CC-BY-SA-4.0"), name
