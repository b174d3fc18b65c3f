"""``taiwa build``: datasets and resources. The co-occurrence miner (a shared resource) is here;
each method package may add its own builders in its ``cli`` module (``register(app)``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console

console = Console(emoji=False)

build_app = typer.Typer(help="Build datasets and resources.", no_args_is_help=True)


def _method_builders() -> None:
    """Let every method package with a ``cli`` module add its builders (``register(app)``)."""
    import importlib
    import importlib.util

    from taiwa.benchmarks import METHODS

    for module in METHODS.values():
        if importlib.util.find_spec(f"{module}.cli") is not None:
            importlib.import_module(f"{module}.cli").register(build_app)


_method_builders()


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
    from taiwa.io import check_writable, shown
    from taiwa.resources.cooccurrence.config import MinerConfig
    from taiwa.resources.cooccurrence.table import meta_path, mine_cooccurrence

    if engine not in ("duckdb", "spark"):
        raise TaiwaError(f"--engine must be duckdb or spark, got {shown(engine)}")
    if kind not in ("text", "tokens", "ngrams"):
        raise TaiwaError(f"--kind must be text, tokens or ngrams, got {shown(kind)}")
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
    check_writable(out, "--out")
    check_writable(meta_path(out), "--out")
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
