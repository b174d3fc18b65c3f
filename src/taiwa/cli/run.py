"""``taiwa run`` and ``taiwa list``: generic over every registered method (no method by name).

A method's roles and options are shown by ``taiwa list`` and ``taiwa run METHOD --help``; they
are set with ``--role NAME=SPEC`` (or the shorthands ``--annotator``, ``--judge``, ``--tagger``,
``--asr``) and ``-o key=value``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from taiwa.cli import model_flags as mf
from taiwa.models.spec import HELP as MODEL_HELP

if TYPE_CHECKING:
    from rich.console import Console

ROLE_SHORTHANDS = ("annotator", "judge", "tagger", "asr")
"""Role names with their own flag (any other role: ``--role NAME=SPEC``)."""


def _method_help(name: str) -> list[Any]:
    """Roles and options of one method, as tables."""
    from rich.table import Table

    from taiwa.benchmarks import get_method
    from taiwa.harness.options import describe_options

    m = get_method(name)
    out: list[Any] = [f"[bold]{m.name}[/bold] (seed {m.seed}): {m.title}"]
    roles = Table(title="roles (--role NAME=SPEC)", title_justify="left")
    for col in ("role", "default", "help"):
        roles.add_column(col, overflow="fold")
    if m.takes_systems:
        roles.add_row(
            "system",
            "(required)",
            f"the systems under test: --model SPEC, repeatable; {MODEL_HELP}",
        )
    for r in m.roles:
        roles.add_row(r.name, r.default or ("(required)" if r.required else "–"), r.help)
    out.append(roles)
    opts = Table(title="options (-o key=value)", title_justify="left")
    for col in ("option", "default", "help"):
        opts.add_column(col, overflow="fold")
    for name, default, text in describe_options(m.options):
        opts.add_row(name, default, text)
    out.append(opts if opts.row_count else "options: none")
    return out


def _comma_specs(value: str | None) -> list[str]:
    """``--models A,B``: the SPECs, each non-empty."""
    from taiwa.core.errors import TaiwaError

    if value is None:
        return []
    specs = [part.strip() for part in value.split(",")]
    if not all(specs):
        raise TaiwaError(f"--models {value[:80]!r}: an empty SPEC (expected SPEC,SPEC,...)")
    return specs


def register(app: typer.Typer, console: Console) -> None:
    """Add ``run`` and ``list`` to the root command."""

    @app.command("list")
    def list_cmd() -> None:
        """List the methods with their seed, roles and options."""
        from rich.padding import Padding
        from rich.table import Table
        from rich.text import Text

        from taiwa.benchmarks import get_method, method_names
        from taiwa.harness.options import describe_options

        # one block per method, its name whole on its own line (`taiwa list | grep NAME`),
        # wrapped between words at any width
        console.print("taiwa methods (taiwa run METHOD --help for details)")
        for name in method_names():
            m = get_method(name)
            roles = (["system: --model"] if m.takes_systems else []) + [
                f"{r.name}={r.default or ('(required)' if r.required else '(optional)')}"
                for r in m.roles
            ]
            opts = [f"{n}={d}" for n, d, _ in describe_options(m.options)]
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True, style="dim")
            grid.add_column()
            grid.add_row("roles", Text(", ".join(roles) or "none"))
            grid.add_row("options", Text(", ".join(opts) or "none"))
            console.print()
            console.print(Text(f"{m.name} (seed {m.seed})", style="bold"))
            console.print(Padding(Text(m.title), (0, 0, 0, 2), expand=False))
            console.print(Padding(grid, (0, 0, 0, 2), expand=False))

    @app.command("run", no_args_is_help=True, context_settings={"help_option_names": []})
    def run_cmd(
        ctx: typer.Context,
        method: Annotated[
            str | None, typer.Argument(help="Method (taiwa list), e.g. da-response.")
        ] = None,
        model: Annotated[
            list[str] | None,
            typer.Option(
                "--model", "-m", help=f"A system under test (repeatable): {MODEL_HELP}, or human."
            ),
        ] = None,
        models: Annotated[
            str | None,
            typer.Option(help="Several systems at once: SPEC,SPEC,... (the same as -m each)."),
        ] = None,
        role: Annotated[
            list[str] | None, typer.Option("--role", help="A helper role: NAME=SPEC (repeatable).")
        ] = None,
        annotator: Annotated[
            str | None, typer.Option(help="Shorthand: --role annotator=SPEC.")
        ] = None,
        judge: Annotated[str | None, typer.Option(help="Shorthand: --role judge=SPEC.")] = None,
        tagger: Annotated[str | None, typer.Option(help="Shorthand: --role tagger=SPEC.")] = None,
        asr: Annotated[str | None, typer.Option(help="Shorthand: --role asr=SPEC.")] = None,
        input_mode: Annotated[
            str | None,
            typer.Option(
                help="What the systems hear, e.g. text or audio: shorthand for "
                "-o input_mode=MODE (methods with that option)."
            ),
        ] = None,
        option: Annotated[
            list[str] | None,
            typer.Option("--option", "-o", help="A method option: KEY=VALUE (repeatable)."),
        ] = None,
        data: Annotated[
            Path | None, typer.Option(help="Dataset file (default: the bundled sample).")
        ] = None,
        out: Annotated[
            Path | None,
            typer.Option(
                help="Run directory (default: runs/METHOD/SYSTEMS, then ,KEY=VALUE for each "
                "setting that is not the default)."
            ),
        ] = None,
        config: Annotated[
            Path | None, typer.Option("--config", help="run.yaml with the same settings.")
        ] = None,
        base_url: mf.BaseUrl = None,
        limit: Annotated[int | None, typer.Option(help="Only the first N samples.")] = None,
        concurrency: mf.Concurrency = None,
        rpm: mf.Rpm = None,
        timeout: mf.Timeout = None,
        max_retries: mf.MaxRetries = None,
        retry_window: mf.RetryWindow = None,
        max_retry_wait: mf.MaxRetryWait = None,
        temperature: Annotated[
            float | None, typer.Option(help="Sampling temperature of the systems (default 0).")
        ] = None,
        max_tokens: Annotated[
            int | None, typer.Option(help="Reply length limit of the systems (default 512).")
        ] = None,
        seed: Annotated[
            int | None, typer.Option(help="Generation and bootstrap seed (default 0).")
        ] = None,
        baseline: Annotated[
            str | None,
            typer.Option(help="Compare every other system against this one (default: every pair)."),
        ] = None,
        cache_dir: Annotated[
            Path | None, typer.Option(help="Response cache (default ~/.cache/taiwa).")
        ] = None,
        no_cache: Annotated[
            bool | None, typer.Option("--no-cache", help="Do not read or write the cache.")
        ] = None,
        price: Annotated[
            list[str] | None,
            typer.Option(
                help="MODEL=IN,OUT: USD per million tokens in and out, MODEL the SPEC or the "
                "model's name (repeatable); the calls table then shows what the run cost."
            ),
        ] = None,
        prices: Annotated[
            Path | None,
            typer.Option(help="A YAML/JSON file of prices: MODEL: {in: IN, out: OUT}."),
        ] = None,
        max_failures: mf.MaxFailures = None,
        overwrite: Annotated[
            bool,
            typer.Option("--overwrite", help="Replace a run directory that holds another run."),
        ] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
        help_: Annotated[
            bool, typer.Option("--help", "-h", help="Show this message (and METHOD's roles).")
        ] = False,
    ) -> None:
        """Run a method on one or more systems and write one run directory; every model call is
        cached, so an interrupted run resumes where it stopped."""
        if help_:
            console.print(ctx.get_help())
            if method:
                for part in _method_help(method):
                    console.print(part)
            raise typer.Exit()
        from taiwa.benchmarks import get_method
        from taiwa.core.errors import TaiwaError
        from taiwa.harness.config import parse_assignments, resolve_config
        from taiwa.harness.cost import parse_price, read_prices
        from taiwa.harness.runner import execute, prepare

        roles = parse_assignments(role or [], "--role")
        for name, value in zip(ROLE_SHORTHANDS, (annotator, judge, tagger, asr), strict=True):
            if value is not None:
                roles[name] = value
        options = parse_assignments(option or [], "-o")
        if input_mode is not None:
            given = options.get("input_mode")
            if given is not None and str(given) != input_mode:
                raise TaiwaError(
                    f"--input-mode {input_mode} contradicts -o input_mode={given}: give one"
                )
            options["input_mode"] = input_mode
        overrides = {
            "method": method,
            "models": [*(model or []), *_comma_specs(models)],
            "roles": roles,
            "options": options,
            "data": data,
            "out": out,
            "limit": limit,
            **mf.model_settings(
                base_url, concurrency, rpm, timeout, max_retries, retry_window, max_retry_wait
            ),
            "temperature": temperature,
            "max_tokens": max_tokens,
            "seed": seed,
            "baseline": baseline,
            "cache_dir": cache_dir,
            "no_cache": no_cache,
            "prices": {
                **(read_prices(prices) if prices is not None else {}),
                **dict(parse_price(p) for p in price or []),
            },
        }
        shorthands = {
            f"roles.{name}": f"--{name}"
            for name, value in zip(ROLE_SHORTHANDS, (annotator, judge, tagger, asr), strict=True)
            if value is not None
        }
        if input_mode is not None:
            shorthands["options.input_mode"] = "--input-mode"
        cfg = resolve_config(config, overrides, shorthands)
        plan = prepare(cfg, get_method(cfg.method))
        try:
            mf.allowed_failures(
                max_failures, len(plan.samples)
            )  # a malformed value: before the run
        except BaseException:
            plan.close()  # what the stages hold (a worker process) goes with the plan
            raise
        res = execute(plan, show_progress=not quiet, overwrite=overwrite)
        from taiwa.display.tables import (
            print_result,  # rich, imported after the run, not on its way
        )

        print_result(console, res)
        mf.exit_on_failures(console, res.failures, len(plan.samples), max_failures)
