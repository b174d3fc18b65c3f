"""Terminal tables of cohesion: seed 003 Table 3 as shares per system (pooled and per dialogue,
per condition), agreement with the human labels, correlation, and a few explained verdicts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table

from taiwa.display.tables import ci_cell, clip


def shares_table(summary: Mapping[str, Any], title: str) -> list[Table]:
    """Per system: the cohesive share of agent utterances (pooled, Table 3's 評価値) and the mean
    of the per-dialogue shares, each with n; then the share for which each condition holds."""
    t = Table(title=title, title_justify="left")
    t.add_column("system", no_wrap=True)
    for name in ("utterances", "cohesive", "dialogues", "dialogue mean"):
        t.add_column(name, justify="right", no_wrap=True)
    c = Table(title="Share of agent utterances where each condition holds", title_justify="left")
    c.add_column("system", no_wrap=True)
    for name in ("(a) prior", "(b) posterior", "(c) prior × posterior"):
        c.add_column(name, justify="right", no_wrap=True)
    for system, e in summary["systems"].items():
        cond = e.get("conditions", {})
        t.add_row(
            clip(system),
            str(e["cohesive_share"]["n"]),
            ci_cell(e["cohesive_share"], 2),
            str(e.get("dialogue_mean", {}).get("n", "–")),
            ci_cell(e.get("dialogue_mean"), 2),
        )
        c.add_row(clip(system), *(ci_cell(cond.get(k), 2) for k in "abc"))
    t.caption = (
        "cohesive: pooled share of agent utterances judged cohesive (評価値); dialogue mean: "
        "mean of the per-dialogue shares; 95 % bootstrap CIs in brackets"
    )
    return [t, c]


def agreement_table(summary: Mapping[str, Any]) -> Table:
    """Per system with labels: the human-labelled rate, precision A/B and recall A/C (§3.2)."""
    t = Table(title="Agreement with the human labels (seed 003 §3.2)", title_justify="left")
    t.add_column("system", no_wrap=True)
    for name in ("labelled", "human rate", "precision", "recall"):
        t.add_column(name, justify="right", no_wrap=True)
    for system, e in summary["systems"].items():
        if "precision" in e:
            t.add_row(
                clip(system),
                str(e["n_labelled"]),
                *(ci_cell(e.get(k), 2) for k in ("human_rate", "precision", "recall")),
            )
    return t


def correlation_lines(across: Mapping[str, Any]) -> list[str]:
    """Pearson r of the per-dialogue cohesive share with the human-labelled rate (§3.3)."""
    out = []
    for key, label in (
        ("correlation_all", "all dialogues"),
        ("correlation_agents_only", "without human–human dialogues"),
    ):
        c = across.get(key)
        if c:
            out.append(
                f"Pearson r, per-dialogue cohesive share vs human-labelled rate ({label}): "
                f"{c['r']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}] (n={c['n']} dialogues)"
            )
    return out


def examples_table(examples: Sequence[Mapping[str, Any]]) -> Table:
    """A few agent utterances: verdict, the conditions that hold, the pairs that fired."""
    t = Table(
        title="Why: verdicts of a few agent utterances", title_justify="left", show_lines=True
    )
    for name in (
        "dialogue:index",
        "system",
        "verdict",
        "conditions",
        "pairs (utterances)",
        "label",
    ):
        t.add_column(name, overflow="fold")
    for r in examples:
        pairs = "; ".join(
            f"{p['w1']}–{p['w2']} ({p['kind']}, {p['between'][0]}↔{p['between'][1]})"
            for p in r["pairs"][:3]
        )
        label = "–" if "correct" not in r else ("correct" if r["correct"] else "incorrect")
        t.add_row(
            f"{clip(r['dialogue_id'], 60)}:{r['index']}",
            clip(r["system"]),
            "cohesive" if r["cohesive"] else "not cohesive",
            ",".join(r["conditions"]) or "–",
            clip(pairs) or "–",
            label,
        )
    return t
