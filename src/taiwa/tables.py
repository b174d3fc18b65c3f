"""Rich tables for the terminal: one function per kind of result, shared by CLI and demo."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from taiwa.file_scoring import FileScores


def _ci(d: dict[str, Any], digits: int = 3) -> str:
    v, lo, hi = d["value"], d["ci_low"], d["ci_high"]
    if v != v:  # NaN
        return "–"
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def da_sequence_table(res: FileScores, title: str, metrics: tuple[str, ...]) -> Table:
    """Seed 000 Table 1 as rows: WLCS and WED mean, 95 % CI and SD, then the WED breakdown."""
    t = Table(title=title, title_justify="left")
    for name, justify in (
        ("metric", "left"),
        ("n", "right"),
        ("mean", "right"),
        ("95% CI", "right"),
    ):
        t.add_column(name, justify=justify)  # type: ignore[arg-type]
    t.add_column("SD", justify="right")
    rows = [(m, {"wlcs": "Weighted LCS ↑", "wed": "WED ↓"}[m]) for m in metrics]
    if "wed" in metrics:
        rows += [(p, f"  {p}") for p in ("deletion", "insertion", "substitution")]
    for key, label in rows:
        d = res.summary[key]
        ci = f"[{d['ci_low']:.3f}, {d['ci_high']:.3f}]"
        t.add_row(label, str(d["n"]), f"{d['value']:.3f}", ci, f"{d['sd']:.3f}")
    return t


def da_distribution_table(res: FileScores, title: str, columns: tuple[str, ...]) -> Table:
    """Seed 002 Table 2 layout: one row per system with DAE / DAMI (bits) and Distinct."""
    t = Table(title=title, title_justify="left", caption="DAE/DAMI in bits [95 % bootstrap CI]")
    t.add_column("system", no_wrap=True)
    t.add_column("n", justify="right", no_wrap=True)
    for c in columns:
        header = {"dae": "DAE", "dami": "DAMI"}.get(c, c.replace("distinct", "Dist-"))
        t.add_column(header, justify="right", no_wrap=True)
    for system, row in res.summary.items():
        cells = [system, str(row["dae"]["n"])]
        for c in columns:
            cells.append(
                _ci(row[c]) if isinstance(row.get(c), dict) else f"{row.get(c, float('nan')):.3f}"
            )
        t.add_row(*cells)
    return t


def rouge_table(res: FileScores, title: str) -> Table:
    """Mean Japanese ROUGE-1/2/L F-measures with CIs (seed 001's 簡易評価 columns)."""
    t = Table(title=title, title_justify="left")
    t.add_column("n", justify="right")
    for key in ("rouge1", "rouge2", "rougeL"):
        t.add_column(key.replace("rouge", "ROUGE-") + " [95% CI]", justify="right")
    s = res.summary
    t.add_row(str(s["rouge1"]["n"]), *(_ci(s[k]) for k in ("rouge1", "rouge2", "rougeL")))
    return t


def lift_table(tl: Any, title: str) -> Table:
    """Seed 002 Fig. 2 as numbers: rows are the previous act, columns the next act."""
    t = Table(title=title, title_justify="left")
    t.add_column("prev \\ next")
    for lab in tl.labels:
        t.add_column(lab, justify="right")
    for i, lab in enumerate(tl.labels):
        t.add_row(lab, *("–" if v != v else f"{v:.2f}" for v in tl.lift[i]))
    return t


def run_summary_table(summary: dict[str, Any], title: str) -> Table:
    """Every aggregate of a run summary: value, 95 % CI and n."""
    t = Table(title=title, title_justify="left")
    for name in ("metric", "value", "95% CI", "n"):
        t.add_column(name, justify="left" if name == "metric" else "right")
    for key, d in summary.items():
        if isinstance(d, dict) and "ci_low" in d:
            t.add_row(
                key, f"{d['value']:.3f}", f"[{d['ci_low']:.3f}, {d['ci_high']:.3f}]", str(d["n"])
            )
    return t


def _seq(steps: list[dict[str, Any]]) -> str:
    return ", ".join(f"({s['act']}, {s['importance']:.2f})" for s in steps)


def da_examples_table(examples: dict[str, dict[str, Any]]) -> Table:
    """Seed 000 Table 2: representative replies by edit-distance profile."""
    t = Table(
        title="Representative examples (seed 000 Table 2)", title_justify="left", show_lines=True
    )
    for name in ("profile", "input", "gold reply / DA", "system reply / DA"):
        t.add_column(name, overflow="fold")
    labels = {
        "max_insertion": "max insertion",
        "max_deletion": "max deletion",
        "max_substitution": "max substitution",
        "min_wed": "min WED",
    }
    for key, label in labels.items():
        if key not in examples:
            t.add_row(label, "(no reply has this cost)", "", "")
            continue
        ex = examples[key]
        profile = (
            f"{label}\n{ex['id']}\nWED {ex['wed']:.2f}\n"
            f"del {ex['deletion']:.2f} ins {ex['insertion']:.2f} sub {ex['substitution']:.2f}"
        )
        t.add_row(
            profile,
            ex["input"],
            f"{ex['gold_text']}\n[{_seq(ex['gold_steps'])}]",
            f"{ex['reply']}\n[{_seq(ex['pred_steps'])}]",
        )
    return t


def table1(summaries: dict[str, dict[str, Any]], title: str) -> Table:
    """Seed 000 Table 1, one column per model: WLCS/WED mean [95 % CI] and SD, mean breakdown."""
    t = Table(title=title, title_justify="left")
    t.add_column("")
    for model in summaries:
        t.add_column(model, justify="right", no_wrap=True)

    def ci(d: dict[str, Any]) -> str:
        return f"{d['value']:.3f} [{d['ci_low']:.2f}, {d['ci_high']:.2f}]"

    t.add_row("n scored", *(str(s["n_scored"]) for s in summaries.values()))
    t.add_row(
        "failures (gen/annot)",
        *(f"{s['generation_failures']}/{s['annotation_failures']}" for s in summaries.values()),
    )
    for key, label in (("wlcs", "Weighted LCS ↑"), ("wed", "WED ↓")):
        t.add_row(f"{label} mean", *(ci(s[key]) for s in summaries.values()))
        t.add_row(f"{label} SD", *(f"{s[key]['sd']:.3f}" for s in summaries.values()))
    for part in ("deletion", "insertion", "substitution"):
        t.add_row(f"  {part}", *(ci(s[part]) for s in summaries.values()))
    return t


def cohesion_table(summary: dict[str, Any], title: str) -> Table:
    """Seed 003 Tables 2–3: per system, the share of cohesive agent utterances (評価値) with its CI,
    the human-labelled rate, precision and recall."""
    t = Table(title=title, title_justify="left")
    for name in ("system", "n", "cohesive", "human", "precision", "recall"):
        t.add_column(name, justify="left" if name == "system" else "right", no_wrap=True)

    def cell(e: dict[str, Any] | None) -> str:  # value over its 95 % CI
        if not e:
            return "–"
        return f"{e['value']:.2f}\n[{e['ci_low']:.2f},{e['ci_high']:.2f}]"

    for system, e in summary["systems"].items():
        t.add_row(
            system,
            str(e["cohesive_share"]["n"]),
            *(cell(e.get(k)) for k in ("cohesive_share", "human_rate", "precision", "recall")),
        )
    t.caption = (
        "n agent utterances; cohesive: share judged cohesive (評価値); human: share labelled "
        "correct; each value over its 95 % bootstrap CI"
    )
    return t


def cohesion_explanations(rows: list[dict[str, Any]], k: int = 4) -> Table:
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
    agent = [r for r in rows if r["role"] in ("agent", "system")]
    picked = [r for r in agent if r["cohesive"]][: k - k // 2] + [
        r for r in agent if not r["cohesive"]
    ][: k // 2]
    for r in picked:
        pairs = "; ".join(
            f"{p['w1']}–{p['w2']} ({p['kind']}, {p['between'][0]}↔{p['between'][1]})"
            for p in r["pairs"][:3]
        )
        label = "–" if "correct" not in r else ("correct" if r["correct"] else "incorrect")
        t.add_row(
            f"{r['dialogue_id']}:{r['index']}",
            r["system"],
            "cohesive" if r["cohesive"] else "not cohesive",
            ",".join(r["conditions"]) or "–",
            pairs or "–",
            label,
        )
    return t
