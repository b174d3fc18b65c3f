"""Terminal tables of a chitchat summary, laid out as seed 001's: the automatic evaluation
(抜き出し成功, 単一評価, ROUGE-1/2/L), the pairwise win-rate matrix, the per-task table, the
rankings and, in a table of their own, Spearman ρ between the evaluations, human mean ranks
and ρ with them, and the judge-quality lines. A system column holds systems only, so that it
stays as narrow as their names at 80 columns."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table
from rich.text import Text

from taiwa.benchmarks.chitchat.dataset import TASK_TITLES
from taiwa.benchmarks.chitchat.summary import EVALUATIONS
from taiwa.display.tables import ci_cell, clip
from taiwa.harness.method import HUMAN
from taiwa.metrics.flags import MARK, flagged, mark, marked

CONSTANT = "judge_quality.rating_histogram"
"""The ``across`` key a constant-rating flag of the judge is on: it marks the judge's rating
line and the single cells of the systems whose replies the judge read (its ``systems``)."""


def constant_judge(across: Mapping[str, Any], system: str) -> bool:
    """Whether the judge's constant-rating flag qualifies ``system``'s single score (a summary
    written before the flag named its systems: every system but ``human``)."""
    for f in across.get("flags", ()):
        if f.get("on") == CONSTANT:
            return system in f["systems"] if "systems" in f else system != HUMAN
    return False


def tables(summary: Mapping[str, Any]) -> list[Any]:
    a = summary["across"]
    out: list[Any] = [automatic_table(summary)]
    if "win_rates" in a:
        out.append(win_rate_table(a["win_rates"]))
    out.append(task_table(summary))
    if a.get("rankings"):
        out.append(ranking_table(a, summary["systems"]))
        if a.get("consistency"):
            out.append(consistency_table(a["consistency"]))
    if "human" in a:
        out.append(human_table(a["human"]))
        if a["human"].get("vs_human"):
            out.append(vs_human_table(a["human"]["vs_human"]))
    if "judge_quality" in a:
        out += judge_lines(a["judge_quality"], constant=flagged(a, CONSTANT))
    out += identical_lines(summary)
    return out


def automatic_table(summary: Mapping[str, Any]) -> Table:
    """Seed 001's 自動評価結果 (単一評価 + 簡易評価), one row per system."""
    t = Table(title="chitchat (seed 001): automatic evaluation", title_justify="left")
    for name in (
        "system",
        "抜き出し成功",
        "single (1-10)",
        "pairwise win",
        "ROUGE-1",
        "ROUGE-2",
        "ROUGE-L",
    ):
        t.add_column(name, justify="left" if name == "system" else "right")
    for system, b in summary["systems"].items():
        ex = b["extracted"]
        single = mark(ci_cell(b.get("single"), 2), b, "single")
        if constant_judge(summary["across"], system) and b.get("single"):
            single = marked(single)
        t.add_row(
            clip(system),
            f"{ex['ok']}/{ex['n']}",
            single,
            pairwise_cell(b),
            *(mark(ci_cell(b.get(k), 3), b, k) for k in ("rouge1", "rouge2", "rougeL")),
        )
    t.caption = (
        "mean [95 % bootstrap CI]; a reply that could not be extracted scores as a failure; "
        "pairwise win: over the pairs the judge decided, pairs won or lost by a forfeit (a side "
        "without an extracted answer) counted apart"
    )
    return t


def pairwise_cell(b: Mapping[str, Any]) -> str:
    """The overall win rate over judged pairs (``no pair judged`` when there were none) and,
    below, the pairs won and lost by forfeit."""
    if "pairwise" not in b:
        return "–"
    d = b.get("pairwise_detail", {})
    judged = b["pairwise"].get("n", 0)
    cell = mark(ci_cell(b["pairwise"], 2) if judged else "no pair judged", b, "pairwise")
    won, lost = d.get("forfeit_wins", 0), d.get("forfeit_losses", 0)
    if won or lost:
        cell += f"\nforfeits +{won} −{lost}"
    return cell


def win_rate_table(w: Mapping[str, Any]) -> Table:
    """Seed 001's 比較評価 matrix: the probability that the row system wins (ties apart)."""
    systems = w["systems"]
    t = Table(title="pairwise: P(row wins against column)", title_justify="left")
    t.add_column("winner", no_wrap=True)
    for s in systems:
        t.add_column(clip(s), justify="right")
    for r in systems:
        cells = []
        for c in systems:
            if r == c:
                cells.append("")
                continue
            win, tie = w["wins"][r][c], w["ties"][r][c]
            forfeit = w.get("forfeits", {}).get(r, {}).get(c, 0)
            cell = (
                "no pair judged" if not win["n"] else f"{win['value']:.0%} (tie {tie['value']:.0%})"
            )
            cells.append(cell + (f"\n+{forfeit} by forfeit" if forfeit else ""))
        t.add_row(clip(r), *cells)
    t.caption = win_rate_caption(w)
    return t


def win_rate_caption(w: Mapping[str, Any]) -> str:
    """What the matrix counts: the pairs judged in both orders and those decided by forfeit."""
    judged, forfeited = w.get("judged"), w.get("forfeited", 0)
    forfeits = (
        f"; {forfeited} pair(s) decided by a forfeit (a side without an extracted answer) "
        "are counted apart, not in the rates"
        if forfeited
        else ""
    )
    if judged == 0:
        return f"no pair judged: the judge decided no pair{forfeits}"
    count = "" if judged is None else f"{judged} pair(s) "
    return f"{count}judged in both orders; a verdict that flips with the order is a tie{forfeits}"


def task_table(summary: Mapping[str, Any]) -> Table:
    """Per task type: ROUGE-L and the single score per system, and the mean over systems."""
    a = summary["across"]
    tasks = list(a["tasks"])
    t = Table(
        title="per task type (difficulty: next utterance → next speaker → continuation)",
        title_justify="left",
    )
    t.add_column("system")
    for task in tasks:
        t.add_column(f"{TASK_TITLES.get(task, task)}\n(n={a['tasks'][task]})", justify="right")
    for system, b in summary["systems"].items():
        cells = []
        # a flag on the system's single score travels to its per-task single cells
        single_flagged = flagged(b, "single") or constant_judge(a, system)
        for task in tasks:
            rouge = b.get("rougeL_by_task", {}).get(task, {}).get("rougeL")
            single = b.get("single", {}).get("by_task", {}).get(task)
            cell = f"R-L {ci_cell(rouge, 3).split(chr(10))[0]}"
            if single is not None:
                line = ci_cell(single, 2).split(chr(10))[0]
                cell += f"\nsingle {marked(line) if single_flagged else line}"
            cells.append(cell)
        t.add_row(clip(system), *cells)
    diff = a.get("task_difficulty")
    if diff:
        row = [mark(ci_cell(diff["tasks"].get(task), 2), a, CONSTANT) for task in tasks]
        t.add_row(Text("all systems (single, judged)", style="bold"), *row)
        t.caption = difficulty_sentence(diff, judge_constant=flagged(a, CONSTANT))
    return t


def difficulty_sentence(diff: Mapping[str, Any], *, judge_constant: bool = False) -> str:
    """The per-task table's sentence: seed 001's claim only when it holds on the judged
    ratings (:func:`taiwa.benchmarks.chitchat.analysis.difficulty_claim`) of a judge whose
    ratings are not flagged; else a neutral line saying why not (issue 39)."""
    imputed = sum(t.get("imputed", 0) for t in diff["tasks"].values())
    left = (
        f"; {imputed} rating(s) given by rule to replies with no answer left out" if imputed else ""
    )
    claim = diff.get("claim") or {"holds": False, "why": "not checked (an older run)"}
    if judge_constant:
        return (
            f"all systems: judged ratings only{left}; no difficulty order read: the judge "
            "gave nearly one rating to everything"
        )
    if claim["holds"]:
        d = claim["drop"]
        return (
            f"single scores fall with difficulty, as in seed 001 (judged ratings, easiest − "
            f"hardest {d['value']:.2f} [{d['ci_low']:.2f}, {d['ci_high']:.2f}]){left}"
        )
    return f"all systems: judged ratings only{left}; no difficulty order read: {claim['why']}"


def ranking_table(a: Mapping[str, Any], systems: Mapping[str, Any] | None = None) -> Table:
    """Seed 001's consistency table, its first half: each system's place by each evaluation
    (the systems alone in the system column, a place marked when the system's number it ranks
    by is flagged; ρ between the evaluations follows in :func:`consistency_table`)."""
    ranks = a["rankings"]
    t = Table(title="rankings (1 = best)", title_justify="left")
    t.add_column("system")
    evaluations = [e for e in EVALUATIONS if e in ranks]
    for e in evaluations:
        t.add_column(EVALUATIONS[e], justify="right")
    blocks = systems or {}

    def place(s: str, e: str) -> str:
        if s not in ranks[e]:
            return "–"
        judged = e == "single" and constant_judge(a, s)
        return (
            mark(f"{ranks[e][s]:g}", blocks.get(s), e) if not judged else marked(f"{ranks[e][s]:g}")
        )

    for s in dict.fromkeys(s for e in evaluations for s in ranks[e]):
        t.add_row(clip(s), *(place(s, e) for e in evaluations))
    return t


def consistency_table(consistency: Mapping[str, Mapping[str, Any]]) -> Table:
    """Seed 001's consistency table, its second half: Spearman ρ between every two
    evaluations over the systems, with p and n, one row per pair of evaluations."""
    t = _rho_table("Spearman ρ between evaluations (over the systems)")
    for pair, c in consistency.items():
        x, y = pair.split("~")
        t.add_row(f"{EVALUATIONS[x]} ~ {EVALUATIONS[y]}", *_rho_cells(c, ci=False))
    return t


def vs_human_table(vs_human: Mapping[str, Mapping[str, Any]]) -> Table:
    """Spearman ρ of each evaluation with the human mean ranks, with its 95 % CI, p and n."""
    t = _rho_table("Spearman ρ with the human rankings")
    for e, c in vs_human.items():
        t.add_row(f"{EVALUATIONS[e]} ~ human", *_rho_cells(c, ci=True))
    return t


def _rho_table(title: str) -> Table:
    t = Table(title=title, title_justify="left")
    t.add_column("evaluations")
    for name in ("ρ", "p", "n"):
        t.add_column(name, justify="right")
    return t


def _rho_cells(c: Mapping[str, Any], *, ci: bool) -> tuple[str, str, str]:
    """ρ (with its CI when ``ci``), p and n; ρ undefined says why (:func:`rho_cell`)."""
    if not _number(c.get("rho")):
        return "– (undefined: a ranking is constant)", "", str(c["n"])
    rho = f"{c['rho']:.2f}"
    if ci and _number(c.get("ci_low")) and _number(c.get("ci_high")):
        rho += f" [{c['ci_low']:.2f}, {c['ci_high']:.2f}]"
    p = f"{c['p']:.2g}" if _number(c.get("p")) else "none below 4" if c["n"] < 4 else "–"
    return rho, p, str(c["n"])


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and x == x


def rho_cell(c: Mapping[str, Any]) -> str:
    """Spearman ρ with p and n, or a dash with why: ρ is undefined when a ranking is constant
    (e.g. no judgment could be read, so every system shares one place)."""
    if not _number(c.get("rho")):
        return f"– (undefined: a ranking is constant, n={c['n']})"
    if not _number(c.get("p")):
        why = ": no p below 4" if c["n"] < 4 else ", p=–"
        return f"{c['rho']:.2f} (n={c['n']}{why})"
    return f"{c['rho']:.2f} (p={c['p']:.2g}, n={c['n']})"


def human_table(h: Mapping[str, Any]) -> Table:
    """Seed 001's 人手評価 table (平均順位, 中央値, 分散), one row per system (ρ of each
    evaluation with it follows in :func:`vs_human_table`)."""
    t = Table(title=f"human rankings ({h['rankings']} rankings)", title_justify="left")
    for name in ("system", "mean rank", "median", "variance", "n"):
        t.add_column(name, justify="left" if name == "system" else "right")
    for system, v in h["mean_ranks"].items():
        t.add_row(
            clip(system),
            ci_cell(v["mean_rank"], 2),
            f"{v['median']:g}",
            f"{v['variance']:.2f}",
            str(v["n"]),
        )
    return t


def judge_lines(q: Mapping[str, Any], *, constant: bool = False) -> list[Text]:
    """The judge-quality lines: flip rate (flagged above the threshold), unreadable verdicts,
    the rating histogram (with :data:`MARK` when ``constant``: one rating for nearly all), or
    one line saying that no judgment could be read."""
    lines: list[Text] = []
    flip = q.get("flip_rate")
    if flip is not None and not _number(flip.get("value")) and flip["n"]:
        flip = None  # no verdict could be read: the unreadable line below says so
    if flip is not None:
        style = "bold red" if flip["flagged"] or flip["n"] == 0 else ""
        value = (
            "no pair judged"
            if flip["n"] == 0
            else f"{flip['value']:.0%} [{flip['ci_low']:.0%}, {flip['ci_high']:.0%}]"
        )
        flag = " FLAGGED: its pairwise verdicts follow the position" if flip["flagged"] else ""
        lines.append(
            Text(f"judge order-flip rate {value} (n={flip['n']} pairs){flag}", style=style)
        )
    for key, label in (
        ("unparsed_pairwise", "pairwise verdicts"),
        ("unparsed_single", "single ratings"),
    ):
        u = q.get(key)
        if u is not None and u["n"] and _number(u.get("value")):
            lines.append(Text(f"unreadable {label} after repairs: {u['value']:.0%} (n={u['n']})"))
    hist = q.get("rating_histogram")
    if hist and hist["n"]:
        bins = " ".join(f"{k}:{v}" for k, v in hist["bins"].items() if v)
        flag = f" {MARK}" if constant else ""
        lines.append(Text(f"single ratings given: {bins} (n={hist['n']}){flag}"))
    elif hist is not None:
        lines.append(Text("no single rating could be read: no single score", style="bold red"))
    return lines


def identical_lines(summary: Mapping[str, Any]) -> list[Text]:
    """Per system, the share of its replies equal to its most frequent reply."""
    parts = []
    for system, b in summary["systems"].items():
        d = b.get("identical_replies")
        if d and d["n"]:
            parts.append(f"{system[:24]} {d['share']:.0%}{mark('', b, 'identical_replies')}")
    if not parts:
        return []
    return [Text("most frequent reply's share: " + ", ".join(parts) + " (identical replies)")]
