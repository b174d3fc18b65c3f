"""The da-response section of ``taiwa demo``: the built-in ``fixed`` baseline on all 60 bundled
items and the embedded demo LLM on a documented subsample, annotated by the offline annotator;
then the bundled set rendered to audio (seed 000 §3.3) and a cascaded speech system
(Whisper-base, then the demo LLM) heard in audio mode on a smaller subsample."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

DEMO_LLM_ITEMS = 12
"""Items answered by the demo LLM (about 3 s each on 2 cores)."""
AUDIO_ITEMS = 10
"""Items heard by the cascade in audio mode (ASR about 1 s, then the demo LLM, each)."""
CASCADE = "cascade:whisper-base+demo"


def run_demo(method: Any, console: Console, out: Path) -> None:
    from taiwa.benchmarks.da_response.offline import annotator_summary
    from taiwa.benchmarks.da_response.tables import WLCS_NOTE, examples_table, table1
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run

    held = annotator_summary("offline")["validated"]
    console.print(
        "Annotator: the offline sentence classifier (no capable LLM ships with taiwa). On the "
        f"bundled held-out replies it reaches mean WED {held['wed']['value']:.2f} against the "
        f"gold sequences (n={held['wed']['n']} replies) and act macro-F1 "
        f"{held['macro_f1']:.2f}; it ranks a gold reply above a flawed variant in "
        f"{held['gold_first']['value']:.0%} of {held['gold_first']['n']} pairs "
        "(taiwa validate annotator prints the full table). " + WLCS_NOTE + "."
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
    audio_demo(method, console, out)


def audio_demo(method: Any, console: Console, out: Path) -> None:
    """Render the bundled set's utterances (pyopenjtalk-plus, 24 kHz / 16-bit / mono, 120 ms
    padding) and run the cascade on the first :data:`AUDIO_ITEMS` in audio mode."""
    from taiwa.benchmarks.da_response.tables import asr_table, table1
    from taiwa.harness.config import RunConfig
    from taiwa.harness.runner import run
    from taiwa.speech.render import render_dataset
    from taiwa.speech.tts import default_tts

    tts = default_tts()
    with console.status("rendering the bundled set's audio …"):
        report = render_dataset(method.default_data(), out / "audio", tts)
    console.print(
        f"Audio: {report.rendered} utterance(s) rendered, {report.skipped} already there "
        f"({tts.identity}; 24 kHz, 16-bit, mono, 120 ms silence each side) → {report.dataset}"
    )
    cfg = RunConfig(
        method="da-response",
        models=[CASCADE],
        data=report.dataset,
        options={"input_mode": "audio"},
        limit=AUDIO_ITEMS,
        max_tokens=160,
        out=out / "da-response" / "cascade_audio",
    )
    summary = run(cfg, method=method).summary
    title = f"Seed 000 Table 1, input mode audio ({CASCADE}, first {AUDIO_ITEMS} items)"
    for table in table1(summary, title) + asr_table(summary):
        console.print(table)
    console.print(
        "[dim]The cascade hears the rendered WAV, Whisper-base (faster-whisper, int8) "
        "transcribes it and the demo LLM answers the transcript; CER compares the transcript "
        "with input.text.[/dim]"
    )
