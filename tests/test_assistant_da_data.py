"""The bundled sentence-labelled assistant replies (issue 16): the offline annotator's training,
held-out and gold-vs-flawed files have the shape, size and coverage the issue asks for."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from taiwa.benchmarks.da_response import shipped_annotator
from taiwa.core.samples import sample_path
from taiwa.core.taxonomies import load_taxonomy

ACTS = set(load_taxonomy("assistant7").names)


def _rows(name: str) -> list[dict[str, Any]]:
    path: Path = sample_path(name)
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _labelled(output: dict[str, Any], acts: dict[str, Any], where: str) -> list[str]:
    steps = acts["steps"]
    assert steps, where
    joined = "".join(s["sentence"] for s in steps)
    assert re.sub(r"\s", "", joined) == re.sub(r"\s", "", output["text"]), where
    assert math.isclose(sum(s["importance"] for s in steps), 1.0, abs_tol=1e-6), where
    assert all(0 <= s["importance"] <= 1 for s in steps), where
    assert {s["act"] for s in steps} <= ACTS, where
    return [s["act"] for s in steps]


@pytest.mark.parametrize(
    ("name", "prefix", "least"),
    [
        (shipped_annotator.TRAIN, "at", 600),
        (shipped_annotator.HELD_OUT, "ah", 100),
        (shipped_annotator.VARIED_HELD_OUT, "aw", 80),
    ],
)
def test_labelled_replies(name: str, prefix: str, least: int) -> None:
    rows = _rows(name)
    assert len(rows) >= least
    assert len({r["id"] for r in rows}) == len(rows)
    counts: Counter[str] = Counter()
    for r in rows:
        assert r["id"].startswith(prefix)
        counts.update(_labelled(r["output"], r["output_dialogue_acts"], r["id"]))
    assert set(counts) == ACTS
    if name == shipped_annotator.TRAIN:
        assert min(counts.values()) >= 40, counts


def test_varied_split_asks_many_questions_in_many_ways() -> None:
    """Issue 26: the varied held-out split has at least 25 Question steps, and its questions end
    in ？, in か。 and in nothing (speech transcripts)."""
    questions = [
        s["sentence"]
        for r in _rows(shipped_annotator.VARIED_HELD_OUT)
        for s in r["output_dialogue_acts"]["steps"]
        if s["act"] == "Question"
    ]
    assert len(questions) >= 25
    endings = Counter(
        "?" if q[-1] in "?？" else "." if q[-1] == "。" else "none" for q in questions
    )
    assert min(endings[k] for k in ("?", ".", "none")) >= 5, endings


@pytest.mark.parametrize(
    ("name", "least"),
    [
        (shipped_annotator.ALTERNATIVES, 50),
        (shipped_annotator.VARIED_ALTERNATIVES, 25),
        (shipped_annotator.PROBE_ALTERNATIVES, 30),
    ],
)
def test_alternatives(name: str, least: int) -> None:
    rows = _rows(name)
    assert len(rows) >= least
    kinds: Counter[str] = Counter()
    for r in rows:
        variants = r["alternatives"]
        assert [v["kind"] for v in variants].count("gold") == 1, r["id"]
        assert 2 <= len(variants) <= 4, r["id"]
        for v in variants:
            kinds[v["kind"]] += 1
            _labelled(v["output"], v["output_dialogue_acts"], r["id"])
    assert {"missing", "redundant", "substituted"} <= set(kinds)


def test_no_overlap_with_the_benchmark_items() -> None:
    bench = _rows("da_response/gold.jsonl")
    bench_texts = {r["output"]["text"] for r in bench} | {r["input"]["text"] for r in bench}
    mine = _rows(shipped_annotator.TRAIN) + _rows(shipped_annotator.HELD_OUT)
    texts = {r["output"]["text"] for r in mine}
    assert not texts & bench_texts
    alt_texts = {
        v["output"]["text"]
        for name in (
            shipped_annotator.ALTERNATIVES,
            shipped_annotator.VARIED_ALTERNATIVES,
            shipped_annotator.PROBE_ALTERNATIVES,
        )
        for r in _rows(name)
        for v in r["alternatives"]
    }
    assert not alt_texts & bench_texts
    train = {r["output"]["text"] for r in _rows(shipped_annotator.TRAIN)}
    held = {
        r["output"]["text"]
        for name in (shipped_annotator.HELD_OUT, shipped_annotator.VARIED_HELD_OUT)
        for r in _rows(name)
    } | alt_texts
    assert not train & held


def test_probe_split_holds_the_two_failures_of_issue_38() -> None:
    """The probe split (issue 38) pits content-free reactions against answers and actions, and
    gold replies of two questions against their flawed variants; its prompts are not training
    prompts."""
    rows = _rows(shipped_annotator.PROBE_ALTERNATIVES)
    assert all(r["id"].startswith("aq") for r in rows)
    pairs = sum(len(r["alternatives"]) - 1 for r in rows)
    assert pairs >= 60
    golds = [
        [s["act"] for s in v["output_dialogue_acts"]["steps"]]
        for r in rows
        for v in r["alternatives"]
        if v["kind"] == "gold"
    ]
    assert sum(g.count("Question") + g.count("Check-Question") >= 2 for g in golds) >= 15
    reactions = [
        v
        for r in rows
        for v in r["alternatives"]
        if v["kind"] == "substituted"
        and [s["act"] for s in v["output_dialogue_acts"]["steps"]] == ["Inform"]
    ]
    assert len(reactions) >= 10
    train_inputs = {r["input"]["text"] for r in _rows(shipped_annotator.TRAIN)}
    assert not {r["input"]["text"] for r in rows} & train_inputs
