"""Huge texts (issue 10 item 4): the tokenizer survives a million characters, input texts are
bounded by one limit, and tables clip what they show."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console

from taiwa.core.schema import MAX_TEXT_CHARS
from taiwa.display.tables import CLIP

MILLION = """
from taiwa.text.tokenizer import FugashiTokenizer
t = FugashiTokenizer()
tokens = t.analyze("あ" * 1_000_000)
words = t.map_many(["あ" * 1_000_000], {"名詞", "動詞"}, lambda tok: tok.lemma)
surfaces = t.tokenize("今日は晴れ。" * 200_000)
print(len(tokens), len(words[0]), len(surfaces))
"""


def test_tokenizer_survives_a_million_characters() -> None:
    """MeCab crashed the process (SIGSEGV) on "あ" * 1_000_000; long texts now go in chunks."""
    proc = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", MILLION],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    tokens, _, surfaces = map(int, proc.stdout.split())
    assert tokens > 0 and surfaces >= 400_000


def _render(table: object) -> tuple[float, str]:
    console = Console(width=100, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    started = time.perf_counter()
    console.print(table)
    seconds = time.perf_counter() - started
    console.file.close()
    return seconds, console.export_text()


def test_da_response_examples_table_is_clipped() -> None:
    from taiwa.benchmarks.da_response.tables import examples_table, table1

    text = "あ" * MAX_TEXT_CHARS
    steps = [{"act": "Inform" * 1000, "importance": 0.01}] * 500
    example = {
        "id": "i" * MAX_TEXT_CHARS,
        "wed": 1.0,
        "deletion": 0.5,
        "insertion": 0.25,
        "substitution": 0.25,
        "input": text,
        "gold_text": text,
        "reply": text,
        "gold_steps": steps,
        "pred_steps": steps,
    }
    examples = {key: example for key in ("max_insertion", "max_deletion", "min_wed")}
    seconds, out = _render(examples_table(examples, "s" * MAX_TEXT_CHARS))
    assert seconds < 2 and len(out) < 40 * CLIP * 10, (seconds, len(out))
    summary = {"systems": {"s" * MAX_TEXT_CHARS: {"n": 1, "scored": 1}}}
    seconds, out = _render(table1(summary, "t")[0])
    assert seconds < 1 and len(out) < 20 * CLIP


def test_cohesion_tables_are_clipped() -> None:
    from taiwa.benchmarks.cohesion.tables import examples_table, shares_table

    long = "あ" * MAX_TEXT_CHARS
    pair = {"w1": long, "w2": long, "kind": "llr", "between": [0, 1]}
    rows = [
        {
            "dialogue_id": long,
            "index": 1,
            "system": long,
            "cohesive": True,
            "conditions": ["a"],
            "pairs": [pair] * 3,
            "correct": True,
        }
    ] * 4
    seconds, out = _render(examples_table(rows))
    assert seconds < 2 and len(out) < 40 * CLIP * 10, (seconds, len(out))
    estimate = {"value": 0.5, "ci_low": 0.4, "ci_high": 0.6, "n": 3}
    summary = {"systems": {long: {"cohesive_share": estimate, "dialogue_mean": estimate}}}
    seconds, out = _render(shares_table(summary, "t")[0])
    assert seconds < 1 and len(out) < 20 * CLIP


def test_score_tables_are_clipped(tmp_path: Path) -> None:
    from taiwa.cli.file_scoring import FileScores
    from taiwa.cli.score_tables import da_distribution_table
    from taiwa.display.tables import systems_table

    estimate = {"value": 0.5, "ci_low": 0.4, "ci_high": 0.6, "n": 3}
    res = FileScores([], {"x" * MAX_TEXT_CHARS: {"dae": estimate, "dami": estimate}})
    seconds, out = _render(da_distribution_table(res, "t", ("dae", "dami")))
    assert seconds < 1 and len(out) < 20 * CLIP
    summary = {"systems": {"y" * MAX_TEXT_CHARS: {"chars": estimate}}}
    seconds, out = _render(systems_table(summary, "t", {"chars": "chars"}))
    assert seconds < 1 and len(out) < 20 * CLIP
