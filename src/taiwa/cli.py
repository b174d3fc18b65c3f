"""The ``taiwa`` command line (typer). It only wires options to the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from taiwa import __version__, tables
from taiwa.cli_build import build_app
from taiwa.errors import TaiwaError
from taiwa.file_scoring import (
    FileScores,
    score_da_sequence_files,
    score_da_tag_file,
    score_rouge_files,
)
from taiwa.io import write_json
from taiwa.metrics import transition_lift
from taiwa.models.spec import HELP as MODEL_HELP
from taiwa.taxonomies import load_taxonomy

console = Console()
err = Console(stderr=True)

app = typer.Typer(
    name="taiwa",
    help="taiwa (対話): evaluate Japanese dialogue systems (five methods from Japanese research).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
score_app = typer.Typer(
    help="Compute metrics on files you already have (no model is called).", no_args_is_help=True
)
app.add_typer(score_app, name="score")
app.add_typer(build_app, name="build")

JsonOut = Annotated[
    Path | None,
    typer.Option("--json", help="Also write per-item scores and the summary to this JSON file."),
]
Seed = Annotated[int, typer.Option(help="Seed of the bootstrap resampling (95 % CIs).")]


def _version(value: bool) -> None:
    if value:
        console.print(f"taiwa {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option("--debug", help="Show full tracebacks on errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Evaluate Japanese dialogue systems. Start with [bold]taiwa demo[/bold]."""


def _finish(
    res: FileScores, table: Table, json_out: Path | None, a: str = "pred", b: str = "gold"
) -> None:
    console.print(table)
    if res.pairing is not None:
        for side, ids in ((a, res.pairing.only_pred), (b, res.pairing.only_gold)):
            if ids:
                shown = ", ".join(ids[:10]) + (" …" if len(ids) > 10 else "")
                err.print(
                    f"[yellow]note:[/yellow] {len(ids)} id(s) only in --{side}, not scored: {shown}"
                )
    for note in res.notes:
        err.print(f"[yellow]note:[/yellow] {note}")
    if json_out is not None:
        payload: dict[str, Any] = {"summary": res.summary, "items": res.items, "notes": res.notes}
        if res.pairing is not None:
            payload[f"only_{a}"], payload[f"only_{b}"] = (
                res.pairing.only_pred,
                res.pairing.only_gold,
            )
        write_json(json_out, payload)
        err.print(f"wrote {json_out}")


PredFile = Annotated[Path, typer.Option("--pred", help="System DA sequences (JSONL/CSV/Parquet).")]
GoldFile = Annotated[
    Path, typer.Option("--gold", help="Gold DA sequences, e.g. a seed 000 dataset.")
]
AssistantTax = Annotated[str, typer.Option(help="Taxonomy: assistant7, chitchat11 or a YAML file.")]


@score_app.command("wed")
def score_wed(
    pred: PredFile,
    gold: GoldFile,
    taxonomy: AssistantTax = "assistant7",
    json_out: JsonOut = None,
    seed: Seed = 0,
) -> None:
    """Weighted DA edit distance, split into deletion/insertion/substitution (seed 000 §4.1.2).

    Lines are paired by [bold]id[/bold]; a line is
    {"id", "steps": [{"act", "importance", "rationale"}]} or a seed 000 dataset item
    (its output_dialogue_acts.steps are used).
    """
    res = score_da_sequence_files(pred, gold, load_taxonomy(taxonomy), seed=seed)
    _finish(
        res, tables.da_sequence_table(res, f"WED: {pred.name} vs {gold.name}", ("wed",)), json_out
    )


@score_app.command("wlcs")
def score_wlcs(
    pred: PredFile,
    gold: GoldFile,
    taxonomy: AssistantTax = "assistant7",
    json_out: JsonOut = None,
    seed: Seed = 0,
) -> None:
    """Weighted LCS of the predicted against the gold DA sequences (seed 000 §4.1.1).

    Same input as [bold]taiwa score wed[/bold].
    """
    res = score_da_sequence_files(pred, gold, load_taxonomy(taxonomy), seed=seed)
    _finish(
        res, tables.da_sequence_table(res, f"WLCS: {pred.name} vs {gold.name}", ("wlcs",)), json_out
    )


TagFile = Annotated[
    Path,
    typer.Argument(
        help='Tagged replies, one per line: {"id", "system", "prev_act", "act"} '
        '(or "votes"/"prev_votes": one list of acts per annotator; optional "reply" text).'
    ),
]
ChitchatTax = Annotated[str, typer.Option(help="Taxonomy: chitchat11, assistant7 or a YAML file.")]


@score_app.command("dae")
def score_dae(
    file: TagFile, taxonomy: ChitchatTax = "chitchat11", json_out: JsonOut = None, seed: Seed = 0
) -> None:
    """Dialogue Act Entropy per system (bits), with Distinct-1/2 if replies are given (seed 002)."""
    res = score_da_tag_file(file, load_taxonomy(taxonomy), seed=seed)
    columns = ("dae", "distinct1", "distinct2") if _has_replies(res) else ("dae",)
    _finish(res, tables.da_distribution_table(res, f"DAE: {file.name}", columns), json_out)


@score_app.command("dami")
def score_dami(
    file: TagFile,
    taxonomy: ChitchatTax = "chitchat11",
    lift: Annotated[
        bool, typer.Option(help="Also print the transition lift P(b|a)/P(b) per system.")
    ] = False,
    json_out: JsonOut = None,
    seed: Seed = 0,
) -> None:
    """Dialogue Act Mutual Information (previous act → reply act) per system, in bits (seed 002)."""
    tax = load_taxonomy(taxonomy)
    res = score_da_tag_file(file, tax, seed=seed)
    _finish(res, tables.da_distribution_table(res, f"DAMI: {file.name}", ("dami",)), json_out)
    if lift:
        for system in res.summary:
            pairs = [
                (it["prev_act"], it["act"])
                for it in res.items
                if it["system"] == system and it["prev_act"]
            ]
            console.print(
                tables.lift_table(transition_lift(pairs, tax.names), f"transition lift: {system}")
            )


def _has_replies(res: FileScores) -> bool:
    return any("distinct1" in row for row in res.summary.values())


@score_app.command("rouge")
def score_rouge(
    pred: Annotated[Path, typer.Option("--pred", help='System replies: {"id", "text"} per line.')],
    ref: Annotated[Path, typer.Option("--ref", help='Reference replies: {"id", "text"} per line.')],
    json_out: JsonOut = None,
    seed: Seed = 0,
) -> None:
    """Japanese ROUGE-1/2/L F-measures (fugashi tokens), paired by id (seed 001)."""
    res = score_rouge_files(pred, ref, seed=seed)
    _finish(
        res, tables.rouge_table(res, f"ROUGE: {pred.name} vs {ref.name}"), json_out, "pred", "ref"
    )


@app.command("run", no_args_is_help=True)
def run_cmd(
    benchmark: Annotated[str | None, typer.Argument(help="Benchmark name, e.g. prompts.")] = None,
    model: Annotated[
        str | None, typer.Option("--model", "-m", help=f"Model SPEC: {MODEL_HELP}.")
    ] = None,
    annotator: Annotated[
        str | None,
        typer.Option(help="DA annotator: offline, replay:FILE or a model SPEC (da-response)."),
    ] = None,
    data: Annotated[
        Path | None, typer.Option(help="Dataset file (default: the bundled sample).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default: runs/BENCHMARK/MODEL).")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", help="run.yaml with the same settings as these flags."),
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="Base URL for openai: models.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N samples.")] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="Requests in flight (default 16).")
    ] = None,
    rpm: Annotated[float | None, typer.Option(help="Requests per minute limit.")] = None,
    timeout: Annotated[float | None, typer.Option(help="Per-request timeout, seconds.")] = None,
    max_retries: Annotated[int | None, typer.Option(help="Retries on 429/5xx/timeouts.")] = None,
    temperature: Annotated[
        float | None, typer.Option(help="Sampling temperature (default 0).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Reply length limit (default 512).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Generation and bootstrap seed (default 0).")
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Response cache (default ~/.cache/taiwa).")
    ] = None,
    no_cache: Annotated[
        bool | None, typer.Option("--no-cache", help="Do not read or write the cache.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    dialogues: Annotated[
        Path | None, typer.Option(help="cohesion: dialogue JSONL (default: bundled).")
    ] = None,
    resource: Annotated[
        str, typer.Option(help="cohesion: default, vectors:THRESHOLD or an LLR pair table path.")
    ] = "default",
    distance: Annotated[
        int, typer.Option(help="cohesion: max utterance distance d (seed 003).")
    ] = 3,
    strict: Annotated[
        bool, typer.Option(help="cohesion: associated pairs only, no reiteration.")
    ] = False,
) -> None:
    """Run a benchmark on a model and write a run directory; finished requests are cached,
    so an interrupted run resumes where it stopped."""
    if benchmark == "cohesion":
        from taiwa.cohesion_run import run_cohesion

        res = run_cohesion(
            dialogues,
            resource=resource,
            d=distance,
            strict=strict,
            out=out,
            seed=seed or 0,
            show_progress=not quiet,
        )
        console.print(
            tables.cohesion_table(
                res.summary, f"cohesion ({res.summary['resource']}, d={distance})"
            )
        )
        for key in ("correlation_all", "correlation_agents_only"):
            if key in res.summary:
                c = res.summary[key]
                console.print(
                    f"{key}: Pearson r = {c['r']:.2f} [{c['ci_low']:.2f}, {c['ci_high']:.2f}] "
                    f"(n={c['n']} dialogues)"
                )
        console.print(f"→ {res.run_dir}/")
        return
    overrides = {
        k: v
        for k, v in locals().items()
        if k not in ("config", "quiet", "dialogues", "resource", "distance", "strict")
    }
    from taiwa.run_config import resolve_config
    from taiwa.runner import run

    cfg = resolve_config(config, overrides)
    result = run(cfg, show_progress=not quiet)
    console.print(tables.run_summary_table(result.summary, f"{cfg.benchmark} × {cfg.model}"))
    if "examples" in result.summary:
        console.print(tables.da_examples_table(result.summary["examples"]))
    if "annotator" in result.summary:
        s = result.summary
        console.print(
            f"annotator: {s['annotator']}; scored {s.get('n_scored', 0)} of {s['n']}, "
            f"annotation failures: {s.get('annotation_failures', 0)}"
        )
    console.print(
        f"model calls: {result.model_calls}, from cache: {result.cache_hits}, "
        f"errors: {result.errors} → {result.run_dir}/"
    )


@app.command()
def demo(
    out: Annotated[Path | None, typer.Option(help="Also write per-item scores here.")] = None,
) -> None:
    """Run everything offline on the bundled samples and print the tables."""
    from taiwa.demo import run_demo

    run_demo(console, out)


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors become one stderr line and exit code 2 (tracebacks with --debug)."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        app(args=args, prog_name="taiwa")  # click handles usage errors itself (exit code 2)
    except TaiwaError as exc:
        if debug:
            raise
        err.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
