"""The intent section of ``taiwa demo``: the embedded demo LLM and the seeded random-guess
baseline (``builtin:random``) on the first items of the bundled benchmark (seed 004 Table 1
and Table 2), with ``taiwa run``'s defaults: the run the README's
``taiwa run intent -m demo -m builtin:random --limit 30`` makes, so that command is answered
from the demo's cache."""

from __future__ import annotations

from taiwa.harness.demo_spec import Demo, DemoRun, Lines, RunOutcome, one_run

SYSTEMS = ("demo", "builtin:random")

DEMO_LIMIT = 30
"""Items in the demo run: the first 30 of the bundled 99 (both kinds of item, 21 groups; the
demo LLM reads about 210 prompt tokens per item, about 1.5 s of one core each). The whole set:
``taiwa run intent -m demo``."""


def note(res: RunOutcome) -> Lines:
    items, groups = res.summary["across"]["items"], res.summary["across"]["groups"]
    return [
        f"[dim]The first {items['all']} original items of the bundled benchmark "
        f"({items['dependent']} context-dependent) in {groups['all']} groups of one core "
        "sentence; builtin:random names a random option (chance: about 1 in 4); the stability "
        "curve (Fig. 1) is drawn in the report at the end of the demo.[/dim]"
    ]


def demo() -> Demo:
    return one_run(DemoRun("intent", systems=SYSTEMS, limit=DEMO_LIMIT), note)
