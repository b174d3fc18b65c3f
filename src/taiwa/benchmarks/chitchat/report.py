"""The chitchat section of ``taiwa report`` (seed 001): the pairwise win-rate matrix as a
heatmap (比較評価), ROUGE-L and the single score per task type (タスクごとの難易度), and each
system's automatic score against its human mean rank with Spearman ρ (「楽しさ」が評価できるか)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from taiwa.benchmarks.chitchat.dataset import TASK_TITLES
from taiwa.benchmarks.chitchat.summary import EVALUATIONS, scores_of
from taiwa.benchmarks.chitchat.tables import rho_cell
from taiwa.display.section import Figure, Section

if TYPE_CHECKING:
    from taiwa.harness.run_reader import RunData


def section(run: RunData) -> Section:
    s = run.summary
    systems, across = s["systems"], s["across"]
    out = Section()
    if "win_rates" in across:
        out.figures.append(win_rate_figure(across["win_rates"]))
    out.figures += task_figures(systems, across.get("tasks", {}))
    human = across.get("human")
    if human:
        fig = human_figure(systems, human)
        if fig is not None:
            out.figures.append(fig)
    return out


def win_rate_figure(w: Mapping[str, Any]) -> Figure:
    from taiwa.report.figures import heatmap

    names = list(w["systems"])
    cells = [
        [None if r == c or not w["wins"][r][c]["n"] else w["wins"][r][c]["value"] for c in names]
        for r in names
    ]
    pairs = max((w["wins"][r][c]["n"] for r in names for c in names if r != c), default=0)
    return Figure(
        "pairwise win rate (seed 001 比較評価)",
        heatmap(names, names, cells, "P(row system wins against column)"),
        f"both orders judged, a verdict that flips with the order is a tie (ties apart); up to "
        f"{pairs} judged pairs per cell; CIs in the table above",
    )


def task_figures(systems: Mapping[str, Any], tasks: Mapping[str, int]) -> list[Figure]:
    from taiwa.report.figures import grouped_bars

    names = [f"{TASK_TITLES.get(t, t)} (n={n})" for t, n in tasks.items()]
    rouge = {
        s: [b.get("rougeL_by_task", {}).get(t, {}).get("rougeL") for t in tasks]
        for s, b in systems.items()
    }
    out = [
        Figure(
            "ROUGE-L per task type (seed 001 簡易評価)",
            grouped_bars(names, rouge, "ROUGE-L F", ylim=(0, 1.05)),
            "tasks in the seed's order of difficulty; mean over items with 95 % bootstrap CI; "
            "a failed extraction scores 0",
        )
    ]
    single = {
        s: [b["single"].get("by_task", {}).get(t) for t in tasks]
        for s, b in systems.items()
        if "single" in b
    }
    if single:
        out.append(
            Figure(
                "single score per task type (seed 001 単一評価)",
                grouped_bars(names, single, "judge rating (1-10)", ylim=(0, 10.5)),
                "mean rating with 95 % bootstrap CI; a reply without an answer gets the lowest",
            )
        )
    return out


def human_figure(systems: Mapping[str, Any], human: Mapping[str, Any]) -> Figure | None:
    """The first evaluation with scores for the ranked systems, against the human mean rank."""
    from taiwa.report.figures import scatter

    ranks = {s: v["mean_rank"]["value"] for s, v in human["mean_ranks"].items()}
    for evaluation, label in EVALUATIONS.items():
        scores = scores_of(systems, evaluation)
        points = [(scores[s], ranks[s], s) for s in scores if ranks.get(s) is not None]
        if len(points) < 2:
            continue
        rho = human.get("vs_human", {}).get(evaluation)
        note = (
            f"Spearman ρ = {rho['rho']:.2f} [{rho['ci_low']:.2f}, {rho['ci_high']:.2f}], "
            f"p = {rho['p']:.2g}, n = {rho['n']} systems"
            if rho and rho.get("rho") is not None and rho["rho"] == rho["rho"]
            else f"Spearman ρ {rho_cell(rho)}"
            if rho
            else "ρ needs 3 or more systems"
        )
        return Figure(
            f"{label} vs human mean rank (seed 001)",
            scatter(points, label, "human mean rank (1 = best)"),
            f"{note}; {human['rankings']} human rankings",
        )
    return None
