"""The da-response section of ``taiwa demo``: the built-in ``fixed`` baseline on all 60 bundled
items and the embedded demo LLM on a documented subsample, annotated by the offline annotator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

DEMO_LLM_ITEMS = 12
"""Items answered by the demo LLM (about 3 s each on 2 cores)."""


def run_demo(method: Any, console: Console, out: Path) -> None:
    from taiwa.benchmarks.da_response.offline import annotator_summary
    from taiwa.benchmarks.da_response.tables import WLCS_NOTE, examples_table, table1
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    held = annotator_summary("offline")["validated"]
    console.print(
        "Annotator: the offline sentence classifier (no capable LLM ships with taiwa). On the "
        f"bundled held-out replies it reaches mean WED {held['wed']['value']:.2f} against the "
        f"gold sequences (n={held['wed']['n']} replies) and act macro-F1 "
        f"{held['macro_f1']:.2f}; it ranks a gold reply above a flawed variant in "
        f"{held['gold_first']['value']:.0%} of {held['gold_first']['n']} pairs "
        "(taiwa validate annotator prints the full table). " + WLCS_NOTE + "."
    )
    summaries = {}
    for model, limit in (("builtin:fixed", None), ("demo", DEMO_LLM_ITEMS)):
        cfg = RunConfig(
            method="da-response",
            models=[model],
            limit=limit,
            max_tokens=160,
            out=out / "da-response" / model.replace(":", "_"),
        )
        summaries[model] = run(cfg, method=method).summary
    merged = {"systems": {m: s["systems"][m] for m, s in summaries.items()}}
    for table in table1(merged, "Seed 000 Table 1 (dataset: bundled sample; annotator: offline)"):
        console.print(table)
    console.print(
        "[dim]demo = Qwen2.5-Coder-0.5B-Instruct (embedded; fluent Japanese, weak judgement) "
        f"on the first {DEMO_LLM_ITEMS} items; builtin:fixed answers from a fixed script "
        "whatever the input.[/dim]"
    )
    console.print(examples_table(merged["systems"]["demo"]["examples"], "demo"))
