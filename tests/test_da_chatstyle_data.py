"""The chat-style labelled dialogues for the chitchat11 tagger (issue 26, point 1; seed 002 §3).

``chatstyle_train.jsonl`` and ``chatstyle_heldout.jsonl`` hold whole short dialogues, one
utterance a line, in the labelled-set shape (``id``, ``context``, ``reply``, ``act``) plus the
dialogue fields (``dialogue``, ``turn``, ``speaker``, ``topic``, ``prev_act``, ``history``).
The labelling rules are in ``docs/chatstyle_labelling.md``.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from taiwa.annotators.da_classifier.encoder_train import checked_examples
from taiwa.annotators.da_classifier.model import load_examples
from taiwa.core.taxonomies import load_taxonomy

DIR = "data/samples/da_distribution"
SPLITS = {
    "train": "chatstyle_train.jsonl",
    "heldout": "chatstyle_heldout.jsonl",
    "more": "chatstyle_train_more.jsonl",
}
"""``more``: dialogues weighted to the weak acts, written for the next retrain of the default
tagger (not in the shipped model yet; docs/chatstyle_labelling.md)."""
FIELDS = {
    "id",
    "dialogue",
    "turn",
    "speaker",
    "topic",
    "context",
    "prev_act",
    "history",
    "reply",
    "act",
}
ACTS = load_taxonomy("chitchat11").names
# Minimum size of each split: utterances, dialogues, and per-act count where required.
SIZE = {"train": (1200, 120, 40), "heldout": (360, 36, 1)}
# Backchannel-like tokens whose act depends on what they answer (see the labelling guide).
CONTEXT_DEPENDENT = {"あー"}


def _path(split: str) -> Path:
    return Path(str(resources.files("taiwa").joinpath(f"{DIR}/{SPLITS[split]}")))


def _rows(split: str) -> list[dict[str, Any]]:
    text = _path(split).read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _counts(rows: list[dict[str, Any]]) -> str:
    counts = Counter(row["act"] for row in rows)
    return ", ".join(f"{act} {counts[act]}" for act in ACTS)


@pytest.mark.parametrize("split", SPLITS)
def test_loads_with_the_existing_loaders(split: str) -> None:
    rows = _rows(split)
    checked = checked_examples(_path(split))  # `taiwa da train --data` / `validate tagger`
    loaded, sha = load_examples(_path(split))  # the default classifier's reader
    assert len(checked) == len(loaded) == len(rows) and len(sha) == 64
    assert [(e.id, e.context, e.reply, e.act) for e in checked] == [
        (r["id"], r["context"], r["reply"], r["act"]) for r in rows
    ]
    assert checked == loaded


@pytest.mark.parametrize("split", SIZE)
def test_sizes_and_act_counts(split: str) -> None:
    rows = _rows(split)
    n_rows, n_dialogues, per_act = SIZE[split]
    counts = Counter(row["act"] for row in rows)
    dialogues = Counter(row["dialogue"] for row in rows)
    summary = f"{split}: {len(rows)} utterances, {len(dialogues)} dialogues; {_counts(rows)}"
    assert len(rows) >= n_rows, summary
    assert len(dialogues) >= n_dialogues, summary
    assert all(6 <= n <= 14 for n in dialogues.values()), summary
    assert set(counts) <= set(ACTS), summary
    assert all(counts[act] >= per_act for act in ACTS), summary
    # Chit-chat shape: informing, asking and backchannelling dominate, greetings and advice
    # stay rare (the default tagger over-predicted both on real chats, issue 26).
    common = ("身の回りに関する事実", "意見", "質問", "うなずき・おうむ返し")
    assert sum(counts[a] for a in common) >= 0.6 * len(rows), summary
    for rare in ("あいさつ", "アドバイス・注意", "命令・お願い", "提案", "知識", "その他"):
        assert counts[rare] <= 0.06 * len(rows), summary
    assert counts["身の回りに関する事実"] == max(counts.values()), summary


@pytest.mark.parametrize("split", SPLITS)
def test_rows_are_well_formed_dialogues(split: str) -> None:
    rows = _rows(split)
    assert all(set(row) == FIELDS for row in rows)
    ids = [row["id"] for row in rows]
    assert len(set(ids)) == len(ids)
    by_dialogue: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        assert isinstance(row["reply"], str) and row["reply"].strip() == row["reply"] != ""
        assert row["act"] in ACTS and row["speaker"] in ("A", "B"), row["id"]
        assert isinstance(row["topic"], str) and row["topic"], row["id"]
        by_dialogue[row["dialogue"]].append(row)
    for dialogue, turns in by_dialogue.items():
        assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1)), dialogue
        assert {t["speaker"] for t in turns} == {"A", "B"}, dialogue
        for i, t in enumerate(turns):
            assert t["id"] == f"{dialogue}-{t['turn']:02d}"
            assert t["history"] == [p["reply"] for p in turns[:i]], t["id"]
            assert t["context"] == (turns[i - 1]["reply"] if i else ""), t["id"]
            assert t["prev_act"] == (turns[i - 1]["act"] if i else ""), t["id"]


@pytest.mark.parametrize("split", ["train", "more"])
def test_heldout_shares_no_text_with_training_data(split: str) -> None:
    train, held = _rows(split), _rows("heldout")
    shared = {r["reply"] for r in train} & {r["reply"] for r in held}
    assert not shared, f"utterances in both splits: {sorted(shared)}"
    assert not {r["dialogue"] for r in train} & {r["dialogue"] for r in held}
    tidy = {e.reply for e in load_examples()[0]}
    old = sorted({r["reply"] for r in held} & tidy)
    assert not old, f"held-out utterances also in labelled.jsonl: {old}"
    assert not {r["topic"] for r in train} & {r["topic"] for r in held}


@pytest.mark.parametrize("split", SPLITS)
def test_one_label_per_text_and_chat_style(split: str) -> None:
    rows = _rows(split)
    acts: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        acts[row["reply"]].add(row["act"])
    conflicting = {text for text, seen in acts.items() if len(seen) > 1}
    assert conflicting <= CONTEXT_DEPENDENT, sorted(conflicting)
    # Spontaneous-chat style: unpunctuated, short, backchannels and laughter present.
    punctuated = [r["reply"] for r in rows if r["reply"][-1] in "。？?！!"]
    assert not punctuated, punctuated[:10]
    short = sum(len(r["reply"]) <= 6 for r in rows)
    assert short >= 0.2 * len(rows), f"{short} of {len(rows)} replies have <= 6 characters"
    laughs = sum(any(m in r["reply"] for m in ("笑", "w", "はは", "ふふ")) for r in rows)
    assert laughs >= 0.02 * len(rows), f"{laughs} replies with laughter"
    questions = [r for r in rows if r["act"] == "質問"]
    without_ka = sum(not r["reply"].endswith(("か", "かい", "かね")) for r in questions)
    assert without_ka >= 0.8 * len(questions), f"{without_ka} of {len(questions)}"


def test_more_appends_to_the_training_split_cleanly() -> None:
    """``chatstyle_train_more.jsonl`` can be appended to ``chatstyle_train.jsonl`` as it is:
    new dialogue ids and topics, and no text labelled otherwise in the training split."""
    train, more = _rows("train"), _rows("more")
    assert not {r["dialogue"] for r in train} & {r["dialogue"] for r in more}
    assert not {r["topic"] for r in train} & {r["topic"] for r in more}
    acts: dict[str, set[str]] = defaultdict(set)
    for row in train + more:
        acts[row["reply"]].add(row["act"])
    conflicting = {text for text, seen in acts.items() if len(seen) > 1}
    assert conflicting <= CONTEXT_DEPENDENT, sorted(conflicting)
    weak = ("その他", "知識", "アドバイス・注意", "提案", "命令・お願い")
    counts = Counter(r["act"] for r in more)
    assert all(counts[a] >= 10 for a in weak), _counts(more)
