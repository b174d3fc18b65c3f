"""The cohesion section of ``taiwa report`` (seed 003 §3): per system the cohesive share
(Table 3's 評価値, pooled and per dialogue), precision and recall against the human labels
(§3.2), each dialogue's cohesive share against its human-labelled rate (§3.2's correlation),
and a few agent utterances with the words of the pairs that fired highlighted."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from taiwa.benchmarks.cohesion.dataset import AGENT_ROLES
from taiwa.benchmarks.cohesion.tables import examples_table
from taiwa.display.section import Figure, Html, Section

if TYPE_CHECKING:
    from taiwa.harness.run_reader import RunData


def section(run: RunData) -> Section:
    from taiwa.report.figures import grouped_bars

    systems = run.summary["systems"]
    across = run.summary["across"]
    out = Section()
    if systems:
        series = {
            "pooled (評価値)": [b.get("cohesive_share") for b in systems.values()],
            "dialogue mean": [b.get("dialogue_mean") for b in systems.values()],
        }
        names = [f"{s} (n={b['cohesive_share']['n']})" for s, b in systems.items()]
        out.figures.append(
            Figure(
                "cohesive share of agent utterances (seed 003 Table 3)",
                grouped_bars(names, series, "share cohesive", ylim=(0, 1.05)),
                "n = agent utterances; dialogue mean: the mean of each dialogue's share; error "
                "bars: 95 % bootstrap CI",
            )
        )
    labelled = {s: b for s, b in systems.items() if "precision" in b}
    if labelled:
        names = [f"{s} (n={b['n_labelled']})" for s, b in labelled.items()]
        series = {k: [b.get(k) for b in labelled.values()] for k in ("precision", "recall")}
        out.figures.append(
            Figure(
                "agreement with the human labels (seed 003 §3.2)",
                grouped_bars(names, series, "share", ylim=(0, 1.05)),
                "precision A/B and recall A/C over the labelled agent utterances (n); error "
                "bars: 95 % bootstrap CI",
            )
        )
    if labelled and run.has("scores.jsonl"):
        points = dialogue_points(run.rows("scores.jsonl"))
        if points:
            out.figures.append(scatter_figure(points, across))
    examples = across.get("examples") or []
    if examples and all("context" in e for e in examples):
        out.examples.append(examples_html(examples))
    elif examples:
        out.examples.append(examples_table(examples))
    return out


def dialogue_points(rows: Iterable[Mapping[str, Any]]) -> list[tuple[float, float, str]]:
    """Per dialogue with labelled agent utterances: the cohesive share and the human-labelled
    rate among them (the pairs of §3.2's correlation), with the system."""
    out = []
    for r in rows:
        lab = [u for u in r["utterances"] if u["role"] in AGENT_ROLES and "correct" in u]
        if lab:
            share = sum(bool(u["cohesive"]) for u in lab) / len(lab)
            rate = sum(bool(u["correct"]) for u in lab) / len(lab)
            out.append((share, rate, str(r["system"])))
    return out


def scatter_figure(points: Sequence[tuple[float, float, str]], across: Mapping[str, Any]) -> Figure:
    from taiwa.report.figures import scatter

    c = across.get("correlation_all")
    note = (
        f"Pearson r = {c['r']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}] (n={c['n']} dialogues)"
        if c
        else f"n={len(points)} dialogues (r needs 3 or more)"
    )
    return Figure(
        "per dialogue: cohesive share vs human-labelled rate (seed 003 §3.2)",
        scatter(
            points,
            "cohesive share (labelled agent utterances)",
            "human-labelled rate",
            annotate=False,
            diagonal=True,
        ),
        f"one point per dialogue (dialogues at the same place: a larger point); {note}",
    )


def _marks(text: str, words: Iterable[str]) -> list[str]:
    from taiwa.benchmarks.cohesion.evidence import stems

    out = []
    for w in words:
        out += [next((s for s in stems(w) if s in text), w)]
    return out


def examples_html(examples: Sequence[Mapping[str, Any]]) -> Html:
    """Each picked agent utterance with the utterances its pairs link it to; the words of each
    pair highlighted in both utterances, the verdict, its conditions and the pairs."""
    from taiwa.report.html import highlight, join, tag

    blocks = []
    for e in examples:
        words: dict[int, list[str]] = {}
        for p in e["pairs"]:
            a, b = p["between"]
            words.setdefault(a, []).append(p["w1"])
            words.setdefault(b, []).append(p["w2"])
        lines = []
        for u in e["context"]:
            text = u["text"]
            own = u["index"] == e["index"]
            marked = highlight(
                text, _marks(text, words.get(u["index"], [])), "hit" if own else "hit2"
            )
            lines.append(
                tag(
                    "tr",
                    tag("td", f"{u['index']}"),
                    tag("td", f"{u['speaker']} ({u['role']})"),
                    tag("td", marked),
                    cls="own" if own else "",
                )
            )
        pairs = "; ".join(
            f"{p['w1']}–{p['w2']} ({p['kind']}, {p['between'][0]}↔{p['between'][1]})"
            for p in e["pairs"]
        )
        label = (
            ""
            if "correct" not in e
            else f"; human label: {'correct' if e['correct'] else 'incorrect'}"
        )
        verdict = "cohesive" if e["cohesive"] else "not cohesive"
        head = (
            f"{e['dialogue_id']}:{e['index']} ({e['system']}): {verdict}, conditions "
            f"{','.join(e['conditions']) or '–'}{label}; pairs: {pairs or 'none'}"
        )
        blocks.append(
            tag(
                "div",
                tag("p", head, cls="line"),
                Html(f'<div class="table"><table class="examples">{join(lines)}</table></div>'),
            )
        )
    title = tag(
        "p",
        "Why: a few agent utterances, the words of the pairs that fired highlighted "
        "(yellow in the utterance judged, blue in the one it links to)",
        cls="caption",
    )
    return join([title, *blocks])
