"""``taiwa build da-response``: generate a seed 000 dataset with any chat model (App. A)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from taiwa.display.console import make_console
from taiwa.models.spec import HELP as MODEL_HELP

console = make_console()


def build_da_response(
    scenarios: Annotated[
        Path, typer.Option(help="Scenario instructions: text lines or JSONL 'instruction'.")
    ],
    model: Annotated[str, typer.Option("--model", "-m", help=f"Model SPEC: {MODEL_HELP}.")],
    out: Annotated[Path, typer.Option(help="Dataset JSONL to write (atomically).")],
    attempts: Annotated[
        int, typer.Option(min=1, max=10, help="Tries per scenario, repairs included.")
    ] = 3,
    max_tokens: Annotated[
        int, typer.Option(min=1, max=2**63 - 1, help="Length limit of each generated item.")
    ] = 1024,
    seed: Annotated[int, typer.Option(min=0, max=2**63 - 1, help="Generation seed.")] = 0,
    base_url: Annotated[str | None, typer.Option(help="Base URL for openai: models.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, max=4_096, help="Requests in flight.")] = 16,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Response cache (default ~/.cache/taiwa).")
    ] = None,
) -> None:
    """Generate a da-response dataset with the seed 000 App. A prompt.

    Every item is validated, repaired by re-asking when invalid, and deduplicated. Exits 1
    when a scenario yielded no valid item (the others are written)."""
    import asyncio

    from taiwa.benchmarks.da_response.builder import build_items, read_instructions, write_dataset
    from taiwa.core.io import check_writable
    from taiwa.models import (
        CachingModel,
        ModelOptions,
        ResponseCache,
        default_cache_dir,
        load_model,
    )
    from taiwa.models.spec import ModelSpec

    ModelSpec.parse(model)
    check_writable(out, "--out")
    cache_path = (cache_dir or default_cache_dir()) / "responses.sqlite"
    check_writable(cache_path, "--cache-dir")
    instructions = read_instructions(scenarios)
    options = ModelOptions(base_url=base_url, concurrency=concurrency, cache_dir=cache_dir)
    cache = ResponseCache(cache_path)
    try:
        cached = CachingModel(load_model(model, options), cache)
        report = asyncio.run(
            build_items(cached, instructions, attempts=attempts, max_tokens=max_tokens, seed=seed)
        )
    finally:
        cache.close()
    write_dataset(out, report)
    console.print(
        f"{len(report.items)} item(s) written to {out} from {len(instructions)} scenario(s); "
        f"{report.duplicates} duplicate(s) dropped, {len(report.failures)} failure(s)"
        + (f" (reasons in {out}.failures.jsonl)" if report.failures else "")
    )
    if report.failures:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("da-response", no_args_is_help=True)(build_da_response)
