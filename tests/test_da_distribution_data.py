"""The original labelled set for the default DA classifier (issue 12, point 5; seed 002 §3)."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources

from taiwa.core.taxonomies import load_taxonomy

ECHO = "うなずき・おうむ返し"
FIELDS = {"id", "context", "reply", "act"}


def _rows() -> list[dict[str, str]]:
    text = (
        resources.files("taiwa")
        .joinpath("data/samples/da_distribution/labelled.jsonl")
        .read_text("utf-8")
    )
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert all(isinstance(row, dict) and set(row) == FIELDS for row in rows)
    return rows


def _shares_substring(reply: str, context: str, n: int = 4) -> bool:
    return any(context[i : i + n] in reply for i in range(len(context) - n + 1))


def test_counts_and_acts() -> None:
    rows = _rows()
    names = load_taxonomy("chitchat11").names
    counts = Counter(row["act"] for row in rows)
    assert len(rows) >= 1200
    assert set(counts) <= set(names)
    assert all(counts[name] >= 60 for name in names), counts


def test_ids_texts_and_pairs() -> None:
    rows = _rows()
    ids = [row["id"] for row in rows]
    assert len(set(ids)) == len(ids)
    assert all(isinstance(row[key], str) and row[key].strip() for row in rows for key in FIELDS)
    pairs = [(row["context"], row["reply"]) for row in rows]
    assert len(set(pairs)) == len(pairs)
    # Outside deliberate echoes, no reply is written twice.
    replies = [
        row["reply"] for row in rows if not (row["act"] == ECHO and row["reply"] == row["context"])
    ]
    assert len(set(replies)) == len(replies)


def test_echoes_repeat_their_context() -> None:
    echoes = [row for row in _rows() if row["act"] == ECHO]
    repeating = [row for row in echoes if _shares_substring(row["reply"], row["context"])]
    assert len(repeating) >= 80
    # The parrot baseline repeats the last utterance verbatim: such replies must be in the set.
    assert sum(row["reply"] == row["context"] for row in echoes) >= 40
