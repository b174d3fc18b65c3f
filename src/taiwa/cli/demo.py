"""``taiwa demo``: everything offline on the embedded defaults, printed as tables.

1. The metrics on the bundled sample files (seeds 000, 001, 002).
2. Each registered method's own demo section: what ``Method.demo()`` declares
   (:mod:`taiwa.harness.demo_spec`), run here through the runner, e.g. da-response end to end
   with a baseline and the embedded LLM, cohesion on the bundled labelled dialogues.
3. The HTML report of every run directory the demo wrote (``runs/demo/report.html``).
4. The next three commands a user runs on their own model (issue 42): the demo's run of the
   embedded LLM alone on one method, with an OpenAI-compatible endpoint in its place; the
   report of that run; its paired comparison with the demo's run (:func:`next_commands`).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from taiwa.cli import score_tables
from taiwa.cli.file_scoring import score_da_sequence_files, score_da_tag_file, score_rouge_files
from taiwa.core.io import write_json
from taiwa.core.samples import sample_path
from taiwa.core.taxonomies import load_taxonomy
from taiwa.display import tables

if TYPE_CHECKING:
    from taiwa.harness.config import RunConfig
    from taiwa.harness.demo_spec import DemoRun
    from taiwa.harness.method import Method
    from taiwa.harness.runner import RunResult


def metrics_on_samples(console: Console, out_dir: Path) -> None:
    console.rule("1. Metrics on the bundled sample files")
    gold, pred = sample_path("da_response/gold.jsonl"), sample_path("da_response/pred.jsonl")
    seq = score_da_sequence_files(pred, gold, load_taxonomy("assistant7"))
    console.print(
        score_tables.da_sequence_table(
            seq, "da-response (seed 000): sample replies vs gold DA sequences", ("wlcs", "wed")
        )
    )
    tags = score_da_tag_file(sample_path("chitchat_da/replies.jsonl"), load_taxonomy("chitchat11"))
    console.print(
        score_tables.da_distribution_table(
            tags,
            "da-distribution (seed 002): dialogue-act diversity per system",
            ("dae", "dami", "distinct1", "distinct2"),
        )
    )
    rouge = score_rouge_files(sample_path("rouge/pred.jsonl"), sample_path("rouge/ref.jsonl"))
    console.print(
        score_tables.rouge_table(rouge, "Japanese ROUGE (seed 001): sample replies vs references")
    )
    console.print(
        "[dim]Acts and importances above are the hand-written sample annotations; CIs are "
        "seeded 95 % percentile bootstraps over items.[/dim]"
    )
    for name, res in (("da_sequence", seq), ("da_distribution", tags), ("rouge", rouge)):
        write_json(
            out_dir / "metrics" / f"{name}.json", {"summary": res.summary, "items": res.items}
        )


def run_config(method: str, demo_run: DemoRun, out_dir: Path) -> RunConfig:
    """The run config of one demo run: what ``taiwa run`` builds from the same flags, with the
    run directory (and a relative ``data``) under ``out_dir``."""
    from taiwa.harness.config import RunConfig

    settings: dict[str, Any] = {
        "method": method,
        "models": list(demo_run.systems),
        "roles": dict(demo_run.roles),
        "options": dict(demo_run.options),
        "out": out_dir / demo_run.out,
    }
    given = {
        "data": None if demo_run.data is None else out_dir / demo_run.data,
        "limit": demo_run.limit,
        "max_tokens": demo_run.max_tokens,
    }
    settings.update((key, value) for key, value in given.items() if value is not None)
    return RunConfig.model_validate(settings)


def method_demo(method: Method[Any], console: Console, out_dir: Path) -> None:
    """Everything ``method.demo()`` declares, in order: each step's lines (while its ``status``
    shows), its runs through the runner, each printed as its ``show`` says, then its closing
    lines. A run directory left by an earlier demo with other settings or inputs (taiwa
    updated since) is replaced: the demo's directories are its own (a directory holding files
    taiwa did not write is still refused)."""
    from taiwa.harness.runner import run

    for step in method.demo().steps:
        if step.before is not None:
            with console.status(step.status) if step.status else nullcontext():
                lines = step.before(out_dir)
            _print(console, lines)
        outcomes: list[RunResult] = []
        for demo_run in step.runs:
            cfg = run_config(method.name, demo_run, out_dir)
            res = run(cfg, method=method, show_progress=demo_run.progress, overwrite=True)
            if demo_run.show == "result":
                tables.print_result(console, res)
            elif demo_run.show == "tables":
                _print(console, method.tables(res.summary))
            outcomes.append(res)
        if step.after is not None:
            _print(console, step.after(outcomes))


def _print(console: Console, lines: Sequence[Any]) -> None:
    for line in lines:
        console.print(line)


def run_demo(console: Console, out_dir: Path | None = None) -> None:
    """The metrics on the sample files, then every registered method's demo section; the run
    directories go under ``out_dir``."""
    from taiwa.benchmarks import all_methods, get_method, method_names

    out = out_dir or Path("runs") / "demo"
    metrics_on_samples(console, out)
    for k, name in enumerate(method_names(), start=2):
        method = get_method(name)
        console.rule(f"{k}. {method.name} (seed {method.seed}): {method.title}")
        method_demo(method, console, out)
    console.print(f"Run directories and per-item scores: {out}/")
    from taiwa.report.page import write_report

    report = write_report([out], out / "report.html", methods=all_methods())
    console.print(f"Report (open it in a browser): {report}")
    commands = next_commands(out)
    if commands:
        console.print(
            "\nNext, your own model on an OpenAI-compatible endpoint (vLLM, llama.cpp's server, "
            "Ollama, a hosted API with its key in OPENAI_API_KEY): write its name for MODEL and "
            "its URL (e.g. http://127.0.0.1:8000/v1) for URL, then evaluate it, write its "
            "report, and compare it with the demo LLM on the same items:",
            highlight=False,
        )
        for command in commands:
            console.print(command, markup=False, highlight=False, soft_wrap=True)


MODEL_RUN_DIR = Path("runs") / "mine"
"""Where the first of :func:`next_commands` writes the user's run."""


def next_commands(out: Path) -> list[str]:
    """The three commands a user runs after the demo, on their own model: ``taiwa run`` of the
    first demo run (registry order) that asks the embedded LLM alone with the method's
    defaults (no role, option or data of its own), with ``openai:MODEL`` at ``URL`` in its
    place and its ``--limit`` and ``--max-tokens``; ``taiwa report`` of that run; and
    ``taiwa compare`` of the demo's run with it, which pairs the two on the same items (the
    same settings, so `taiwa compare` accepts them). Empty when no method declares such a
    run. Chosen by what the runs declare: the CLI knows no method by name."""
    from taiwa.benchmarks import get_method, method_names

    for name in method_names():
        for step in get_method(name).demo().steps:
            for demo_run in step.runs:
                if tuple(demo_run.systems) != ("demo",) or demo_run.roles or demo_run.options:
                    continue
                if demo_run.data is not None:
                    continue
                run = f"taiwa run {name} -m openai:MODEL --base-url URL"
                if demo_run.limit is not None:
                    run += f" --limit {demo_run.limit}"
                if demo_run.max_tokens is not None:
                    run += f" --max-tokens {demo_run.max_tokens}"
                mine = MODEL_RUN_DIR.as_posix()
                return [
                    f"{run} --out {mine}",
                    f"taiwa report {mine}",
                    f"taiwa compare {_shell_path(out / demo_run.out)} {mine}",
                ]
    return []


def _shell_path(path: Path) -> str:
    """``path`` as a shell word (quoted when it holds a space or another special character)."""
    return shlex.quote(path.as_posix())
