"""Metrics on files: pair records by id, score each, aggregate with n and bootstrap CIs.

This is what ``taiwa score ...`` and the demo run; it reads files through :mod:`taiwa.core.io` and
computes with the pure functions of :mod:`taiwa.metrics`.
"""

from __future__ import annotations

import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taiwa.core.io import InputError, index_by_id, read_records
from taiwa.core.schema import DASequenceRecord, TaggedReply, Taxonomy, TextRecord
from taiwa.metrics import rouge_ja, wed, wlcs
from taiwa.metrics.da_bootstrap import PLUG_IN_FLOORS, act_distribution, distinct_with_bias
from taiwa.metrics.da_steps import ImportanceWarning
from taiwa.metrics.flags import plug_in_flags
from taiwa.metrics.stats import Estimate, bootstrap_ci, majority_vote, mean_estimate
from taiwa.text.tokenizer import default_tokenizer


@dataclass
class Pairing:
    """Ids found in both files, and those found on one side only."""

    common: list[str]
    only_pred: list[str]
    only_gold: list[str]


def _pair_ids(
    pred: dict[str, Any], gold: dict[str, Any], pred_path: Path, gold_path: Path
) -> Pairing:
    common = [k for k in gold if k in pred]
    if not common:
        raise InputError(
            str(pred_path), None, "id", f"at least one id shared with {gold_path}", "no shared id"
        )
    return Pairing(common, [k for k in pred if k not in gold], [k for k in gold if k not in pred])


@dataclass
class FileScores:
    """Per-item rows, the aggregate summary and what could not be scored."""

    items: list[dict[str, Any]]
    summary: dict[str, Any]
    pairing: Pairing | None = None
    notes: list[str] = field(default_factory=list)


def score_da_sequence_files(
    pred_path: str | Path, gold_path: str | Path, taxonomy: Taxonomy, *, seed: int = 0
) -> FileScores:
    """WLCS and WED (with breakdown) for every id in both files (seed 000 §4.1, Table 1)."""
    pred_path, gold_path = Path(pred_path), Path(gold_path)
    ctx = {"taxonomy": taxonomy}
    pred = index_by_id(pred_path, read_records(pred_path, DASequenceRecord, context=ctx))
    gold = index_by_id(gold_path, read_records(gold_path, DASequenceRecord, context=ctx))
    pairing = _pair_ids(pred, gold, pred_path, gold_path)
    items: list[dict[str, Any]] = []
    renormalised = 0
    for rid in pairing.common:
        (p_line, p), (_, g) = pred[rid], gold[rid]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ImportanceWarning)
            try:
                w = wed(p, g)
                score = wlcs(p, g)
            except ValueError as exc:
                raise InputError(
                    str(pred_path), p_line, "steps", f"usable importances: {exc}"
                ) from None
        # one sequence warns once per metric (WED and WLCS both renormalise it): count each
        # side (predicted, gold) of this id once
        renormalised += len(
            {str(c.message).split()[0] for c in caught if issubclass(c.category, ImportanceWarning)}
        )
        items.append(
            {
                "id": rid,
                "wlcs": score,
                "wed": w.total,
                "deletion": w.deletion,
                "insertion": w.insertion,
                "substitution": w.substitution,
                "pred_acts": p.acts,
                "gold_acts": g.acts,
                "alignment": [
                    f"{a.op}:{a.pred_act or '-'}→{a.gold_act or '-'}" for a in w.alignment
                ],
            }
        )
    summary = {
        key: mean_estimate([it[key] for it in items], seed)
        for key in ("wlcs", "wed", "deletion", "insertion", "substitution")
    }
    notes = []
    if renormalised:
        notes.append(f"{renormalised} sequence(s) had importances not summing to 1: renormalised")
    return FileScores(items, summary, pairing, notes)


def _finite(x: float) -> float | None:
    """``x``, or ``None`` for NaN (JSON has no NaN)."""
    return None if x != x else x


def _adopted(votes: list[list[str]] | None, act: str | None, seed: str) -> str | None:
    """The given act, or the seed 002 §3.3 vote (>= 2 votes and the most; ties: seeded draw)."""
    if act is not None:
        return act
    return majority_vote(votes or [], min_votes=2, ties="random", seed=seed)


def score_da_tag_file(path: str | Path, taxonomy: Taxonomy, *, seed: int = 0) -> FileScores:
    """DAE, DAMI and Distinct-1/2 per system from a file of tagged replies (seed 002 §4, App. C)."""
    path = Path(path)
    records = read_records(path, TaggedReply, context={"taxonomy": taxonomy})
    index_by_id(path, records)
    by_system: dict[str, list[TaggedReply]] = defaultdict(list)
    items = []
    unlabelled = 0
    for _, rec in records:
        act = _adopted(rec.votes, rec.act, rec.id)
        prev = _adopted(rec.prev_votes, rec.prev_act, f"{rec.id}/prev")
        if act is None:
            unlabelled += 1
            continue
        by_system[rec.system].append(rec.model_copy(update={"act": act, "prev_act": prev}))
        items.append({"id": rec.id, "system": rec.system, "prev_act": prev, "act": act})
    if not items:
        raise InputError(
            str(path),
            None,
            "act",
            "at least one reply with an act (or >= 2 agreeing votes)",
            "none",
        )
    summary: dict[str, Any] = {}
    bias_notes: list[str] = []
    for system, recs in by_system.items():
        d = act_distribution(
            [str(r.act) for r in recs], [r.prev_act for r in recs], taxonomy.names, seed=seed
        )
        row: dict[str, Any] = {
            "dae": d.dae.as_dict(),
            "dami": {**d.dami.as_dict(), "bias": _finite(d.dami_bias)},
        }
        replies = [r.reply for r in recs if r.reply is not None]
        if replies:
            tok = default_tokenizer()
            tokens = [tok.tokenize(text) for text in replies]
            for k in (1, 2):
                est, bias = distinct_with_bias(tokens, k)
                row[f"distinct{k}"] = {**est.as_dict(), "bias": _finite(bias)}
            row["n_replies"] = len(replies)
        summary[system] = row
        bias_notes += [f"{system} {f.on}: {f.text}" for f in plug_in_flags(row, PLUG_IN_FLOORS)]
    notes = (
        [f"{unlabelled} reply(ies) without an adopted act (< 2 votes) were left out"]
        if unlabelled
        else []
    ) + bias_notes
    return FileScores(items, summary, None, notes)


def score_rouge_files(pred_path: str | Path, ref_path: str | Path, *, seed: int = 0) -> FileScores:
    """Japanese ROUGE-1/2/L F-measures for every id in both files (seed 001, 簡易評価)."""
    pred_path, ref_path = Path(pred_path), Path(ref_path)
    pred = index_by_id(pred_path, read_records(pred_path, TextRecord))
    ref = index_by_id(ref_path, read_records(ref_path, TextRecord))
    pairing = _pair_ids(pred, ref, pred_path, ref_path)
    items = [
        {"id": rid, **rouge_ja(pred[rid][1].text, ref[rid][1].text).as_dict()}
        for rid in pairing.common
    ]
    summary = {
        key: bootstrap_ci([it[key] for it in items], seed=seed).as_dict()
        for key in ("rouge1", "rouge2", "rougeL")
    }
    return FileScores(items, summary, pairing)


def estimate(d: dict[str, Any]) -> Estimate:
    """Back from :meth:`Estimate.as_dict` (for rendering)."""
    return Estimate(d["value"], d["ci_low"], d["ci_high"], d["n"])
