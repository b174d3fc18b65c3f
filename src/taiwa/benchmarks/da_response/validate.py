"""``taiwa validate annotator`` for da-response (issue 16): an annotator against gold sequences.

The annotator (``offline``, ``replay:FILE`` with ``{"id", "steps"}`` lines keyed by reply id,
or a chat-model SPEC prompted as in the annotate stage) annotates every labelled reply and every
variant of every gold-vs-flawed item in the files (:mod:`.labelled`); the figures
(:mod:`taiwa.annotators.validation`) are printed beside two trivial annotators: on each
sentence the files' most frequent gold act at that position (only / first / middle / last), and
one ``Inform`` per sentence, both with equal importances. The offline annotator's figures on
the bundled held-out files ship in its sidecar (``held_out``, ``held_out_varied``), so a run's
summary can name them. Files of different bundled splits (``tidy``, ``varied``:
:data:`~taiwa.benchmarks.da_response.offline.SPLITS`) are validated and printed apart
(:func:`validate_by_split`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.annotators.sentence_annotator import LabelledReply, SentenceAnnotator, split_sentences
from taiwa.annotators.validation import (
    Pair,
    Ranking,
    baseline_annotations,
    majority_by_position,
    ranking_report,
    sequence_report,
)
from taiwa.core.schema import DASequence

if TYPE_CHECKING:
    from rich.table import Table

    from taiwa.benchmarks.da_response.labelled import Group
    from taiwa.models.spec import ModelOptions

Annotate = Callable[[Sequence[LabelledReply]], list[DASequence | None]]
"""Annotations of replies, in order (``None``: the annotator failed on that reply)."""


@dataclass
class Annotating:
    """An annotator ready to annotate: its name, the function, and the repairs an LLM
    annotator counts by kind as it runs."""

    name: str
    annotate: Annotate
    repairs: dict[str, int] = field(default_factory=dict)


def annotator_function(
    spec: str | SentenceAnnotator,
    attempts: int = 3,
    seed: int = 0,
    models: ModelOptions | None = None,
) -> Annotating:
    """The annotator of a SPEC or an in-memory annotator. A chat model is loaded with
    ``models`` (base URL, concurrency, retries: ``taiwa run``'s flags) and its endpoint checked
    before any reply is read, as a run checks it."""
    if isinstance(spec, SentenceAnnotator) or spec == "offline":
        from taiwa.benchmarks.da_response.shipped_annotator import default_annotator

        ann = default_annotator() if isinstance(spec, str) else spec

        def offline(replies: Sequence[LabelledReply]) -> list[DASequence | None]:
            out = ann.annotate_many([r.context for r in replies], [r.text for r in replies])
            return [s if s.steps else None for s in out]

        return Annotating(ann.name, offline)
    if spec.startswith("replay:"):
        from taiwa.annotators.replay import load_sequences
        from taiwa.core.taxonomies import load_taxonomy

        sequences = load_sequences(spec.removeprefix("replay:"), load_taxonomy("assistant7"))
        return Annotating(spec, lambda rs: [sequences.get(r.id) for r in rs])
    from taiwa.benchmarks.da_response.llm_annotator import annotate_with_model
    from taiwa.models.spec import load_checked_model

    model = load_checked_model(spec, models)
    repairs: dict[str, int] = {}

    def llm(replies: Sequence[LabelledReply]) -> list[DASequence | None]:
        return annotate_with_model(model, replies, attempts, seed, repairs)

    return Annotating(spec, llm, repairs)


def validate_annotator(
    spec: str | SentenceAnnotator | Annotating,
    paths: Sequence[Path],
    seed: int = 0,
    models: ModelOptions | None = None,
) -> dict[str, Any]:
    """The validation report of the annotator on ``paths`` (see the module docstring);
    ``failures`` says on how many of the items annotated (labelled replies and every variant)
    the annotator gave nothing."""
    from taiwa.benchmarks.da_response.labelled import load_labelled
    from taiwa.benchmarks.da_response.shipped_annotator import FIXED_ACT, acts

    annotating = (
        spec if isinstance(spec, Annotating) else annotator_function(spec, seed=seed, models=models)
    )
    replies, groups = load_labelled(paths)
    golds = replies + [r for g in groups for kind, r in g.variants if kind == "gold"]
    variants = [r for g in groups for _, r in g.variants]
    before = dict(annotating.repairs)
    everything = annotating.annotate(replies + variants)
    repairs = {k: n - before.get(k, 0) for k, n in annotating.repairs.items()}
    name = annotating.name
    by_id = dict(zip([r.id for r in replies + variants], everything, strict=True))
    counts = {r.id: max(1, len(split_sentences(r.text))) for r in replies + variants}
    majority = majority_by_position([r.gold for r in golds])
    annotators: dict[str, dict[str, DASequence | None]] = {name: by_id}
    for label, base in baseline_annotations(list(counts.values()), majority, FIXED_ACT).items():
        annotators[label] = dict(zip(counts, base, strict=True))
    report: dict[str, Any] = {
        "annotator": name,
        "files": [str(p) for p in paths],
        "seed": seed,
        "sequence": {},
        "ranking": {},
        "repairs": {k: n for k, n in repairs.items() if n},
        "failures": {"failed": sum(s is None for s in everything), "items": len(everything)},
    }
    for label, seqs in annotators.items():
        pairs = [Pair(seqs[r.id], r.gold) for r in golds]
        report["sequence"][label] = sequence_report(pairs, acts(), seed)
        if groups:
            report["ranking"][label] = ranking_report(_rankings(groups, seqs), seed)
    return report


def validate_by_split(
    spec: str | SentenceAnnotator,
    paths: Sequence[Path],
    seed: int = 0,
    models: ModelOptions | None = None,
) -> dict[str, Any]:
    """:func:`validate_annotator` on each bundled split among ``paths`` apart (a user's files
    together, as one more split), with one annotator (a model's endpoint checked once, first).
    The report is the first split's, with its name under ``split``, the other splits' reports
    under ``splits`` and ``failures`` over them all."""
    from taiwa.benchmarks.da_response.shipped_annotator import split_of

    annotating = annotator_function(spec, seed=seed, models=models)
    groups: dict[str | None, list[Path]] = {}
    for path in paths:
        groups.setdefault(split_of(path), []).append(path)
    reports = [
        {**validate_annotator(annotating, files, seed), "split": split}
        for split, files in groups.items()
    ]
    first = reports[0]
    if len(reports) > 1:
        first["splits"] = {r["split"] or "given": r for r in reports[1:]}
        first["failures"] = {
            key: sum(r["failures"][key] for r in reports) for key in ("failed", "items")
        }
    return first


def _rankings(groups: Sequence[Group], seqs: dict[str, DASequence | None]) -> list[Ranking]:
    from taiwa.metrics.da_sequence import wed

    def score(reply: LabelledReply, reference: LabelledReply) -> float | None:
        pred = seqs[reply.id]
        return None if pred is None else wed(pred.steps, reference.steps).total

    out: list[Ranking] = []
    for g in groups:
        gold_wed = score(g.reference, g.reference)
        for kind, r in g.variants:
            if kind != "gold":
                out.append(Ranking(g.id, kind, gold_wed, score(r, g.reference)))
    return out


def report_tables(report: dict[str, Any]) -> list[Table]:
    """The per-act table of the annotator, then every figure beside the baselines; each
    split of :func:`validate_by_split` apart, its name heading its tables."""
    tables = _split_tables(report)
    for sub in report.get("splits", {}).values():
        tables += _split_tables(sub)
    return tables


def _split_tables(report: dict[str, Any]) -> list[Table]:
    from rich.table import Table

    from taiwa.display.tables import ci_cell, confusion_table

    name = report["annotator"]
    main = report["sequence"][name]
    split = report.get("split")
    head = f"({split} held-out split) " if split else ""
    per = Table(
        title=f"{head}{name}: per act over WED-aligned steps (n={main['n_steps']} gold steps, "
        f"{main['n_replies']} replies)",
        title_justify="left",
    )
    others = [k for k in report["sequence"] if k != name]
    for col in ("act", "precision", "recall", "F1", "n", *(f"F1 {k}" for k in others)):
        per.add_column(col, justify="left" if col == "act" else "right")
    for act, r in main["per_act"].items():
        per.add_row(
            act,
            f"{r['precision']:.3f}",
            f"{r['recall']:.3f}",
            f"{r['f1']:.3f}",
            str(r["support"]),
            *(f"{report['sequence'][k]['per_act'][act]['f1']:.3f}" for k in others),
        )
    conf = confusion_table(main["confusion"])
    side = Table(title=f"{head}beside the trivial baselines", title_justify="left", show_lines=True)
    for col in ("annotator", "macro-F1", "WED vs gold ↓", "deletion", "insertion", "exact seq ↑"):
        side.add_column(col, justify="left" if col == "annotator" else "right")
    has_ranking = bool(report["ranking"])
    if has_ranking:
        side.add_column("gold ranked first ↑ (wins/ties/losses)", justify="right")
    for label, s in report["sequence"].items():
        cells = [
            label,
            ci_cell(s["macro_f1_ci"]),
            ci_cell(s["wed"]),
            ci_cell(s["deletion"]),
            ci_cell(s["insertion"]),
            ci_cell(s["exact_sequence"]),
        ]
        if has_ranking:
            r = report["ranking"][label]["all"]
            cells.append(f"{ci_cell(r['gold_first'])}\n{r['wins']}/{r['ties']}/{r['losses']}")
        side.add_row(*cells)
    tables = [per, conf, side]
    if has_ranking:
        kinds = Table(title=f"{head}gold ranked first, by kind of flaw", title_justify="left")
        kinds.add_column("annotator")
        flaws = list(report["ranking"][name]["by_kind"])
        for k in flaws:
            kinds.add_column(f"{k}\nwins/ties/losses (n)", justify="right")
        for label, r in report["ranking"].items():
            kinds.add_row(
                label,
                *(
                    f"{b['wins']}/{b['ties']}/{b['losses']} ({b['gold_first']['n']})"
                    for b in (r["by_kind"][k] for k in flaws)
                ),
            )
        tables.append(kinds)
    return tables


def format_report(report: dict[str, Any]) -> str:
    """The tables of :func:`report_tables` as plain text."""
    import io

    from rich.console import Console

    console = Console(width=140, file=io.StringIO(), record=True)
    for t in report_tables(report):
        console.print(t)
    return console.export_text()
