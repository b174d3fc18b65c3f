"""The chitchat section of ``taiwa demo``: two built-in baselines, the embedded demo LLM and the
human-written continuations (``human``) on a documented subsample of the bundled tasks, judged
by the demo LLM (single and pairwise), plus ROUGE on every item."""

from __future__ import annotations

from taiwa.harness.demo_spec import Demo, DemoRun, Lines, RunOutcome, one_run

DEMO_PER_TASK = 1
"""Items per task type in the judged demo run (3 items: 22 judge calls, about 6,500 prompt
tokens evaluated, as the demo LLM reuses the prompt prefix an item's calls share; about 75 s of
one core). The README's ROUGE-only ``taiwa run chitchat ... -m demo -o per_task=1 --max-tokens
160`` asks the demo LLM what this run asks, so it is answered from the demo's cache
(tests/test_demo_spec.py)."""

SYSTEMS = ("builtin:parrot", "builtin:eliza", "demo", "human")


def note(res: RunOutcome) -> Lines:
    return [
        f"[dim]{DEMO_PER_TASK} item per task type ({res.summary['n_samples']} items); "
        "judge = the embedded demo LLM (Qwen2.5-Coder-0.5B-Instruct), far too weak to judge: "
        "this run shows the mechanics (both orders, ties on flips, the quality lines), not a "
        "ranking. builtin:parrot echoes the prompt, builtin:eliza answers from rules, human "
        "is the corpus's own continuation.[/dim]"
    ]


def demo() -> Demo:
    run = DemoRun(
        "chitchat",
        systems=SYSTEMS,
        roles={"judge": "demo"},
        options={"per_task": DEMO_PER_TASK, "judge_attempts": 2, "judge_max_tokens": 96},
        max_tokens=160,
    )
    return one_run(run, note)
