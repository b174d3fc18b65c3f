"""``taiwa da``: the embedded default dialogue-act classifier for chit-chat replies (seed 002
§5.2): its held-out figures beside two baselines, a check that it can be rebuilt, and the
fine-tuning of a transformers encoder by the seed's recipe (``taiwa da train``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from taiwa.terminal import make_console

da_app = typer.Typer(
    help="The embedded chit-chat dialogue-act classifier (seed 002 §5.2).", no_args_is_help=True
)
console = make_console()

if TYPE_CHECKING:
    from rich.progress import Progress


@da_app.command("evaluate")
def evaluate(
    fresh: Annotated[
        bool,
        typer.Option(
            help="Recompute on the held-out split now (refits the char-n-gram baseline, ~30 s) "
            "instead of printing the figures recorded with the shipped model."
        ),
    ] = False,
) -> None:
    """Per-class precision / recall / F1 on the held-out split (seed 002 Table 5 layout) and
    macro-F1 beside a majority-class and a char-n-gram-only baseline."""
    from taiwa.annotators.da_classifier import DAClassifier

    classifier = DAClassifier.load()
    metrics = classifier.meta["held_out_metrics"]
    if fresh:
        from taiwa.annotators.da_classifier import evaluate as evaluate_now
        from taiwa.annotators.da_classifier import held_out_split, load_examples

        dev, test = held_out_split(load_examples()[0])
        metrics = evaluate_now(classifier, dev, test)
    per = metrics["default"]["per_class"]
    n = sum(r["support"] for r in per.values())
    t = Table(title=f"default DA classifier, held-out split (n={n})", title_justify="left")
    for name in ("act", "precision", "recall", "F1", "n"):
        t.add_column(name, justify="left" if name == "act" else "right")
    for act in classifier.acts:
        r = per[act]
        t.add_row(
            act, f"{r['precision']:.3f}", f"{r['recall']:.3f}", f"{r['f1']:.3f}", str(r["support"])
        )
    console.print(t)
    b = Table(title="macro-F1 beside the baselines", title_justify="left")
    for name in ("model", "macro-F1", "accuracy"):
        b.add_column(name, justify="left" if name == "model" else "right")
    for key, label in (
        ("default", "default (char n-grams, vectors, echo features)"),
        ("char_ngram", "char-n-gram-only logistic regression"),
        ("majority", "majority class"),
    ):
        b.add_row(label, f"{metrics[key]['macro_f1']:.3f}", f"{metrics[key]['accuracy']:.3f}")
    console.print(b)
    data = classifier.meta.get("training_data", {})
    console.print(
        f"[dim]trained on {data.get('path', 'the bundled labelled set')} "
        f"(sha256 {str(data.get('sha256', '?'))[:12]}…); rebuild check: taiwa da check[/dim]"
    )


@da_app.command("check")
def check() -> None:
    """Retrain the default classifier in memory from the bundled labelled set (~100 s) and
    compare it with the shipped model; exit 1 when it differs."""
    from taiwa.annotators.da_classifier import DAClassifier, differences, train

    shipped = DAClassifier.load()
    fresh, _ = train()
    diff = differences(fresh, shipped)
    if diff:
        console.print("[red]differs from the shipped model:[/red] " + "; ".join(diff))
        raise typer.Exit(1)
    console.print("reproduces the shipped model")


@da_app.command("train")
def train_command(
    base: Annotated[
        Path,
        typer.Option(
            help="Local encoder directory (save_pretrained: config + weights + tokenizer)."
        ),
    ],
    out: Annotated[Path, typer.Option(help="Directory to write the fine-tuned classifier to.")],
    data: Annotated[
        Path | None,
        typer.Option(help="Labelled JSONL {id, context, reply, act} (default: the bundled set)."),
    ] = None,
    epochs: Annotated[int, typer.Option(min=1, help="Epochs; the best by validation is kept.")] = 4,
    batch_size: Annotated[int, typer.Option(min=1, help="Examples per optimiser step.")] = 16,
    lr: Annotated[float, typer.Option(help="AdamW learning rate (positive).")] = 5e-5,
    max_length: Annotated[int, typer.Option(min=8, help="Tokens per (context, reply) pair.")] = 128,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the split, upsampling, init.")] = 0,
    overwrite: Annotated[bool, typer.Option(help="Replace a non-empty --out.")] = False,
) -> None:
    """Fine-tune a local transformers encoder as a chitchat11 dialogue-act classifier (seed 002
    §5.2): 4:1 train/validation split, acts upsampled to the largest, the epoch with the lowest
    validation cross-entropy kept. Nothing is downloaded."""
    from taiwa.annotators.da_encoder import require_hf
    from taiwa.annotators.da_encoder_train import read_training_data, train_encoder

    require_hf()
    examples, sha = read_training_data(data)
    with _train_progress() as bar:
        meta = train_encoder(
            examples,
            base,
            out,
            epochs=epochs,
            batch_size=batch_size,
            lr=lr,
            max_length=max_length,
            seed=seed,
            progress=_advance(bar),
            overwrite=overwrite,
            sha256=sha,
            data_path="bundled labelled set" if data is None else str(data),
        )
    _print_training(meta)
    console.print(f"wrote {out}")


def _train_progress() -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
    )


def _advance(bar: Progress) -> Callable[[int, int, int], None]:
    """``progress(epoch, done, steps)`` for :func:`train_encoder`: one task per epoch."""
    tasks: dict[int, Any] = {}

    def update(epoch: int, done: int, steps: int) -> None:
        if epoch not in tasks:
            tasks[epoch] = bar.add_task(f"epoch {epoch}", total=steps)
        bar.update(tasks[epoch], completed=done)

    return update


def _print_training(meta: dict[str, Any]) -> None:
    t = Table(
        title="epochs (seed 002 §5.2: the lowest validation loss is kept)", title_justify="left"
    )
    for name in ("epoch", "train loss", "validation cross-entropy", ""):
        t.add_column(name, justify="right")
    for row in meta["epoch_log"]:
        chosen = "← chosen" if row["epoch"] == meta["chosen_epoch"] else ""
        t.add_row(
            str(row["epoch"]),
            f"{row['train_loss']:.4f}",
            f"{row['validation_cross_entropy']:.4f}",
            chosen,
        )
    console.print(t)
    split, report = meta["split"], meta["validation"]
    console.print(
        f"trained on {split['n_train']} examples ({split['n_train_upsampled']} upsampled), "
        f"validated on {split['n_validation']}: macro-F1 {report['macro_f1']:.3f}, "
        f"accuracy {report['accuracy']:.3f} (epoch {meta['chosen_epoch']})"
    )
