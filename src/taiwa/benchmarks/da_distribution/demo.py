"""The da-distribution section of ``taiwa demo``: the parrot and ELIZA baselines, the embedded
demo LLM and the test set's human replies, tagged by the embedded classifier (seed 002
Table 2's contrast: the parrot's DAE and DAMI are 0, its Distinct is not), with ``taiwa run``'s
defaults: the run the README's ``taiwa run da-distribution -m builtin:parrot -m builtin:eliza
-m demo -m human --limit 40`` makes, so that command is answered from the demo's cache."""

from __future__ import annotations

from taiwa.harness.demo_spec import Demo, DemoRun, Lines, RunOutcome, one_run

SYSTEMS = ("builtin:parrot", "builtin:eliza", "demo", "human")

DEMO_LIMIT = 40
"""Contexts in the demo run (the demo LLM answers 40 in about 45 s on one core; its replies
are short, under 50 characters, so they end on their own well before ``--max-tokens``)."""


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
        options={"consistency_repetitions": 2000},
    )
    return one_run(run, note)
