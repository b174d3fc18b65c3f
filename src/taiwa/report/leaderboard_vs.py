"""The leaderboard's "vs baseline" columns (issue 27): when a method's runs are on the same
items with the same settings (:func:`taiwa.report.compare_runs.compare_runs` pairs them), every
row of the joined headline table gains, per compared metric, the paired difference of its system
against the baseline (``human`` when a run has it, else the first system of the first run),
``*`` when the Holm-corrected p is below α. Runs that cannot be paired get no columns (the
table's caption says why)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import TaiwaError
from taiwa.metrics.flags import MARK
from taiwa.report.rich_html import TableData, as_text

if TYPE_CHECKING:
    from taiwa.harness.method import Method
    from taiwa.harness.run_reader import RunData


def _baseline(labels: Sequence[str], wanted: str | None) -> str | None:
    if wanted is not None:
        return wanted if wanted in labels else None
    if "human" in labels:
        return "human"
    return labels[0] if labels else None


def add_vs_baseline(
    td: TableData,
    runs: Sequence[RunData],
    methods: Sequence[Method[Any]],
    lead: int,
    baseline: str | None = None,
) -> None:
    """Add the columns to ``td`` in place: its rows are the headline rows of ``runs`` in order
    (each led by ``lead`` cells, the system's name in the next)."""
    from taiwa.report.compare_runs import compare_runs, run_labels, run_systems

    labels = run_labels(runs)
    every = [x for names in labels for x in names]
    base = _baseline(every, baseline)
    if base is None and baseline is not None:
        note = f"no vs-baseline columns: --baseline {baseline} is none of these runs' systems"
        td.caption = "\n".join(x for x in (td.caption, note) if x)
        return
    if base is None or len(every) < 2:
        return
    try:
        block = compare_runs([r.path for r in runs], methods, baseline=base)
    except TaiwaError as exc:
        td.caption = "\n".join(x for x in (td.caption, f"no vs-baseline columns: {exc}") if x)
        return
    cells: dict[tuple[str, str], str] = {}
    metrics: dict[str, str] = {}
    for r in block["rows"]:
        metrics.setdefault(r["metric"], r["label"])
        d = r["difference"]["value"]
        cell = "–" if d is None or d != d else f"{d:+.3f}" + ("*" if r["significant"] else "")
        if r.get("no_test") and cell != "–":
            cell += " (no test)"
        cells[r["a"], r["metric"]] = cell + (f" {MARK}" if r.get("flags") else "")
    by_run = {
        str(run.path): dict(zip(run_systems(run), names, strict=True))
        for run, names in zip(runs, labels, strict=True)
    }
    for row in td.rows:
        run_label = row[0].plain
        system = row[lead].plain if len(row) > lead else ""
        label = by_run.get(run_label, {}).get(system)
        row += [as_text(cells.get((label, k), "") if label else "") for k in metrics]
    td.headers += [as_text(f"vs {base}: {name}") for name in metrics.values()]
    td.align += ["right"] * len(metrics)
    td.caption = "\n".join(
        x
        for x in (
            td.caption,
            f"vs {base}: paired difference over the items both measured (system − {base}); "
            f"* Holm-corrected p < {block['alpha']} over {block['family']} comparisons "
            f"(taiwa compare)"
            + (f"; {MARK}: a side's number is flagged" if block.get("flags") else ""),
        )
        if x
    )
