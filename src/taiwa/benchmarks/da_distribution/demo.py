"""The da-distribution section of ``taiwa demo``: the parrot and ELIZA baselines, the embedded
demo LLM and the test set's human replies, tagged by the embedded classifier (seed 002
Table 2's contrast: the parrot's DAE and DAMI are 0, its Distinct is not)."""

from __future__ import annotations

from taiwa.harness.demo_spec import Demo, DemoRun, Lines, RunOutcome, one_run

SYSTEMS = ("builtin:parrot", "builtin:eliza", "demo", "human")

DEMO_LIMIT = 60
"""Contexts in the demo run (the demo LLM answers 60 in about 70 s on 2 cores)."""


def note(res: RunOutcome) -> Lines:
    return [
        f"[dim]{res.summary['n_samples']} contexts of the bundled test set; acts by the "
        "embedded classifier (taiwa da evaluate). builtin:parrot repeats the context, "
        "builtin:eliza answers from rules, human is the test set's own reply; the "
        f"consistency curve is {res.run_dir / 'consistency.svg'}.[/dim]"
    ]


def demo() -> Demo:
    run = DemoRun(
        "da-distribution",
        systems=SYSTEMS,
        limit=DEMO_LIMIT,
        max_tokens=48,
        options={"consistency_repetitions": 2000},
    )
    return one_run(run, note)
