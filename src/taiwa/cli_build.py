"""``taiwa build``: datasets and resources (da-response items, co-occurrence pairs, calibration)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console

from taiwa.models.spec import HELP as MODEL_HELP

console = Console()

build_app = typer.Typer(help="Build datasets and resources.", no_args_is_help=True)


@build_app.command("da-response", no_args_is_help=True)
def build_da_response(
    scenarios: Annotated[
        Path, typer.Option(help="Scenario instructions: text lines or JSONL 'instruction'.")
    ],
    model: Annotated[str, typer.Option("--model", "-m", help=f"Model SPEC: {MODEL_HELP}.")],
    out: Annotated[Path, typer.Option(help="Dataset JSONL to write (atomically).")],
    attempts: Annotated[int, typer.Option(help="Tries per scenario, repairs included.")] = 3,
    max_tokens: Annotated[int, typer.Option(help="Length limit of each generated item.")] = 1024,
    seed: Annotated[int, typer.Option(help="Generation seed.")] = 0,
    base_url: Annotated[str | None, typer.Option(help="Base URL for openai: models.")] = None,
    concurrency: Annotated[int, typer.Option(help="Requests in flight.")] = 16,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Response cache (default ~/.cache/taiwa).")
    ] = None,
) -> None:
    """Generate a da-response dataset with the seed 000 App. A prompt.

    Every item is validated, repaired by re-asking when invalid, and deduplicated."""
    import asyncio

    from taiwa.builders.da_response import build_items, read_instructions, write_dataset
    from taiwa.models import (
        CachingModel,
        ModelOptions,
        ResponseCache,
        default_cache_dir,
        load_model,
    )

    instructions = read_instructions(scenarios)
    options = ModelOptions(base_url=base_url, concurrency=concurrency, cache_dir=cache_dir)
    cache = ResponseCache((cache_dir or default_cache_dir()) / "responses.sqlite")
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


@build_app.command("calibrate-cohesion")
def build_calibrate_cohesion(
    dialogues: Annotated[
        Path | None, typer.Option(help="Labelled dialogue JSONL (default: the bundled sample).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the splicing.")] = 0,
) -> None:
    """Separation (real vs spliced dialogues) and F1 vs human labels per cosine threshold."""
    from rich.table import Table as RichTable

    from taiwa.cohesion_eval import load_dialogues
    from taiwa.resources.calibration import best, calibrate
    from taiwa.samples import sample_path

    points = calibrate(
        load_dialogues(dialogues or sample_path("cohesion/dialogues.jsonl")), seed=seed
    )
    t = RichTable(title="Vector threshold calibration (seed 003 cohesion, reiteration on)")
    for name in ("θ", "separation", "precision", "recall", "F1"):
        t.add_column(name, justify="right")
    for p in points:
        t.add_row(*(f"{v:.2f}" for v in (p.threshold, p.separation, p.precision, p.recall, p.f1)))
    console.print(t)
    console.print(f"best threshold: {best(points).threshold:.2f}")


@build_app.command("cooccurrence", no_args_is_help=True)
def build_cooccurrence(
    inputs: Annotated[
        list[str],
        typer.Argument(help="Corpus files (plain or .gz) or directories of them."),
    ],
    out: Annotated[Path, typer.Option(help="Parquet pair table to write (+ OUT.meta.json).")],
    kind: Annotated[
        str,
        typer.Option(
            help="text: one sentence per line; tokens: space-separated content words per line; "
            "ngrams: Web 1T 'w1 … wn<TAB>count' (1-grams and one order n ≥ 2)."
        ),
    ] = "text",
    engine: Annotated[
        str, typer.Option(help="duckdb (embedded, out-of-core) or spark (local[*] or a cluster).")
    ] = "duckdb",
    sentences: Annotated[
        int | None, typer.Option(help="ngrams: F, the corpus' number of sentences.")
    ] = None,
    window: Annotated[
        int | None,
        typer.Option(
            help="text/tokens: count windows of N content words (7 ~ the seed's 7-grams)."
        ),
    ] = None,
    llr_threshold: Annotated[
        float, typer.Option(help="Keep pairs with λ ≥ this (seed: 10000 at web scale).")
    ] = 10.0,
    min_pair_count: Annotated[int, typer.Option(help="Keep pairs with g ≥ this.")] = 2,
    min_word_count: Annotated[int, typer.Option(help="Drop words with h below this.")] = 1,
    exclude_top_k: Annotated[
        int | None, typer.Option(help="Drop the K most frequent words (seed: 'very frequent').")
    ] = None,
    max_word_ratio: Annotated[
        float | None, typer.Option(help="Drop words with h / F above this.")
    ] = None,
    keep_negative: Annotated[
        bool, typer.Option(help="Also keep pairs seen less often than chance (g F ≤ h_v h_w).")
    ] = False,
    infeasible: Annotated[
        str, typer.Option(help="ngrams: clip or drop pairs whose g exceeds what h and F allow.")
    ] = "clip",
    memory_limit: Annotated[
        str, typer.Option(help="duckdb: memory limit before spilling.")
    ] = "2GB",
    workers: Annotated[int, typer.Option(help="duckdb: tokenising processes for text input.")] = 1,
    master: Annotated[
        str | None, typer.Option(help="spark: master URL (default local[*] or spark-submit's).")
    ] = None,
) -> None:
    """Mine word association pairs by log-likelihood ratio (seed 003 §2.2, eq. 1).

    The table is a cohesion resource: [bold]taiwa run cohesion --resource OUT[/bold]."""
    from pydantic import ValidationError

    from taiwa.errors import TaiwaError
    from taiwa.resources.cooccurrence import mine_cooccurrence
    from taiwa.resources.cooccurrence_config import MinerConfig

    if engine not in ("duckdb", "spark"):
        raise TaiwaError(f"--engine must be duckdb or spark, got {engine!r}")
    if kind not in ("text", "tokens", "ngrams"):
        raise TaiwaError(f"--kind must be text, tokens or ngrams, got {kind!r}")
    try:
        config = MinerConfig.model_validate(
            {
                "input_kind": kind,
                "sentences": sentences,
                "window": window,
                "llr_threshold": llr_threshold,
                "positive_only": not keep_negative,
                "infeasible": infeasible,
                "min_pair_count": min_pair_count,
                "min_word_count": min_word_count,
                "exclude_top_k": exclude_top_k,
                "max_word_ratio": max_word_ratio,
                "duckdb": {"memory_limit": memory_limit, "workers": workers},
                "spark": {"master": master},
            }
        )
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'settings'}: "
            + e["msg"].removeprefix("Value error, ")
            for e in exc.errors()
        )
        raise TaiwaError(f"bad miner settings: {problems}") from None
    eng: Literal["duckdb", "spark"] = "spark" if engine == "spark" else "duckdb"
    with console.status(f"mining co-occurrences with {engine} …"):
        report = mine_cooccurrence(inputs, out, config, engine=eng)
    c = report.counts
    console.print(
        f"{c.pairs_out:,} pair(s) with λ ≥ {llr_threshold:g} from {c.words:,} word(s), "
        f"F = {report.F:,} "
        f"({report.engine_version}, {report.seconds:.1f} s) → {report.out} "
        f"(+ {report.meta.name})"
    )
