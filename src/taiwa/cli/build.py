"""``taiwa build``: datasets and resources. The shared ones are here (the co-occurrence miner,
benchmark audio); each method package may add its own builders in its ``cli`` module
(``register(app)``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from taiwa.display.console import make_console

console = make_console()

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

    from taiwa.core.errors import TaiwaError
    from taiwa.core.io import check_writable, shown
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
        flags = {"input_kind": "kind", "positive_only": "keep-negative"}
        problems = "; ".join(
            f"--{flags.get(str(e['loc'][-1]), str(e['loc'][-1]).replace('_', '-'))}: "
            + e["msg"].removeprefix("Value error, ")
            if e["loc"]
            else e["msg"].removeprefix("Value error, ")
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


@build_app.command("audio", no_args_is_help=True)
def build_audio(
    data: Annotated[Path, typer.Option(help="Dataset (JSONL/CSV/Parquet) with id and texts.")],
    out: Annotated[Path, typer.Option(help="Directory for the WAV files.")],
    field: Annotated[
        list[str] | None,
        typer.Option(
            help="TEXT_FIELD=AUDIO_KEY to speak (repeatable; default input.text=audio, the "
            "user's utterance of seed 000 App. A)."
        ),
    ] = None,
    reference: Annotated[
        bool, typer.Option("--reference", help="Also speak output.text into output_audio.")
    ] = False,
    dataset_out: Annotated[
        Path | None,
        typer.Option(help="Dataset written with the audio paths (default OUT/<data name>.jsonl)."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option(min=1, max=2**63 - 1, help="Only the first N records.")
    ] = None,
    speed: Annotated[float, typer.Option(min=0.5, max=2.0, help="Speaking rate.")] = 1.0,
) -> None:
    """Speak a dataset's texts as 24 kHz / 16-bit / mono WAV files with 120 ms of silence on
    each side (seed 000 §3.3), using pyopenjtalk-plus (offline).

    Each file is written atomically; a re-run skips files already rendered in this format."""
    from taiwa.core.errors import TaiwaError
    from taiwa.core.io import check_writable, require_file
    from taiwa.speech.render import TextField, default_dataset_out, render_dataset
    from taiwa.speech.tts import OpenJTalkTTS

    require_file(data)
    fields: list[TextField] = []
    for spec in field or ["input.text=audio"]:
        path, eq, key = spec.partition("=")
        if not eq or not path.strip() or not key.strip():
            raise TaiwaError(f"--field {spec[:80]!r}: expected TEXT_FIELD=AUDIO_KEY")
        fields.append(TextField(path.strip(), key.strip()))
    if reference:
        fields.append(TextField("output.text", "output_audio"))
    target = dataset_out or default_dataset_out(data, out)
    if target.resolve() == data.resolve():
        raise TaiwaError(f"--dataset-out {target} is the input: give another file")
    check_writable(target, "--dataset-out")
    tts = OpenJTalkTTS(speed=speed)
    with console.status("rendering audio …"):
        report = render_dataset(data, out, tts, fields, target, limit)
    console.print(
        f"{report.rendered} file(s) rendered, {report.skipped} already there → {out}/; "
        f"{report.audio_seconds:.1f} s of audio, {report.cpu_per_utterance:.3f} s CPU per "
        f"rendered utterance ({tts.identity}); dataset with audio paths → {target}"
    )
