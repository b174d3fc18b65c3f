"""``taiwa build chitchat``: seed 001's three tasks from a chat corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from taiwa.display.console import make_console

console = make_console()


def build_chitchat(
    corpus: Annotated[Path, typer.Option(help="Chat corpus JSONL: dialogues of 2 or 3 speakers.")],
    out: Annotated[Path, typer.Option(help="Task JSONL to write (atomically).")],
    seed: Annotated[
        int, typer.Option(min=0, max=2**63 - 1, help="Seed of cut points, N and labels.")
    ] = 0,
    per_dialogue: Annotated[
        int,
        typer.Option(min=0, max=1000, help="Next-utterance / next-speaker items per dialogue."),
    ] = 2,
    continuations: Annotated[
        int, typer.Option(min=0, max=1000, help="Continuation items per dialogue.")
    ] = 1,
    min_context: Annotated[
        int, typer.Option(min=1, max=10_000, help="Speaker turns before a cut, at least.")
    ] = 6,
    min_turns: Annotated[
        int, typer.Option(min=1, max=50, help="Continuation: fewest turns to write.")
    ] = 2,
    max_turns: Annotated[
        int, typer.Option(min=1, max=50, help="Continuation: most turns to write.")
    ] = 5,
) -> None:
    """Build next-utterance, next-speaker and continuation items (seed 001).

    Speaker labels are drawn at random per item; the reference is the real continuation.
    The same corpus and seed give the same file."""
    from taiwa.benchmarks.chitchat.builder import BuildSettings, build_tasks
    from taiwa.benchmarks.chitchat.corpus import iter_corpus
    from taiwa.core.errors import TaiwaError
    from taiwa.core.io import check_writable, write_jsonl

    if min_turns > max_turns:
        raise TaiwaError(f"--min-turns ({min_turns}) must not exceed --max-turns ({max_turns})")
    check_writable(out, "--out")
    settings = BuildSettings(
        seed=seed,
        per_dialogue=per_dialogue,
        continuations=continuations,
        min_context=min_context,
        min_turns=min_turns,
        max_turns=max_turns,
    )
    result = build_tasks(iter_corpus(corpus), settings)
    if not result.items:
        raise TaiwaError(
            f"no item built from {corpus}: every dialogue needs more than {min_context} "
            "speaker turns (--min-context), or ask for items (--per-dialogue, --continuations)"
        )
    write_jsonl(out, result.items)
    counts = ", ".join(f"{n} {task}" for task, n in result.counts().items())
    console.print(f"{len(result.items)} item(s) written to {out}: {counts}")
    if result.short:
        console.print(
            f"{len(result.short)} dialogue(s) too short for every item asked for: "
            + ", ".join(result.short[:5])
            + (" …" if len(result.short) > 5 else "")
        )


def register(app: typer.Typer) -> None:
    app.command("chitchat", no_args_is_help=True)(build_chitchat)
