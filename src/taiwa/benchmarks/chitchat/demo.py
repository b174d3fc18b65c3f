"""The chitchat section of ``taiwa demo``: two built-in baselines, the embedded demo LLM and the
human-written continuations (``human``) on a documented subsample of the bundled tasks, judged
by the demo LLM (single and pairwise), plus ROUGE on every item."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from taiwa.tables import print_result

DEMO_PER_TASK = 1
"""Items per task type in the judged demo run (3 items: about 50 judge calls, ~2 min on 2
cores; the demo LLM reuses the prompt prefix an item's calls share)."""

SYSTEMS = ["builtin:parrot", "builtin:eliza", "demo", "human"]


def run_demo(method: Any, console: Console, out: Path) -> None:
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    cfg = RunConfig(
        method=method.name,
        models=SYSTEMS,
        roles={"judge": "demo"},
        options={"per_task": DEMO_PER_TASK, "judge_attempts": 2, "judge_max_tokens": 96},
        max_tokens=160,
        out=out / "chitchat",
    )
    res = run(cfg, method=method)
    print_result(console, res)
    console.print(
        f"[dim]{DEMO_PER_TASK} item per task type ({res.summary['n_samples']} items); "
        "judge = the embedded demo LLM (Qwen2.5-Coder-0.5B-Instruct), far too weak to judge: "
        "this run shows the mechanics (both orders, ties on flips, the quality lines), not a "
        "ranking. builtin:parrot echoes the prompt, builtin:eliza answers from rules, human "
        "is the corpus's own continuation.[/dim]"
    )
