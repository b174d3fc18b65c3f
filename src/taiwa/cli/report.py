"""``taiwa report`` and ``taiwa leaderboard``: generic over every registered method (the
sections come from the method packages through :mod:`taiwa.report`). The registry is read here,
on the top floor, and the method objects are handed down to the report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console


def register(app: typer.Typer, console: Console) -> None:
    @app.command()
    def report(
        run_dirs: Annotated[
            list[Path],
            typer.Argument(
                help="Run directories (holding summary.json), or directories to search below.",
                show_default=False,
            ),
        ],
        out: Annotated[
            Path | None,
            typer.Option(
                help="The HTML file to write (default: report.html in the first directory given)."
            ),
        ] = None,
    ) -> None:
        """One self-contained HTML report of the runs: per benchmark the seed's tables with n and
        95 % CIs, charts, examples, provenance and failures (no network needed to view it)."""
        from rich.markup import escape

        from taiwa.benchmarks import all_methods
        from taiwa.report.page import write_report

        path = write_report(run_dirs, out, methods=all_methods())
        console.print(f"report: {escape(str(path))}", highlight=False, soft_wrap=True)

    @app.command()
    def leaderboard(
        runs_dir: Annotated[
            Path, typer.Argument(help="A directory holding run directories (e.g. runs/).")
        ],
        out: Annotated[
            Path | None,
            typer.Option(
                help="The HTML file to write (default: RUNS_DIR/leaderboard.html); "
                "the Markdown goes beside it (.md)."
            ),
        ] = None,
        baseline: Annotated[
            str | None,
            typer.Option(
                help="The system the 'vs baseline' columns compare with (default: human, else "
                "the first system)."
            ),
        ] = None,
    ) -> None:
        """One table per benchmark across every run and model below RUNS_DIR, as HTML (sortable)
        and Markdown."""
        from rich.markup import escape

        from taiwa.benchmarks import all_methods
        from taiwa.report.leaderboard import write_leaderboard

        html_path, md_path = write_leaderboard(
            runs_dir, out, methods=all_methods(), baseline=baseline
        )
        console.print(
            f"leaderboard: {escape(str(html_path))} and {escape(str(md_path))}",
            highlight=False,
            soft_wrap=True,
        )

    @app.command()
    def compare(
        run_dirs: Annotated[
            list[Path],
            typer.Argument(
                help="Finished run directories of one method on the same items.",
                show_default=False,
            ),
        ],
        baseline: Annotated[
            str | None,
            typer.Option(help="Compare every other system against this one (default: every pair)."),
        ] = None,
        json_out: Annotated[
            Path | None, typer.Option("--json", help="Also write the comparisons block here.")
        ] = None,
    ) -> None:
        """Paired comparisons of the systems of finished runs (difference, 95 % CI, Holm p,
        minimum detectable difference), as one joint run of them would print; refuses runs
        on other items or settings."""
        from rich.markup import escape

        from taiwa.benchmarks import all_methods
        from taiwa.core.io import write_json
        from taiwa.display.comparison_table import comparisons_table, flag_lines
        from taiwa.report.compare_runs import compare_runs

        block = compare_runs(run_dirs, all_methods(), baseline=baseline)
        console.print(comparisons_table(block))
        for line in flag_lines(block):
            console.print(f"[bold yellow]{escape(line)}[/bold yellow]")
        if json_out is not None:
            write_json(json_out, block)
