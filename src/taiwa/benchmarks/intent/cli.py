"""``taiwa build intent`` and ``taiwa build intent-import``: the intent benchmark from a
dialogue corpus, through annotation sheets, to the shuffled benchmark file (seed 004 §2, §3.2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from taiwa.display.console import make_console
from taiwa.models.spec import HELP as MODEL_HELP

console = make_console()

QUESTIONS = "questions.jsonl"
CANDIDATES = "candidates.jsonl"
RECORD = "build.json"
REVIEW = "review.csv"
SHEETS = "sheets"
MAX_ANNOTATORS = 26
"""The most annotation sheets a build writes or an import reads (one per letter)."""


def build_intent(
    corpus: Annotated[
        Path, typer.Option(help="Dialogue corpus (JSONL/CSV/Parquet of taiwa Dialogue records).")
    ],
    model: Annotated[str, typer.Option("--model", "-m", help=f"Model SPEC: {MODEL_HELP}.")],
    out: Annotated[
        Path,
        typer.Option(help="Directory to write candidates, questions, sheets/ and review.csv to."),
    ],
    contexts: Annotated[
        int, typer.Option(min=1, max=10, help="Additional contexts to write per core sentence.")
    ] = 2,
    per_dialogue: Annotated[
        int, typer.Option(min=1, max=20, help="Candidates to extract per dialogue, at most.")
    ] = 2,
    filter_: Annotated[
        str,
        typer.Option(
            "--filter",
            help="none; llm (the model judges too-direct / unnatural candidates); manual "
            "(review.csv for a person, read back by intent-import).",
        ),
    ] = "none",
    annotators: Annotated[
        int,
        typer.Option(min=2, max=MAX_ANNOTATORS, help="Annotation sheets to write (seed: 3)."),
    ] = 3,
    seed: Annotated[
        int, typer.Option(min=0, max=2**63 - 1, help="Generation seed and option order.")
    ] = 0,
    limit: Annotated[
        int | None, typer.Option(min=1, max=2**63 - 1, help="Use only the first N dialogues.")
    ] = None,
    max_tokens: Annotated[
        int, typer.Option(min=1, max=2**63 - 1, help="Length limit of each reply.")
    ] = 512,
    attempts: Annotated[
        int, typer.Option(min=1, max=10, help="Tries per request, repairs included.")
    ] = 2,
    base_url: Annotated[str | None, typer.Option(help="Base URL for openai: models.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=4_096, help="Requests in flight.")] = 16,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Response cache (default ~/.cache/taiwa).")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace the questions and sheets of OUT.")
    ] = False,
) -> None:
    """Extract candidates, write additional contexts, filter, assemble 4-option questions and
    annotation sheets (seed 004 §2.1–2.3).

    Then: fill OUT/sheets/annotator*.csv (and OUT/review.csv with --filter manual) and run
    [bold]taiwa build intent-import OUT --out items.jsonl[/bold]."""
    import asyncio

    from taiwa.benchmarks.intent.build_settings import BuildSettings
    from taiwa.benchmarks.intent.builder import build_questions
    from taiwa.benchmarks.intent.filters import make_filter
    from taiwa.core.errors import TaiwaError
    from taiwa.core.io import check_writable, iter_records, unique_ids
    from taiwa.core.schema import Dialogue
    from taiwa.models import (
        CachingModel,
        ModelOptions,
        ResponseCache,
        default_cache_dir,
        load_model,
    )
    from taiwa.models.spec import ModelSpec

    if filter_ not in ("none", "llm", "manual"):
        raise TaiwaError(f"--filter must be none, llm or manual, got {filter_!r:.60}")
    ModelSpec.parse(model)
    for name in (QUESTIONS, f"{SHEETS}/annotator1.csv"):
        check_writable(out / name, "--out")
    if not overwrite and ((out / QUESTIONS).exists() or (out / SHEETS).exists()):
        raise TaiwaError(
            f"{out} already holds questions or sheets (filled sheets would be lost): "
            "choose another --out or pass --overwrite"
        )
    cache_path = (cache_dir or default_cache_dir()) / "responses.sqlite"
    check_writable(cache_path, "--cache-dir")
    dialogues = list(unique_ids(corpus, iter_records(corpus, Dialogue)))[:limit]
    settings = BuildSettings(
        per_dialogue=per_dialogue,
        contexts=contexts,
        seed=seed,
        max_tokens=max_tokens,
        attempts=attempts,
    )
    options = ModelOptions(base_url=base_url, concurrency=concurrency, cache_dir=cache_dir)
    cache = ResponseCache(cache_path)
    try:
        cached = CachingModel(load_model(model, options), cache)
        keep = make_filter(filter_, cached, settings)
        with console.status("building …") as status:
            report = asyncio.run(
                build_questions(cached, dialogues, settings, keep, lambda s: status.update(s))
            )
    finally:
        cache.close()
    record = {
        "corpus": str(corpus),
        "model": model,
        "filter": filter_,
        "annotators": annotators,
        "seed": seed,
        "settings": settings.__dict__,
        "counts": report.counts(),
    }
    _write_build(out, report, record)
    _print_build(out, report, filter_, annotators)


def _write_build(out: Path, report: Any, record: dict[str, Any]) -> None:
    from taiwa.benchmarks.intent.filters import write_review
    from taiwa.benchmarks.intent.sheets import write_sheets
    from taiwa.core.io import write_json, write_jsonl

    write_jsonl(out / CANDIDATES, report.candidates)
    write_jsonl(out / QUESTIONS, report.questions)
    if report.failures:
        write_jsonl(out / "failures.jsonl", report.failures)
    write_sheets(out / SHEETS, report.questions, record["annotators"])
    if record["filter"] == "manual":
        write_review(out / REVIEW, report.candidates)
    write_json(out / RECORD, record)


def _print_build(out: Path, report: Any, filter_: str, annotators: int) -> None:
    c = report.counts()
    console.print(
        f"{c['dialogues']} dialogue(s) → {c['extracted']} extracted and {c['generated']} "
        f"written candidate(s) → {c['questions']} question(s) on {c['groups']} core "
        f"sentence(s), in {out}"
    )
    unparseable = sum(report.unparseable.values())
    if unparseable:
        per = ", ".join(f"{n} {step}" for step, n in sorted(report.unparseable.items()))
        console.print(f"{unparseable} unparseable model output(s) ({per}; see failures.jsonl)")
    if report.dropped:
        reasons = ", ".join(f"{n} {why}" for why, n in report.dropped.most_common())
        console.print(f"dropped: {reasons}")
    sheets = ", ".join(str(out / SHEETS / f"annotator{k}.csv") for k in range(1, annotators + 1))
    steps = [f"have {annotators} people fill the 'answer' column (an option number) of {sheets}"]
    if filter_ == "manual":
        steps.append(f"mark the 'keep' column of {out / REVIEW} 0 for candidates to drop")
    steps.append(f"run: taiwa build intent-import {out} --out items.jsonl")
    if not report.questions:
        console.print("[bold]no question was built[/bold]: the sheets are empty")
    console.print("next: " + "; ".join(steps))


def build_intent_import(
    directory: Annotated[
        Path, typer.Argument(help="The directory of taiwa build intent (questions, sheets).")
    ],
    out: Annotated[Path, typer.Option(help="Benchmark JSONL to write (+ OUT.meta.json).")],
    seed: Annotated[
        int, typer.Option(min=0, max=2**63 - 1, help="Seed of the benchmark's one shuffle.")
    ] = 0,
) -> None:
    """Aggregate the filled sheets (gold: 2 of 3 agree; all different: excluded) and write the
    benchmark in one seeded random order (seed 004 §2.3, §3.2)."""
    from taiwa.benchmarks.intent.build_records import Question
    from taiwa.benchmarks.intent.builder import shuffle_items
    from taiwa.benchmarks.intent.filters import read_review
    from taiwa.benchmarks.intent.sheets import aggregate_items, read_sheets
    from taiwa.core.errors import TaiwaError
    from taiwa.core.io import check_writable, iter_records, unique_ids, write_json, write_jsonl

    check_writable(out, "--out")
    meta = out.with_name(out.stem + ".meta.json")
    check_writable(meta, "--out")
    questions = list(
        unique_ids(directory / QUESTIONS, iter_records(directory / QUESTIONS, Question))
    )
    annotators = _annotators(directory / RECORD)
    dropped = set()
    if (directory / REVIEW).exists():
        dropped = read_review(directory / REVIEW, [q.id for q in questions])
    kept = [q for q in questions if q.id not in dropped]
    votes = read_sheets(directory / SHEETS, questions, annotators)
    agg = aggregate_items(kept, votes)
    if not agg.items:
        raise TaiwaError(
            f"no item kept from {directory}: every question was dropped in {REVIEW} or "
            "its annotators all chose differently"
        )
    items = shuffle_items(agg.items, seed)
    write_jsonl(out, items)
    counts = {
        "questions": len(questions),
        "kept": len(items),
        "excluded_all_different": len(agg.excluded),
        "dropped_in_review": len(dropped),
    }
    write_json(
        meta,
        {
            "source": str(directory),
            "seed": seed,
            "order": "shuffled once with this seed: every prefix is a random sample "
            "(seed 004 §3.2)",
            "annotators": annotators,
            "counts": counts,
            "excluded": agg.excluded,
            "dropped": sorted(dropped),
        },
    )
    console.print(
        f"{len(items)} item(s) written to {out} (order seed {seed}; + {meta.name}); "
        f"{len(agg.excluded)} excluded (all {annotators} annotators differ), "
        f"{len(dropped)} dropped in {REVIEW}"
    )


def _annotators(path: Path) -> int:
    """The number of sheets the build wrote, from its record (range-checked before any sheet
    is looked for: at most :data:`MAX_ANNOTATORS`)."""
    from taiwa.core.errors import InputError
    from taiwa.core.io import read_json_object

    record, text = read_json_object(path, "the record of taiwa build intent")
    value = record.get("annotators")
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_ANNOTATORS:
        line = next((n for n, ln in enumerate(text.splitlines(), 1) if '"annotators"' in ln), None)
        got = json.dumps(value)[:40] if value is not None else None
        raise InputError(
            str(path), line, "annotators", f"a number of sheets from 1 to {MAX_ANNOTATORS}", got
        )
    return value


def register(app: typer.Typer) -> None:
    app.command("intent", no_args_is_help=True)(build_intent)
    app.command("intent-import", no_args_is_help=True)(build_intent_import)
