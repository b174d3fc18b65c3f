"""``taiwa da``: the embedded default dialogue-act classifier for chit-chat replies (seed 002
§5.2): its held-out figures beside two baselines, a check that it can be rebuilt, and training
one's own tagger (``taiwa da train``: the default recipe on the user's data, or a transformers
encoder fine-tuned by the seed's recipe with ``--base``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from taiwa.display.console import make_console

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
            help="Recompute on the held-out splits now (refits the char-n-gram baseline, "
            "~1 min) instead of printing the figures recorded with the shipped model."
        ),
    ] = False,
) -> None:
    """Per-class precision / recall / F1 on the tidy and the chat-style held-out splits (seed
    002 Table 5 layout), macro-F1 and accuracy beside a majority-class and a char-n-gram-only
    baseline, and the calibration of the probabilities."""
    from taiwa.annotators.da_classifier.model import DAClassifier

    classifier = DAClassifier.load()
    metrics = classifier.meta["held_out_metrics"]
    if fresh:
        from taiwa.annotators.da_classifier.recipe import evaluate as evaluate_now
        from taiwa.annotators.da_classifier.recipe import training_sets

        train, tests, _ = training_sets()
        metrics = evaluate_now(classifier, train, tests)
    for name, block in metrics.items():
        if isinstance(block, dict):
            _print_split(name, block, classifier.acts)
    cal = classifier.meta.get("calibration", {})
    if cal:
        console.print(
            f"calibration (validation fold, n={cal['n']}): temperature {cal['temperature']:.3f}, "
            f"expected calibration error {cal['ece_before']:.3f} → {cal['ece_after']:.3f}"
        )
    data = classifier.meta.get("training_data", {})
    console.print(
        f"[dim]trained on {data.get('n', '?')} examples of "
        f"{', '.join(data.get('files', {})) or 'the bundled labelled set'}; "
        "rebuild check: taiwa da check[/dim]"
    )


def _print_split(name: str, metrics: dict[str, Any], acts: tuple[str, ...]) -> None:
    from rich.table import Table

    per = metrics["default"]["per_class"]
    n = sum(r["support"] for r in per.values())
    t = Table(title=f"default DA classifier, {name} held-out split (n={n})", title_justify="left")
    for col in ("act", "precision", "recall", "F1", "n"):
        t.add_column(col, justify="left" if col == "act" else "right")
    for act in acts:
        r = per[act]
        t.add_row(
            act, f"{r['precision']:.3f}", f"{r['recall']:.3f}", f"{r['f1']:.3f}", str(r["support"])
        )
    console.print(t)
    b = Table(title=f"{name}: macro-F1 beside the baselines", title_justify="left")
    for col in ("model", "macro-F1", "accuracy"):
        b.add_column(col, justify="left" if col == "model" else "right")
    for key, label in (
        ("default", "default (casual-chat features, vectors, morphemes)"),
        ("char_ngram", "char-n-gram-only logistic regression"),
        ("majority", "majority class"),
    ):
        b.add_row(label, f"{metrics[key]['macro_f1']:.3f}", f"{metrics[key]['accuracy']:.3f}")
    console.print(b)
    console.print(f"expected calibration error on it: {metrics['ece']:.3f}")


@da_app.command("check")
def check() -> None:
    """Retrain the default classifier in memory from the bundled data (a few minutes) and
    compare it with the shipped model; exit 1 when it differs."""
    from taiwa.annotators.da_classifier import recipe
    from taiwa.annotators.da_classifier.model import DAClassifier, differences

    shipped = DAClassifier.load()
    fresh, _ = recipe.train()
    diff = differences(fresh, shipped)
    if diff:
        console.print("[red]differs from the shipped model:[/red] " + "; ".join(diff))
        raise typer.Exit(1)
    console.print("reproduces the shipped model")


@da_app.command("train")
def train_command(
    out: Annotated[Path, typer.Option(help="Directory to write the trained tagger to.")],
    data: Annotated[
        Path | None,
        typer.Option(help="Labelled JSONL {id, context, reply, act} (default: the bundled set)."),
    ] = None,
    base: Annotated[
        Path | None,
        typer.Option(
            help="Local encoder directory (save_pretrained: config + weights + tokenizer) to "
            "fine-tune; without it, the default classifier's recipe is trained (CPU, minutes)."
        ),
    ] = None,
    epochs: Annotated[
        int, typer.Option(min=1, max=1_000, help="Epochs; the best by validation is kept.")
    ] = 4,
    batch_size: Annotated[
        int, typer.Option(min=1, max=65_536, help="Examples per optimiser step.")
    ] = 16,
    lr: Annotated[float, typer.Option(help="AdamW learning rate (positive).")] = 5e-5,
    max_length: Annotated[
        int, typer.Option(min=8, max=65_536, help="Tokens per (context, reply) pair.")
    ] = 128,
    seed: Annotated[
        int, typer.Option(min=0, max=2**32 - 1, help="Seed of the split, upsampling, init.")
    ] = 0,
    overwrite: Annotated[bool, typer.Option(help="Replace a non-empty --out.")] = False,
    char_ngram: Annotated[
        bool,
        typer.Option(
            help="Without --base: the reply's character n-grams only (no MeCab, no vectors): "
            "the faster, less accurate tagger of `taiwa validate tagger`'s char-n-gram row."
        ),
    ] = False,
    previous_act: Annotated[
        bool,
        typer.Option(
            "--previous-act/--no-previous-act",
            help="Without --base: also train the default's previous-act block (a context "
            "tagger whose guess of the previous utterance's act is a feature) when rows have "
            "a context; --no-previous-act leaves it out.",
        ),
    ] = True,
) -> None:
    """Train a chitchat11 dialogue-act tagger on labelled utterances (seed 002 §5.2): without
    --base, the default classifier's features and recipe (L2 strength and temperature picked on
    a 4:1 validation split; the previous-act block when rows have contexts); with --base, a
    local transformers encoder fine-tuned (acts upsampled, the epoch with the lowest validation
    cross-entropy kept). Nothing is downloaded. Use the result with --tagger OUT."""
    from taiwa.annotators.da_classifier.encoder_train import read_training_data

    examples, sha = read_training_data(data)
    data_path = "bundled labelled set" if data is None else str(data)
    if base is None:
        from taiwa.annotators.da_classifier.own import train_own

        with console.status("training (features, L2 search, temperature) …"):
            own = train_own(
                examples,
                out,
                overwrite=overwrite,
                sha256=sha,
                data_path=data_path,
                char_ngram=char_ngram,
                previous_act=previous_act,
            )
        _print_own(own)
        console.print(f"wrote {out}")
        return
    from importlib.util import find_spec

    from taiwa.annotators.da_classifier.encoder import require_hf
    from taiwa.annotators.da_classifier.encoder_train import (
        check_base,
        check_out,
        check_settings,
        train_encoder,
    )

    if find_spec("torch") is None or find_spec("transformers") is None:
        require_hf()  # says what to install
    # before torch is imported (15 s): wrong settings, --base or --out are refused at once
    check_settings(epochs, batch_size, lr, max_length)
    check_base(base)
    check_out(out, overwrite)
    require_hf()
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
            data_path=data_path,
        )
    _print_training(meta)
    console.print(f"wrote {out}")


def _print_own(meta: dict[str, Any]) -> None:
    from rich.table import Table

    info, cal = meta["training"], meta["calibration"]
    t = Table(title="L2 strength by validation cross-entropy", title_justify="left")
    for col in ("L2", "validation cross-entropy", ""):
        t.add_column(col, justify="right")
    for l2, ce in info["validation_cross_entropy"].items():
        t.add_row(l2, f"{ce:.4f}", "← chosen" if float(l2) == info["l2"] else "")
    console.print(t)
    console.print(
        f"trained on {info['n_train']} examples, validated on {info['n_validation']}, refitted "
        f"on all {info['n_fit']}; temperature {cal['temperature']:.3f} (expected calibration "
        f"error on validation {cal['ece_before']:.3f} → {cal['ece_after']:.3f})"
    )
    block = meta["previous_act"]
    if block["used"]:
        console.print(
            f"previous-act block: context tagger ({block['context_tagger']}, L2 {block['l2']:g}) "
            f"fitted on all {info['n_fit']} replies alone; its guesses of the "
            f"{block['n_with_context']} previous utterances cross-fitted in {block['folds']} "
            f"folds by dialogue ({block['dialogues']} dialogues)"
        )
    else:
        console.print(f"previous-act block: not trained ({block['reason']})")
    if meta["acts_without_examples"]:
        console.print(f"no examples of: {', '.join(meta['acts_without_examples'])}")


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
    from rich.table import Table

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
