"""Terminal tables of da-response: seed 000 Table 1 with the systems as rows, and Table 2's
representative examples per system."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from taiwa.display.tables import ci_cell, clip

PARTS = ("deletion", "insertion", "substitution")

WLCS_NOTE = (
    "WLCS does not penalise missing acts (seed 000 normalises by the reply's own importances): "
    "omissions show in WED's insertion column"
)
"""How to read WLCS (issue 16): a reply that leaves out a required act can still get 1.0."""


def table1(summary: Mapping[str, Any], title: str) -> list[Table]:
    """Seed 000 Table 1, one row per system: WLCS and WED mean [95 % CI] and SD with n scored
    and the failures of generation and annotation; then the WED breakdown per system."""
    main = Table(title=title, title_justify="left", show_lines=True)
    main.add_column("system", no_wrap=True)
    for name in ("scored", "failed\ngen/ann", "WLCS ↑", "WED ↓"):
        main.add_column(name, justify="right", no_wrap=True)
    parts = Table(title="WED breakdown (seed 000 Table 1)", title_justify="left", show_lines=True)
    parts.add_column("system", no_wrap=True)
    for name in PARTS:
        parts.add_column(name, justify="right", no_wrap=True)
    for system, s in summary["systems"].items():
        fails = s.get("failures", {})
        main.add_row(
            clip(system),
            f"{s.get('scored', 0)}/{s.get('n', 0)}",
            f"{fails.get('generate', 0)}/{fails.get('annotate', 0)}",
            *(
                ci_cell(s.get(k)) + (f"\nSD {s[k]['sd']:.3f}" if k in s else "")
                for k in ("wlcs", "wed")
            ),
        )
        parts.add_row(clip(system), *(ci_cell(s.get(p)) for p in PARTS))
    main.caption = (
        "mean over scored replies, 95 % bootstrap CI in brackets; failed replies are not scored\n"
        f"{WLCS_NOTE}"
    )
    return [main, parts]


def _seq(steps: list[dict[str, Any]], shown: int = 12) -> str:
    """The first ``shown`` steps as ``(act, importance)``, and how many more there are."""
    head = ", ".join(f"({clip(s['act'], 40)}, {s['importance']:.2f})" for s in steps[:shown])
    return head + (f", … (+{len(steps) - shown})" if len(steps) > shown else "")


LABELS = {
    "max_insertion": "max insertion",
    "max_deletion": "max deletion",
    "max_substitution": "max substitution",
    "min_wed": "min WED",
}


def examples_table(examples: Mapping[str, Mapping[str, Any]], system: str) -> Table:
    """Seed 000 Table 2: representative replies of one system by edit-distance profile."""
    t = Table(
        title=f"Representative examples (seed 000 Table 2): {clip(system)}",
        title_justify="left",
        show_lines=True,
    )
    for name in ("profile", "input", "gold reply / DA", "system reply / DA"):
        t.add_column(name, overflow="fold")
    for key, label in LABELS.items():
        if key not in examples:
            t.add_row(label, "(no reply has this cost)", "", "")
            continue
        ex = examples[key]
        profile = (
            f"{label}\n{clip(ex['id'], 60)}\nWED {ex['wed']:.2f}\n"
            f"del {ex['deletion']:.2f} ins {ex['insertion']:.2f} sub {ex['substitution']:.2f}"
        )
        t.add_row(
            profile,
            clip(ex["input"]),
            f"{clip(ex['gold_text'])}\n[{_seq(ex['gold_steps'])}]",
            f"{clip(ex['reply'] or '')}\n[{_seq(ex['pred_steps'])}]",
        )
    return t


def asr_table(summary: Mapping[str, Any]) -> list[Table]:
    """The ASR of cascaded systems heard in audio mode: character error rate of the transcript
    against ``input.text`` (mean per item [95 % CI], n; corpus-level) and real-time factor."""
    rows = [(sys_, s) for sys_, s in summary["systems"].items() if "asr_cer" in s]
    if not rows:
        return []
    t = Table(title="ASR of cascaded systems (input mode audio)", title_justify="left")
    t.add_column("system", no_wrap=True)
    for name in ("CER ↓ (per item)", "CER (corpus)", "ASR RTF"):
        t.add_column(name, justify="right", no_wrap=True)
    for system, s in rows:
        rtf = s.get("asr_rtf")
        t.add_row(
            clip(system),
            ci_cell(s["asr_cer"]) + f"\nn={s['asr_cer']['n']}",
            f"{s['asr_cer_corpus']:.3f}",
            "–" if rtf is None else f"{rtf:.2f}",
        )
    t.caption = (
        "transcripts vs input.text after NFKC, punctuation and spaces removed; RTF = ASR "
        "seconds / audio seconds (as recorded when first transcribed; cached replies keep theirs)"
    )
    return [t]
