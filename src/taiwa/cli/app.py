"""The ``taiwa`` command line (typer). It only wires options to the library."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from taiwa import __version__
from taiwa.cli.build import build_app
from taiwa.cli.da import da_app
from taiwa.cli.help import (
    click_exceptions,
    one_line_summaries,
    only_the_command_asked,
    show_flags_as_flags,
    usage_line,
)
from taiwa.cli.report import register as register_report
from taiwa.cli.run import register as register_run
from taiwa.cli.show import register as register_show
from taiwa.cli.validate import validate_app
from taiwa.core.errors import TaiwaError
from taiwa.display.console import make_console
from taiwa.harness.collector import exiting
from taiwa.metrics.flags import small_n_lines

if TYPE_CHECKING:
    from rich.table import Table

    from taiwa.cli.file_scoring import FileScores

show_flags_as_flags()
console = make_console()
err = make_console(stderr=True)

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
app.add_typer(da_app, name="da")
app.add_typer(validate_app, name="validate")
register_run(app, console)
register_report(app, console)
register_show(app, console)

JsonOut = Annotated[
    Path | None,
    typer.Option("--json", help="Also write per-item scores and the summary to this JSON file."),
]
Seed = Annotated[
    int, typer.Option(min=0, max=2**63 - 1, help="Seed of the bootstrap resampling (95 % CIs).")
]


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


def _writable(json_out: Path | None) -> None:
    """Refuse an unwritable ``--json`` before any work is done."""
    if json_out is not None:
        from taiwa.core.io import check_writable

        check_writable(json_out, "--json")


def _finish(
    res: FileScores, table: Table, json_out: Path | None, a: str = "pred", b: str = "gold"
) -> None:
    from taiwa.core.io import write_json
    from taiwa.display.tables import note_line

    console.print(table)
    res.notes.extend(small_n_lines(res.summary, "scores"))
    if res.pairing is not None:
        for side, ids in ((a, res.pairing.only_pred), (b, res.pairing.only_gold)):
            if ids:
                shown = ", ".join(ids[:10]) + (" …" if len(ids) > 10 else "")
                err.print(
                    f"[yellow]note:[/yellow] {len(ids)} id(s) only in --{side}, not scored: {shown}"
                )
    for note in res.notes:
        err.print(note_line(note))
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
    _writable(json_out)
    from taiwa.cli import score_tables
    from taiwa.cli.file_scoring import score_da_sequence_files
    from taiwa.core.taxonomies import load_taxonomy

    res = score_da_sequence_files(pred, gold, load_taxonomy(taxonomy), seed=seed)
    _finish(
        res,
        score_tables.da_sequence_table(res, f"WED: {pred.name} vs {gold.name}", ("wed",)),
        json_out,
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
    _writable(json_out)
    from taiwa.cli import score_tables
    from taiwa.cli.file_scoring import score_da_sequence_files
    from taiwa.core.taxonomies import load_taxonomy

    res = score_da_sequence_files(pred, gold, load_taxonomy(taxonomy), seed=seed)
    _finish(
        res,
        score_tables.da_sequence_table(res, f"WLCS: {pred.name} vs {gold.name}", ("wlcs",)),
        json_out,
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
    _writable(json_out)
    from taiwa.cli import score_tables
    from taiwa.cli.file_scoring import score_da_tag_file
    from taiwa.core.taxonomies import load_taxonomy

    res = score_da_tag_file(file, load_taxonomy(taxonomy), seed=seed)
    columns = ("dae", "distinct1", "distinct2") if _has_replies(res) else ("dae",)
    _finish(res, score_tables.da_distribution_table(res, f"DAE: {file.name}", columns), json_out)


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
    _writable(json_out)
    from taiwa.cli import score_tables
    from taiwa.cli.file_scoring import score_da_tag_file
    from taiwa.core.taxonomies import load_taxonomy
    from taiwa.display import tables
    from taiwa.metrics import transition_lift

    tax = load_taxonomy(taxonomy)
    res = score_da_tag_file(file, tax, seed=seed)
    _finish(res, score_tables.da_distribution_table(res, f"DAMI: {file.name}", ("dami",)), json_out)
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
    _writable(json_out)
    from taiwa.cli import score_tables
    from taiwa.cli.file_scoring import score_rouge_files

    res = score_rouge_files(pred, ref, seed=seed)
    _finish(
        res,
        score_tables.rouge_table(res, f"ROUGE: {pred.name} vs {ref.name}"),
        json_out,
        "pred",
        "ref",
    )


@app.command()
def demo(
    out: Annotated[Path | None, typer.Option(help="Also write per-item scores here.")] = None,
) -> None:
    """Run every method offline on the bundled samples and print the tables."""
    from taiwa.cli.demo import run_demo

    run_demo(console, out)


one_line_summaries(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors become one stderr line (secrets masked) and their exit code: 2
    for bad input, 1 for a run that cannot go on (tracebacks with --debug). Called with no
    ``argv`` it is the process (the ``taiwa`` command) and spares the interpreter's exit its
    last collection (:func:`~taiwa.harness.collector.exiting`); called with ``argv`` (tests,
    scripts) it leaves the collector alone."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    clicks = click_exceptions()
    try:
        # not standalone: click's usage errors come here, to be one line (exit code 2)
        code = only_the_command_asked(app, args)(
            args=args, prog_name="taiwa", standalone_mode=False
        )
    except clicks.ClickException as exc:
        if isinstance(exc, getattr(clicks, "NoArgsIsHelpError", ())):
            from typer.rich_utils import rich_format_error

            rich_format_error(exc)  # type: ignore[arg-type]  # no arguments: the help
        else:
            from rich.markup import escape

            line = usage_line(exc) if isinstance(exc, clicks.UsageError) else exc.format_message()
            err.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        err.print("Aborted!", highlight=False)
        sys.exit(1)
    except TaiwaError as exc:
        if debug:
            raise
        from rich.markup import escape

        from taiwa.core.redact import redact

        message = escape(redact(str(exc)))
        err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    finally:
        if argv is None:  # called as the ``taiwa`` process, which ends here
            exiting()
    # like click's standalone mode: the command's end is the process's exit (0, or typer.Exit's
    # code, e.g. 130 after Ctrl-C)
    sys.exit(code if isinstance(code, int) else 0)
