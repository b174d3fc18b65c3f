"""The da-distribution section of ``taiwa demo``: the parrot and ELIZA baselines, the embedded
demo LLM and the test set's human replies, tagged by the embedded classifier (seed 002
Table 2's contrast: the parrot's DAE and DAMI are 0, its Distinct is not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from taiwa.tables import print_result

SYSTEMS = ["builtin:parrot", "builtin:eliza", "demo", "human"]

DEMO_LIMIT = 60
"""Contexts in the demo run (the demo LLM answers 60 in about 70 s on 2 cores)."""


def run_demo(method: Any, console: Console, out: Path) -> None:
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    cfg = RunConfig(
        method=method.name,
        models=SYSTEMS,
        limit=DEMO_LIMIT,
        max_tokens=48,
        options={"consistency_repetitions": 2000},
        out=out / "da-distribution",
    )
    res = run(cfg, method=method)
    print_result(console, res)
    console.print(
        f"[dim]{res.summary['n_samples']} contexts of the bundled test set; acts by the "
        "embedded classifier (taiwa da evaluate). builtin:parrot repeats the context, "
        "builtin:eliza answers from rules, human is the test set's own reply; the "
        f"consistency curve is {res.run_dir / 'consistency.svg'}.[/dim]"
    )
