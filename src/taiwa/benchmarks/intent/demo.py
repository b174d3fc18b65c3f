"""The intent section of ``taiwa demo``: the embedded demo LLM and the seeded random-guess
baseline (``builtin:random``) on the bundled benchmark (seed 004 Table 1 and Table 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from taiwa.tables import print_result

SYSTEMS = ["demo", "builtin:random"]


def run_demo(method: Any, console: Console, out: Path) -> None:
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    cfg = RunConfig(method=method.name, models=SYSTEMS, max_tokens=24, out=out / "intent")
    res = run(cfg, method=method)
    print_result(console, res)
    items = res.summary["across"]["items"]
    console.print(
        f"[dim]{items['all']} original items ({items['dependent']} context-dependent) in 34 "
        "groups of one core sentence; builtin:random names a random option (chance: about 1 in "
        "4); the stability curve (Fig. 1) is drawn in the report at the end of the demo.[/dim]"
    )
