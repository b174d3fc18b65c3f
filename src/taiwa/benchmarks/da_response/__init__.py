"""``da-response`` (seed 000): does the system answer with the right dialogue acts, in order?

generate → annotate → score. The system gets the App. B prompts: in audio mode (seed 000 §4,
``--input-mode audio``) the user's utterance as a 24 kHz WAV (§3.3; :mod:`.audio`) followed by
the App. B user prompt verbatim; in text mode the utterance's text stands in for the audio. The
``annotator`` role turns each reply into a DA sequence with importances (seed 000 §4.1,
:mod:`.annotate`); the reply is scored against the gold sequence by Weighted LCS and WED with
its breakdown (:mod:`.scoring`); the summary follows Table 1 with Table 2's examples.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from taiwa.benchmarks.da_response import prompts as seed000
from taiwa.benchmarks.da_response.prompts import messages
from taiwa.harness.method import Role, Setup, Summary

if TYPE_CHECKING:
    from taiwa.benchmarks.da_response.dataset import DAResponseItem
    from taiwa.display.section import Section
    from taiwa.harness.demo_spec import Demo
    from taiwa.harness.evidence import ItemEvidence
    from taiwa.harness.method import Results, Row, Stage, Upstream
    from taiwa.harness.run_reader import RunData
    from taiwa.metrics.comparisons import ComparedMetric
    from taiwa.models.spec import ModelOptions


class DAResponseOptions(BaseModel):
    """Options of da-response (``-o key=value``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    input_mode: Literal["text", "audio"] = Field(
        "text",
        description="what the system hears: text (the utterance's text) or audio (its WAV, "
        "seed 000 §3.3; --input-mode audio)",
    )
    render_missing: bool = Field(
        True,
        description="audio mode: items without an audio path are synthesised "
        "(pyopenjtalk-plus) into the cache; false: they are an error",
    )
    annotator_attempts: int = Field(
        3, ge=1, le=10, description="LLM annotator: rounds per reply, repairs included"
    )
    annotator_max_tokens: int = Field(
        512, ge=16, le=8192, description="LLM annotator: length limit of one annotation"
    )


def _score_reply(sample: DAResponseItem, upstream: Upstream) -> Row:
    """:func:`~taiwa.benchmarks.da_response.scoring.score_reply`, its module (numpy, WED)
    loaded on the first reply rather than before the first request (issue 29)."""
    from taiwa.benchmarks.da_response.scoring import score_reply

    return score_reply(sample, upstream)


class AnnotatorValidator:
    """``taiwa validate annotator`` (:mod:`.validate`); default data: the bundled held-out
    replies and gold-vs-flawed items of the offline annotator, both splits (reported apart)."""

    def default_data(self) -> list[Path]:
        from taiwa.benchmarks.da_response.shipped_annotator import SPLITS, split_files

        return [path for split in SPLITS for path in split_files(split)]

    def validate(
        self, spec: str, data: Sequence[Path], seed: int, models: ModelOptions
    ) -> dict[str, Any]:
        from taiwa.benchmarks.da_response.validate import validate_by_split

        return validate_by_split(spec, data, seed, models)

    def tables(self, report: Mapping[str, Any]) -> list[Any]:
        from taiwa.benchmarks.da_response.validate import report_tables

        return list(report_tables(dict(report)))


def check_audio_systems(systems: Iterable[str]) -> None:
    """Audio mode: every system must take audio (one line naming the first that does not)."""
    from taiwa.core.errors import TaiwaError
    from taiwa.harness.method import HUMAN
    from taiwa.models.spec import ModelSpec

    for spec in systems:
        if spec != HUMAN and not ModelSpec.parse(spec).accepts_audio:
            raise TaiwaError(
                f"--model {spec} takes text only, but --input-mode audio gives it audio: use an "
                f"audio chat model (openai:MODEL) or a cascade (cascade:whisper-base+{spec})"
            )


class DAResponseMethod:
    name = "da-response"
    seed = "000"
    title = "dialogue acts of a reply vs the optimal reply: Weighted LCS, WED and its breakdown"
    takes_systems = True
    roles = (
        Role(
            "annotator",
            "DA sequence of each reply: offline (bundled tagger), replay:FILE or a model SPEC "
            "(LLM tagger, seed 000 §4.1)",
            default="offline",
            local=("offline", "replay:"),
        ),
    )
    options = DAResponseOptions
    validators: Mapping[str, AnnotatorValidator] = {"annotator": AnnotatorValidator()}
    prompts: Mapping[str, str] = {
        "response_system": seed000.RESPONSE_SYSTEM,
        "response_user": seed000.RESPONSE_USER,
        "annotation": seed000.TAXONOMY + seed000.few_shot_block() + seed000.ANNOTATION_TASK,
    }

    def default_data(self) -> Path:
        from taiwa.core.samples import sample_path

        return sample_path("da_response/gold.jsonl")

    def load(self, path: Path, options: DAResponseOptions) -> Iterator[DAResponseItem]:
        if options.input_mode == "audio":
            from taiwa.benchmarks.da_response.audio import iter_heard

            return iter_heard(path, options.render_missing)
        from taiwa.benchmarks.da_response.dataset import iter_da_response

        return iter_da_response(path)

    def reference(self, sample: DAResponseItem) -> str | None:
        return sample.output.text

    def stages(self, setup: Setup) -> list[Stage[Any]]:
        from taiwa.benchmarks.da_response.annotate import annotate_stage
        from taiwa.benchmarks.da_response.evidence import record
        from taiwa.harness.stages import GenerateStage, ItemStage, LocalStage

        o: DAResponseOptions = setup.options
        if o.input_mode == "audio":
            check_audio_systems(setup.systems)
        return [
            GenerateStage(partial(messages, mode=o.input_mode), setup.params),
            annotate_stage(
                setup.roles["annotator"], o.annotator_attempts, o.annotator_max_tokens, setup.seed
            ),
            LocalStage("score", _score_reply, output="scores.jsonl"),
            ItemStage(partial(record, mode=o.input_mode)),
        ]

    def evidence(self) -> ItemEvidence:
        """Per item (issue 43): the situation, request and optimal reply with its gold acts;
        per system the reply, its annotated acts and the WED alignment with its breakdown
        (:mod:`.evidence`)."""
        from taiwa.benchmarks.da_response.evidence import evidence

        return evidence()

    def compared(self, options: DAResponseOptions) -> list[ComparedMetric]:
        """Per item: WLCS (higher is better) and WED (lower is better) of seed 000 Table 1."""
        from taiwa.metrics.comparisons import ComparedMetric

        return [
            ComparedMetric("wlcs", "WLCS", "higher", "score", "wlcs"),
            ComparedMetric("wed", "WED", "lower", "score", "wed"),
        ]

    def aggregate(self, samples: Iterable[Any], results: Results, setup: Setup) -> Summary:
        from taiwa.benchmarks.da_response.scoring import system_block
        from taiwa.benchmarks.da_response.shipped_annotator import annotator_summary

        o: DAResponseOptions = setup.options
        across: dict[str, Any] = {
            "input_mode": o.input_mode,
            "annotator": annotator_summary(setup.roles["annotator"]),
        }
        notes: list[str] = []
        if o.input_mode == "audio":
            from taiwa.benchmarks.da_response.audio import rendered_count, rendered_dir

            total, rendered = rendered_count(samples)
            across["audio"] = {"items": total, "rendered": rendered}
            if rendered:
                notes.append(
                    f"input mode audio: {rendered} of {total} item(s) had no audio path; their "
                    f"input.text was synthesised with pyopenjtalk-plus into {rendered_dir()}"
                )
        systems = {s: system_block(results.ok("score", s), setup.seed) for s in results.systems}
        return Summary(systems, across=across, notes=notes)

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        from taiwa.benchmarks.da_response.tables import asr_table, examples_table, table1

        mode = summary.get("across", {}).get("input_mode", "text")
        out: list[Any] = table1(summary, f"da-response (seed 000 Table 1), input mode: {mode}")
        out += asr_table(summary)
        for system, block in summary["systems"].items():
            if "examples" in block:
                out.append(examples_table(block["examples"], system))
        return out

    def report(self, run: RunData) -> Section:
        from taiwa.benchmarks.da_response.report import section

        return section(run)

    def demo(self) -> Demo:
        from taiwa.benchmarks.da_response.demo import demo

        return demo(self.default_data())


METHOD = DAResponseMethod()
