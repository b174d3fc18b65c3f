"""The da-response section of ``taiwa demo``: the built-in ``fixed`` baseline on all 60 bundled
items and the embedded demo LLM on a documented subsample, annotated by the offline tagger."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

DEMO_LLM_ITEMS = 12
"""Items answered by the demo LLM (about 3 s each on 2 cores)."""


def run_demo(method: Any, console: Console, out: Path) -> None:
    from taiwa.annotators.sentence_tagger import held_out_agreement
    from taiwa.benchmarks.da_response.dataset import load_da_response
    from taiwa.benchmarks.da_response.tables import examples_table, table1
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    items = sorted(load_da_response(method.default_data()), key=lambda it: it.id)
    agreement = held_out_agreement([(it.output.text, it.gold) for it in items])
    console.print(
        "Annotator: the offline sentence tagger (no capable LLM ships with taiwa). On held-out "
        f"sample items it reaches mean WED {agreement.mean_wed:.2f} against the gold sequences "
        f"(n={agreement.n_items} items) and act accuracy {agreement.act_accuracy:.2f} "
        f"(n={agreement.n_sentences} sentences); read the numbers below with that in mind."
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
