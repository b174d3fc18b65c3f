"""Scoring of da-response (seed 000 §4.1–§4.2): Weighted LCS and WED with its breakdown per
reply, aggregated as in Table 1 (mean, SD, 95 % CI, n) with Table 2's representative examples."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from taiwa.benchmarks.da_response.audio import ASRTally, asr_row
from taiwa.benchmarks.da_response.dataset import DAResponseItem
from taiwa.core.schema import DASequence
from taiwa.harness.method import Row, Upstream
from taiwa.metrics import wed, wlcs
from taiwa.metrics.stats import mean_estimate

PARTS = ("deletion", "insertion", "substitution")
METRICS = ("wlcs", "wed", *PARTS)


def _steps(seq: DASequence) -> list[dict[str, Any]]:
    return [{"act": s.act, "importance": round(s.importance, 4)} for s in seq.steps]


def score_reply(sample: DAResponseItem, upstream: Upstream) -> Row:
    """WLCS and WED of the annotated reply against the item's gold sequence, with WED's
    breakdown and its alignment (``[edit, reply step, gold step, cost]``: the item view draws
    it, issue 43)."""
    pred = DASequence.model_validate({"steps": upstream["annotate"]["steps"]})
    w = wed(pred, sample.gold)
    return asr_row(sample, upstream["generate"]) | {
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
        "alignment": [[a.op, a.pred_index, a.gold_index, round(a.cost, 6)] for a in w.alignment],
    }


def system_block(rows: Iterable[Row], seed: int) -> dict[str, Any]:
    """Table 1 for one system: every metric's mean [CI], SD and n; Table 2's examples; for a
    cascade heard in audio mode, the ASR character error rate (one pass over the rows)."""
    values: dict[str, list[float]] = {k: [] for k in METRICS}
    picks: dict[str, Row] = {}
    asr = ASRTally()
    for row in rows:
        for k in METRICS:
            values[k].append(row[k])
        _pick(picks, row)
        asr.add(row)
    if not picks:
        return {}
    block: dict[str, Any] = {k: mean_estimate(v, seed) for k, v in values.items()}
    block.update(asr.block(seed))
    block["examples"] = representative_examples(picks)
    return block


def _pick(picks: dict[str, Row], row: Row) -> None:
    """Keep the first row with the largest insertion, deletion, substitution and the smallest
    WED seen so far."""
    for part in PARTS:
        best = picks.get(f"max_{part}")
        if best is None or row[part] > best[part]:
            picks[f"max_{part}"] = row
    best = picks.get("min_wed")
    if best is None or row["wed"] < best["wed"]:
        picks["min_wed"] = row


def representative_examples(picks: Mapping[str, Row]) -> dict[str, dict[str, Any]]:
    """Seed 000 Table 2: the rows with maximal insertion, deletion, substitution and minimal WED
    (as :func:`_pick` found them).

    A "max" profile is left out when no row has that cost at all."""
    keep = ("id", "input", "gold_text", "gold_steps", "reply", "pred_steps", "wed", *PARTS)
    out: dict[str, dict[str, Any]] = {}
    for name in ("max_insertion", "max_deletion", "max_substitution", "min_wed"):
        row = picks[name]
        if name == "min_wed" or row[name.removeprefix("max_")] > 0:
            out[name] = {k: row[k] for k in (*keep, "transcript") if k in row}
    return out
