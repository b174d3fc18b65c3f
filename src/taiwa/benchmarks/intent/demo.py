"""The intent section of ``taiwa demo``: the embedded demo LLM and the seeded random-guess
baseline (``builtin:random``) on the bundled benchmark (seed 004 Table 1 and Table 2)."""

from __future__ import annotations

from taiwa.harness.demo_spec import Demo, DemoRun, Lines, RunOutcome, one_run

SYSTEMS = ("demo", "builtin:random")


def note(res: RunOutcome) -> Lines:
    items = res.summary["across"]["items"]
    return [
        f"[dim]{items['all']} original items ({items['dependent']} context-dependent) in 34 "
        "groups of one core sentence; builtin:random names a random option (chance: about 1 in "
        "4); the stability curve (Fig. 1) is drawn in the report at the end of the demo.[/dim]"
    ]


def demo() -> Demo:
    return one_run(DemoRun("intent", systems=SYSTEMS, max_tokens=24), note)
