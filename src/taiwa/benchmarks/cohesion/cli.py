"""``taiwa build calibrate-cohesion``: choose the vector resource's cosine threshold (seed 003)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from taiwa.display.console import make_console

console = make_console()


def build_calibrate_cohesion(
    dialogues: Annotated[
        Path | None, typer.Option(help="Labelled dialogue JSONL (default: the bundled sample).")
    ] = None,
    seed: Annotated[int, typer.Option(min=0, max=2**63 - 1, help="Seed of the splicing.")] = 0,
) -> None:
    """Separation (real vs spliced dialogues) and F1 vs human labels per cosine threshold."""
    from rich.table import Table as RichTable

    from taiwa.benchmarks.cohesion.calibration import best, calibrate
    from taiwa.benchmarks.cohesion.dataset import load_dialogues
    from taiwa.core.samples import sample_path

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


def register(app: typer.Typer) -> None:
    app.command("calibrate-cohesion")(build_calibrate_cohesion)
