"""``prompts``: the smallest method, a list of chat prompts with optional reference replies.

generate → score. Each reply is scored by its length, its share of Japanese characters and,
when a reference is given, Japanese ROUGE-1/2/L against it (seed 001, 簡易評価). It is the
worked example of ``docs/architecture.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.harness.method import NoOptions, Results, Setup, Summary, Upstream

if TYPE_CHECKING:
    from taiwa.benchmarks.prompts.dataset import PromptSample
    from taiwa.display.section import Section
    from taiwa.harness.demo_spec import Demo
    from taiwa.harness.evidence import ItemEvidence
    from taiwa.harness.method import Stage
    from taiwa.harness.run_reader import RunData
    from taiwa.metrics.comparisons import ComparedMetric

_JA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff66-\uff9f]")
_VISIBLE = re.compile(r"\S")
METRICS = {
    "chars": "chars",
    "japanese_share": "Japanese",
    "rouge1": "ROUGE-1",
    "rouge2": "ROUGE-2",
    "rougeL": "ROUGE-L",
}


def japanese_share(text: str) -> float:
    """Share of visible characters that are kana or kanji."""
    visible = len(_VISIBLE.findall(text))
    return len(_JA.findall(text)) / visible if visible else 0.0


def score_reply(sample: PromptSample, upstream: Upstream) -> dict[str, Any]:
    """Length and Japanese share of the reply; ROUGE against the reference when there is one."""
    text = upstream["generate"]["text"] or ""
    row: dict[str, Any] = {"chars": len(text), "japanese_share": japanese_share(text)}
    if sample.reference is not None:
        from taiwa.metrics.overlap import rouge_ja  # fugashi: only when needed

        row.update(rouge_ja(text, sample.reference).as_dict())
    return row


class PromptsMethod:
    name = "prompts"
    seed = "-"
    title = "chat prompts (+ references): reply length, Japanese share, Japanese ROUGE"
    takes_systems = True
    roles = ()
    options = NoOptions
    prompts: Mapping[str, str] = {}

    def default_data(self) -> Path:
        from taiwa.core.samples import sample_path

        return sample_path("prompts/tiny.jsonl")

    def load(self, path: Path, options: NoOptions) -> Iterator[PromptSample]:
        from taiwa.benchmarks.prompts.dataset import iter_prompts

        return iter_prompts(path)

    def reference(self, sample: PromptSample) -> str | None:
        return sample.reference

    def stages(self, setup: Setup) -> list[Stage[Any]]:
        from taiwa.harness.stages import GenerateStage, ItemStage, LocalStage

        return [
            GenerateStage(lambda s: s.chat(), setup.params),
            LocalStage("score", score_reply, output="scores.jsonl"),
            ItemStage(lambda s: s.model_dump(exclude={"id"}, exclude_none=True)),
        ]

    def evidence(self) -> ItemEvidence:
        """Per item (the item view, issue 43): the prompt rebuilt from the item's record, the
        reference, and each reply's numbers (``ItemStage`` above records the item)."""
        from taiwa.benchmarks.prompts.dataset import PromptSample
        from taiwa.display.evidence import TextBlock
        from taiwa.harness.evidence import ItemEvidence, ItemMetric

        def sample(item: Any) -> PromptSample:
            return PromptSample.model_validate({**item.item, "id": item.id})

        return ItemEvidence(
            title=lambda item: sample(item).chat()[-1].text if item.item else "",
            item=lambda item: (
                [TextBlock("reference", str(item.item["reference"]))]
                if item.item.get("reference")
                else []
            ),
            metrics=[ItemMetric(k, label, "score", k) for k, label in METRICS.items()],
            prompt=lambda item: sample(item).chat(),
        )

    def compared(self, options: NoOptions) -> list[ComparedMetric]:
        """Per item: the Japanese share of the reply and, with references, its ROUGE-L (both
        higher is better; the length has no better direction)."""
        from taiwa.metrics.comparisons import ComparedMetric

        return [
            ComparedMetric("japanese_share", "JA share", "higher", "score", "japanese_share"),
            ComparedMetric("rougeL", "ROUGE-L", "higher", "score", "rougeL"),
        ]

    def aggregate(self, samples: Iterable[Any], results: Results, setup: Setup) -> Summary:
        from array import array

        from taiwa.metrics.stats import bootstrap_ci

        systems = {}
        for system in results.systems:
            # doubles, not float objects: 8 bytes a value rather than 32 (issue 40 §4)
            values: dict[str, array[float]] = {key: array("d") for key in METRICS}
            for row in results.ok("score", system):
                for key, vals in values.items():
                    if key in row:
                        vals.append(float(row[key]))
            systems[system] = {
                key: bootstrap_ci(vals, seed=setup.seed).as_dict()
                for key, vals in values.items()
                if vals
            }
        return Summary(systems)

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        from taiwa.display.tables import systems_table

        return [systems_table(summary, "prompts", METRICS, "mean [95 % bootstrap CI]")]

    def report(self, run: RunData) -> Section:
        """The share of Japanese and the ROUGE F-measures per system as bars with 95 % CIs."""
        from taiwa.display.section import Figure, Section
        from taiwa.report.figures import grouped_bars

        systems = run.summary["systems"]
        keys = [k for k in METRICS if k != "chars" and any(k in b for b in systems.values())]
        series = {s: [b.get(k) for k in keys] for s, b in systems.items()}
        if not keys or not series:
            return Section()
        svg = grouped_bars([METRICS[k] for k in keys], series, "mean per reply", ylim=(0, 1.05))
        return Section([Figure("per system", svg, "error bars: 95 % bootstrap CI")])

    def demo(self) -> Demo:
        """Two baselines and the references themselves (``human``) on the bundled prompts."""
        from taiwa.harness.demo_spec import DemoRun, one_run

        systems = ("builtin:parrot", "builtin:eliza", "human")
        return one_run(DemoRun("prompts", systems=systems, progress=False, show="tables"))


METHOD = PromptsMethod()
