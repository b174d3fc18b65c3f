"""Cohesion evaluation of dialogues (seed 003 §2.3, §3): verdicts, per-agent shares, agreement
with human labels (precision, recall, per-dialogue Pearson correlation)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.progress import Progress

from taiwa.io import index_by_id, read_records
from taiwa.metrics.cohesion import cohesive_utterances
from taiwa.metrics.stats import bootstrap_ci, correlation, paired_bootstrap_ci
from taiwa.resources.association import AssociationResource, Word
from taiwa.schema import Dialogue
from taiwa.text.content_words import is_content
from taiwa.text.tokenizer import MorphAnalyzer, default_tokenizer

AGENT_ROLES = frozenset({"agent", "system"})


def load_dialogues(path: str | Path) -> list[Dialogue]:
    """Dialogue JSONL in the shared schema; ids must be unique."""
    records = read_records(path, Dialogue)
    index_by_id(path, records)
    return [d for _, d in records]


def system_of(dialogue: Dialogue) -> str:
    """The system a dialogue evaluates: ``meta.system``, else ``agent``."""
    return str(dialogue.meta.get("system", "agent"))


def words_of(text: str, analyzer: MorphAnalyzer) -> list[Word]:
    return [Word(t.lemma, t.norm or t.lemma) for t in analyzer.analyze(text) if is_content(t)]


def score_dialogues(
    dialogues: Sequence[Dialogue],
    resource: AssociationResource,
    *,
    d: int = 3,
    strict: bool = False,
    analyzer: MorphAnalyzer | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """One row per utterance: dialogue_id, index, role, cohesive, conditions, pairs (+ label)."""
    tok = analyzer or default_tokenizer()
    rows: list[dict[str, Any]] = []
    with Progress(disable=not show_progress, transient=True) as progress:
        task = progress.add_task("cohesion", total=len(dialogues))
        for dlg in dialogues:
            roles = [u.role for u in dlg.utterances]
            words = [words_of(u.text, tok) for u in dlg.utterances]
            for v, utt in zip(
                cohesive_utterances(roles, words, resource, d=d, strict=strict),
                dlg.utterances,
                strict=True,
            ):
                row: dict[str, Any] = {
                    "dialogue_id": dlg.id,
                    "system": system_of(dlg),
                    "index": v.index,
                    "role": v.role,
                    "cohesive": v.cohesive,
                    "conditions": v.conditions,
                    "pairs": [
                        {
                            "between": [ln.a, ln.b],
                            "w1": ln.w1,
                            "w2": ln.w2,
                            "kind": ln.kind,
                            "score": round(ln.score, 4),
                        }
                        for ln in v.links[:5]
                    ],
                }
                if utt.correct is not None:
                    row["correct"] = utt.correct
                rows.append(row)
            progress.advance(task)
    return rows


def _share(given: np.ndarray, hit: np.ndarray) -> float:
    """Of the items where ``given`` holds, the share where ``hit`` holds too (NaN if none)."""
    total = given.sum()
    return float((given * hit).sum() / total) if total else float("nan")


def summarize(rows: Sequence[dict[str, Any]], *, seed: int = 0) -> dict[str, Any]:
    """Per system: share of agent utterances judged cohesive (seed 003 Table 3's 評価値) with
    n and CI; with labels, the human rate, precision A/B and recall A/C; and the per-dialogue
    Pearson correlation of cohesive rate with the human rate (all dialogues, and agents only)."""
    agent_rows = [r for r in rows if r["role"] in AGENT_ROLES]
    by_system: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in agent_rows:
        by_system[r["system"]].append(r)
    systems: dict[str, Any] = {}
    for system, rs in by_system.items():
        entry: dict[str, Any] = {
            "cohesive_share": bootstrap_ci([float(r["cohesive"]) for r in rs], seed=seed).as_dict()
        }
        labelled = [r for r in rs if "correct" in r]
        if labelled:
            judged = [float(r["cohesive"]) for r in labelled]
            correct = [float(r["correct"]) for r in labelled]
            entry["human_rate"] = bootstrap_ci(correct, seed=seed).as_dict()
            # seed 003 §3.2: precision A/B (cohesive and correct / cohesive), recall A/C
            # (cohesive and correct / correct), resampled over the labelled utterances
            entry["precision"] = paired_bootstrap_ci(judged, correct, _share, seed=seed).as_dict()
            entry["recall"] = paired_bootstrap_ci(correct, judged, _share, seed=seed).as_dict()
            entry["n_labelled"] = len(labelled)
        systems[system] = entry
    summary: dict[str, Any] = {
        "n_utterances": len(rows),
        "n_agent_utterances": len(agent_rows),
        "systems": systems,
    }
    per_dialogue: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in agent_rows:
        if "correct" in r:
            per_dialogue[r["dialogue_id"]].append(r)
    points = [
        (
            rs[0]["system"],
            sum(r["cohesive"] for r in rs) / len(rs),
            sum(r["correct"] for r in rs) / len(rs),
        )
        for rs in per_dialogue.values()
    ]
    for key, pts in (("all", points), ("agents_only", [p for p in points if p[0] != "human"])):
        if len(pts) >= 3:
            corr = correlation([p[1] for p in pts], [p[2] for p in pts], "pearson", seed=seed)
            summary[f"correlation_{key}"] = {
                "r": corr.r,
                "p": corr.p,
                "n": corr.n,
                "ci_low": corr.low,
                "ci_high": corr.high,
            }
    return summary
