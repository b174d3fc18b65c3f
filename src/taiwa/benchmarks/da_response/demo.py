"""The da-response section of ``taiwa demo``: the built-in ``fixed`` baseline on all 60 bundled
items and the embedded demo LLM on a documented subsample, annotated by the offline annotator;
then the bundled set rendered to audio (seed 000 §3.3) and a cascaded speech system
(Whisper-base, then the demo LLM) heard in audio mode on a smaller subsample."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from taiwa.harness.demo_spec import Demo, DemoRun, DemoStep, Lines, RunOutcome

DEMO_LLM_ITEMS = 12
"""Items answered by the demo LLM (about 3 s each on 2 cores), with ``taiwa run``'s defaults
(its replies end on their own, under 100 characters): the README's ``taiwa run da-response
--model demo --limit 10`` asks the same first 10 and is answered from the demo's cache."""
AUDIO_ITEMS = 10
"""Items heard by the cascade in audio mode (ASR about 1 s, then the demo LLM, each)."""
CASCADE = "cascade:whisper-base+demo"
TEXT_SYSTEMS = (("builtin:fixed", None), ("demo", DEMO_LLM_ITEMS))
"""The text-mode runs: system and how many items it answers (``None``: all)."""
AUDIO_DIR = "audio"
"""Where the bundled set is rendered, under the demo's output directory."""


def annotator_lines(out: Path) -> Lines:
    """Which annotator tags the replies, with its figures on the bundled held-out files."""
    from taiwa.benchmarks.da_response.shipped_annotator import annotator_summary
    from taiwa.benchmarks.da_response.tables import WLCS_NOTE

    held = annotator_summary("offline")["validated"]
    return [
        "Annotator: the offline sentence classifier (no capable LLM ships with taiwa). On the "
        f"bundled held-out replies it reaches mean WED {held['wed']['value']:.2f} against the "
        f"gold sequences (n={held['wed']['n']} replies) and act macro-F1 "
        f"{held['macro_f1']:.2f}; it ranks a gold reply above a flawed variant in "
        f"{held['gold_first']['value']:.0%} of {held['gold_first']['n']} pairs "
        "(taiwa validate annotator prints the full table). " + WLCS_NOTE + "."
    ]


def text_lines(outcomes: Sequence[RunOutcome]) -> Lines:
    """Table 1 joining the text-mode runs, a note and the demo LLM's examples."""
    from taiwa.benchmarks.da_response.tables import examples_table, table1

    systems = [model for model, _ in TEXT_SYSTEMS]
    merged = {
        "systems": {m: res.summary["systems"][m] for m, res in zip(systems, outcomes, strict=True)}
    }
    return [
        *table1(merged, "Seed 000 Table 1 (dataset: bundled sample; annotator: offline)"),
        "[dim]demo = Qwen2.5-Coder-0.5B-Instruct (embedded; fluent Japanese, weak judgement) "
        f"on the first {DEMO_LLM_ITEMS} items; builtin:fixed answers from a fixed script "
        "whatever the input.[/dim]",
        examples_table(merged["systems"]["demo"]["examples"], "demo"),
    ]


def render_audio(data: Path, out: Path) -> Lines:
    """Render the bundled set's utterances (pyopenjtalk-plus, 24 kHz / 16-bit / mono, 120 ms
    padding) into ``out/AUDIO_DIR``, with the dataset that points at them."""
    from taiwa.speech.render import render_dataset
    from taiwa.speech.tts import default_tts

    tts = default_tts()
    report = render_dataset(data, out / AUDIO_DIR, tts)
    return [
        f"Audio: {report.rendered} utterance(s) rendered, {report.skipped} already there "
        f"({tts.identity}; 24 kHz, 16-bit, mono, 120 ms silence each side) → {report.dataset}"
    ]


def audio_lines(outcomes: Sequence[RunOutcome]) -> Lines:
    """Table 1 and the ASR table of the cascade in audio mode, and what it did."""
    from taiwa.benchmarks.da_response.tables import asr_table, table1

    summary = outcomes[0].summary
    title = f"Seed 000 Table 1, input mode audio ({CASCADE}, first {AUDIO_ITEMS} items)"
    return [
        *table1(summary, title),
        *asr_table(summary),
        "[dim]The cascade hears the rendered WAV, Whisper-base (faster-whisper, int8) "
        "transcribes it and the demo LLM answers the transcript; CER compares the transcript "
        "with input.text.[/dim]",
    ]


def demo(data: Path) -> Demo:
    """The text runs on ``data`` (the bundled set), then the cascade on its rendered audio."""
    from functools import partial

    from taiwa.speech.render import default_dataset_out

    text_runs = [
        DemoRun(
            f"da-response/{model.replace(':', '_')}",
            systems=(model,),
            limit=limit,
            show="nothing",
        )
        for model, limit in TEXT_SYSTEMS
    ]
    audio_run = DemoRun(
        "da-response/cascade_audio",
        systems=(CASCADE,),
        data=default_dataset_out(data, Path(AUDIO_DIR)),
        options={"input_mode": "audio"},
        limit=AUDIO_ITEMS,
        max_tokens=160,
        show="nothing",
    )
    return Demo(
        [
            DemoStep(text_runs, before=annotator_lines, after=text_lines),
            DemoStep(
                [audio_run],
                before=partial(render_audio, data),
                status="rendering the bundled set's audio …",
                after=audio_lines,
            ),
        ]
    )
