"""One row per system output: the seed 001 extraction and the 簡易評価 (ROUGE-1/2/L).

ROUGE compares the extracted reply's lines with the reference's lines, labels left out (a
continuation's ``S1:`` would otherwise match for free), on Japanese tokens
(:func:`taiwa.metrics.overlap.rouge_ja`). An output whose extraction failed scores 0 on every
ROUGE: failures count as failures, never as missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taiwa.benchmarks.chitchat.dataset import ChitchatItem
from taiwa.benchmarks.chitchat.extraction import extract_reply

ROUGE_KEYS = ("rouge1", "rouge2", "rougeL")


def score_output(item: ChitchatItem, output: str | None) -> dict[str, Any]:
    """The row of one output: ``task``, ``extracted``, ``extraction_error``, ``reply``,
    ``turns``, ``n_turns``, ``cut`` (:meth:`Extraction.as_row`) and ``rouge1``, ``rouge2``,
    ``rougeL`` (F-measures; 0.0 when the extraction failed). ``None`` counts as empty."""
    extraction = extract_reply(item, output or "")
    row = extraction.as_row(item)
    if not extraction.ok:
        row.update(dict.fromkeys(ROUGE_KEYS, 0.0))
        return row
    from taiwa.metrics.overlap import rouge_ja  # fugashi: only when scoring

    row.update(rouge_ja(extraction.plain, item.reference_plain).as_dict())
    return row


def score_generated(
    item: ChitchatItem, upstream: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """:func:`score_output` of the ``generate`` stage's ``text`` (a ``LocalStage`` compute)."""
    return score_output(item, upstream["generate"].get("text"))
