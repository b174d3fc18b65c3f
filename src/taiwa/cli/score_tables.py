"""The tables of ``taiwa score`` and the demo's first step: metrics on files (seed 000 Table 1,
seed 002 Table 2, seed 001's ROUGE columns), one row per metric or system."""

from __future__ import annotations

from rich.table import Table

from taiwa.cli.file_scoring import FileScores
from taiwa.display.cells import clip
from taiwa.display.tables import bound, ci_inline, small_marked


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
        ci = f"[{bound(d['ci_low'], 3)}, {bound(d['ci_high'], 3)}]"
        mean = f"{d['value']:.3f}"
        t.add_row(label, str(d["n"]), small_marked(mean, d), ci, f"{d['sd']:.3f}")
    return t


def da_distribution_table(res: FileScores, title: str, columns: tuple[str, ...]) -> Table:
    """Seed 002 Table 2 layout: one row per system with DAE / DAMI (bits) and Distinct."""
    t = Table(
        title=title,
        title_justify="left",
        caption="DAE/DAMI in bits [95 % CI: DAE bootstrap, DAMI and Distinct jackknife]",
    )
    t.add_column("system", no_wrap=True)
    t.add_column("n", justify="right", no_wrap=True)
    for c in columns:
        header = {"dae": "DAE", "dami": "DAMI"}.get(c, c.replace("distinct", "Dist-"))
        t.add_column(header, justify="right", no_wrap=True)
    for system, row in res.summary.items():
        cells = [clip(system), str(row["dae"]["n"])]
        for c in columns:
            cells.append(
                ci_inline(row[c])
                if isinstance(row.get(c), dict)
                else f"{row.get(c, float('nan')):.3f}"
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
    t.add_row(str(s["rouge1"]["n"]), *(ci_inline(s[k]) for k in ("rouge1", "rouge2", "rougeL")))
    return t
