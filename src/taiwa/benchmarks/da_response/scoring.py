"""Scoring of da-response (seed 000 §4.1–§4.2): Weighted LCS and WED with its breakdown per
reply, aggregated as in Table 1 (mean, SD, 95 % CI, n) with Table 2's representative examples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from taiwa.benchmarks.da_response.dataset import DAResponseItem
from taiwa.harness.method import Row, Upstream
from taiwa.metrics import wed, wlcs
from taiwa.metrics.stats import mean_estimate
from taiwa.schema import DASequence

PARTS = ("deletion", "insertion", "substitution")
METRICS = ("wlcs", "wed", *PARTS)


def _steps(seq: DASequence) -> list[dict[str, Any]]:
    return [{"act": s.act, "importance": round(s.importance, 4)} for s in seq.steps]


def score_reply(sample: DAResponseItem, upstream: Upstream) -> Row:
    """WLCS and WED of the annotated reply against the item's gold sequence."""
    pred = DASequence.model_validate({"steps": upstream["annotate"]["steps"]})
    w = wed(pred, sample.gold)
    return {
        "input": sample.input.text,
        "reply": upstream["generate"]["text"],
        "gold_text": sample.output.text,
        "wlcs": wlcs(pred, sample.gold),
        "wed": w.total,
        "deletion": w.deletion,
        "insertion": w.insertion,
        "substitution": w.substitution,
        "pred_steps": _steps(pred),
        "gold_steps": _steps(sample.gold),
    }


def system_block(rows: Sequence[Row], seed: int) -> dict[str, Any]:
    """Table 1 for one system: every metric's mean [CI], SD and n; Table 2's examples."""
    if not rows:
        return {}
    block: dict[str, Any] = {k: mean_estimate([r[k] for r in rows], seed) for k in METRICS}
    block["examples"] = representative_examples(rows)
    return block


def representative_examples(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Seed 000 Table 2: the rows with maximal insertion, deletion, substitution and minimal WED.

    A "max" profile is left out when no row has that cost at all."""
    picks = {
        "max_insertion": max(rows, key=lambda r: r["insertion"]),
        "max_deletion": max(rows, key=lambda r: r["deletion"]),
        "max_substitution": max(rows, key=lambda r: r["substitution"]),
        "min_wed": min(rows, key=lambda r: r["wed"]),
    }
    keep = ("id", "input", "gold_text", "gold_steps", "reply", "pred_steps", "wed", *PARTS)
    return {
        name: {k: row[k] for k in keep}
        for name, row in picks.items()
        if name == "min_wed" or row[name.removeprefix("max_")] > 0
    }
