"""``taiwa da``: the embedded default dialogue-act classifier for chit-chat replies (seed 002
§5.2): its held-out figures beside two baselines, and a check that it can be rebuilt."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

da_app = typer.Typer(
    help="The embedded chit-chat dialogue-act classifier (seed 002 §5.2).", no_args_is_help=True
)
console = Console()


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
