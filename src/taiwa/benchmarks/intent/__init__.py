"""``intent`` (seed 004): does a model read the intent a speaker implies, as the context changes it?

generate → score. Each model answers seed 004's question (:mod:`.prompts`: B's context sentence,
A's core sentence, the implied intents of the core sentence's contexts and 「該当なし」); the
option is read from its answer by :func:`parse_answer` (:mod:`.parsing`; unparseable answers are
counted and scored wrong) and scored against the gold label (:mod:`.scoring`). The summary is
Table 1 (accuracy overall, on context-dependent and context-independent items, n and 95 % CI)
and the stability analysis of §3.2 (Table 2; Fig. 1 is drawn by the report, :mod:`.plots`).
The benchmark file (:mod:`.dataset`) is built by ``taiwa build intent`` (:mod:`.builder`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from taiwa.benchmarks.intent.parsing import parse_answer
from taiwa.benchmarks.intent.prompts import messages
from taiwa.harness.method import Results, Setup, Summary

if TYPE_CHECKING:
    from taiwa.benchmarks.intent.dataset import IntentItem
    from taiwa.display.section import Section
    from taiwa.harness.demo_spec import Demo
    from taiwa.harness.evidence import ItemEvidence
    from taiwa.harness.method import Role, Stage
    from taiwa.harness.run_reader import RunData
    from taiwa.metrics.comparisons import ComparedMetric


class IntentOptions(BaseModel):
    """Options of intent (``-o key=value``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    stability_step: int | None = Field(
        None,
        ge=1,
        description="prefix sizes of the stability analysis: n = step, 2·step, … (default: 50 "
        "from 500 items, about a tenth of a smaller benchmark)",
    )
    stability_threshold: float = Field(
        0.02, gt=0, lt=1, description="the accuracy gap a prefix must stay below (seed 004: 0.02)"
    )


class IntentMethod:
    name = "intent"
    seed = "004"
    title = "implied intent under different contexts: multiple choice, dependent/independent split"
    takes_systems = True
    roles: tuple[Role, ...] = ()
    options = IntentOptions

    @property
    def prompts(self) -> Mapping[str, str]:
        from taiwa.benchmarks.intent.prompts import PROMPTS

        return PROMPTS

    def default_data(self) -> Path:
        from taiwa.core.samples import sample_path

        return sample_path("intent/items.jsonl")

    def load(self, path: Path, options: IntentOptions) -> Iterable[IntentItem]:
        from taiwa.benchmarks.intent.dataset import read_with_dependence

        return read_with_dependence(path)

    def reference(self, sample: IntentItem) -> str | None:
        return sample.options[sample.gold]  # `human`: the annotators' majority answer

    def stages(self, setup: Setup) -> list[Stage[Any]]:
        from taiwa.benchmarks.intent.evidence import record
        from taiwa.benchmarks.intent.scoring import score_answer
        from taiwa.harness.stages import GenerateStage, ItemStage, LocalStage

        return [
            GenerateStage(messages, setup.params),
            LocalStage("score", score_answer, output="scores.jsonl"),
            ItemStage(record),
        ]

    def evidence(self) -> ItemEvidence:
        """Per item (issue 43): the question, the options with gold and votes, each answer
        and how it was read (:mod:`.evidence`)."""
        from taiwa.benchmarks.intent.evidence import evidence

        return evidence()

    def compared(self, options: IntentOptions) -> list[ComparedMetric]:
        """Per item: correct or not (seed 004 Table 1's accuracy), overall and on the
        context-dependent and context-independent items; an answer naming no single option is
        scored wrong by rule, so it is imputed: left out of the pair and counted (issue 39)."""
        from taiwa.metrics.comparisons import ComparedMetric

        def split(dependent: bool) -> Any:
            def read(row: Mapping[str, Any], system: str) -> Any:
                return row.get("correct") if row.get("dependent") is dependent else None

            return read

        def unreadable(row: Mapping[str, Any], system: str) -> bool:
            return row.get("choice") is None

        return [
            ComparedMetric(
                "accuracy", "accuracy", "higher", "score", "correct", imputed=unreadable
            ),
            ComparedMetric(
                "accuracy_dependent",
                "acc. dep.",
                "higher",
                "score",
                "correct",
                read=split(True),
                imputed=unreadable,
            ),
            ComparedMetric(
                "accuracy_independent",
                "acc. indep.",
                "higher",
                "score",
                "correct",
                read=split(False),
                imputed=unreadable,
            ),
        ]

    def aggregate(self, samples: Iterable[Any], results: Results, setup: Setup) -> Summary:
        from taiwa.benchmarks.intent.dataset import dependent_groups
        from taiwa.benchmarks.intent.scoring import DERIVED, accuracy_block, distribution_block
        from taiwa.benchmarks.intent.stability import stability
        from taiwa.metrics import flags

        o: IntentOptions = setup.options
        groups: dict[str, str] = {}
        dependent: dict[str, bool] = {}
        k, unknown = 0, False
        for it in samples:
            groups[it.id] = it.group
            dependent[it.id] = bool(it.dependent)
            unknown |= it.dependent is None
            k = max(k, len(it.options))
        if unknown:  # items not read by load(): dependence from the run's own items
            dependent_set = dependent_groups(samples)
            dependent = {i: g in dependent_set for i, g in groups.items()}
        systems: dict[str, dict[str, Any]] = {}
        for s in results.systems:
            systems[s] = block = accuracy_block(results.ok("score", s), dependent, setup.seed)
            block["answers"] = distribution_block(results.ok("score", s), k, block)
            n = block["accuracy"]["n"]
            what = "an answer naming no single option, scored wrong"
            flags.add(block, flags.all_imputed(block["unparseable"], n, "accuracy", what, DERIVED))
            correct = [bool(r["correct"]) for r in results.ok("score", s)]
            if correct:
                st = stability(
                    correct, step=o.stability_step, threshold=o.stability_threshold, seed=setup.seed
                )
                systems[s]["stability"] = curve = st.as_dict()
                if flags.flagged(block, "stability"):  # a flag on the answers travels here
                    why = "the answers behind it are flagged"
                    curve["claim"] = {"holds": False, "why": why}
        n_dep = sum(dependent.values())
        dep_groups = {groups[i] for i, d in dependent.items() if d}
        across = {
            "items": {"all": len(groups), "dependent": n_dep, "independent": len(groups) - n_dep},
            "groups": {"all": len({*groups.values()}), "dependent": len(dep_groups)},
        }
        notes = [
            f"{s}: {b['unparseable']} answer(s) named no single option (scored wrong)"
            for s, b in systems.items()
            if b["unparseable"]
        ]
        return Summary(systems, across, notes)

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        from taiwa.benchmarks.intent.tables import tables

        return tables(summary)

    def report(self, run: RunData) -> Section:
        from taiwa.benchmarks.intent.report import section

        return section(run)

    def demo(self) -> Demo:
        from taiwa.benchmarks.intent.demo import demo

        return demo()


METHOD = IntentMethod()

__all__ = ["METHOD", "IntentMethod", "IntentOptions", "parse_answer"]
