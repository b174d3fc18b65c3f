"""``chitchat`` (seed 001): enjoyable chit-chat response generation from human text chats.

Seed 001 builds three generation tasks from real chats between people meeting for the first
time (2 or 3 speakers): the next utterance, the next utterance of a named speaker, and the
next N utterances with speaker labels. Replies are cut out of the model output by the seed's
regex post-processing and scored with ROUGE-1/2/L (簡易評価) and a reference-guided LLM judge
(単一評価, 比較評価); the judges are validated against human rankings by Spearman ρ.

Modules: :mod:`.corpus` (the chat corpus and its reader), :mod:`.labels` (speaker-label
families), :mod:`.dataset` (the task item and its reader), :mod:`.builder` and :mod:`.cli`
(``taiwa build chitchat``), :mod:`.prompts` (the seed's instructions and prompt layout),
:mod:`.extraction` (the regex post-processing), :mod:`.scoring` (extraction + ROUGE row),
:mod:`.human_ranks` (human rankings file and mean ranks), :mod:`.analysis` (rank correlation,
system ranking, per-task difficulty).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from taiwa.harness.method import HUMAN, Results, Role, Setup, Summary
from taiwa.harness.options import comma_list

if TYPE_CHECKING:
    from taiwa.benchmarks.chitchat.dataset import ChitchatItem
    from taiwa.display.section import Section
    from taiwa.harness.demo_spec import Demo
    from taiwa.harness.evidence import ItemEvidence
    from taiwa.harness.method import Stage
    from taiwa.harness.run_reader import RunData
    from taiwa.metrics.comparisons import ComparedMetric

TaskName = Literal["next_utterance", "next_speaker", "continuation"]
TASK_NAMES: tuple[TaskName, ...] = ("next_utterance", "next_speaker", "continuation")


class ChitchatOptions(BaseModel):
    """Options of chitchat (``-o key=value``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    judge_modes: list[Literal["single", "pairwise"]] = Field(
        ["single", "pairwise"],
        min_length=1,
        description="LLM-judge evaluations run when a judge is given: single (1-10 rating "
        "against the reference) and/or pairwise (every pair, both orders)",
    )
    judge_attempts: int = Field(3, ge=1, le=10, description="judge rounds per unreadable verdict")
    judge_max_tokens: int = Field(1024, ge=8, le=8192, description="judge reply length limit")
    missing: Literal["loses", "excluded"] = Field(
        "loses",
        description="a reply that could not be extracted: loses its pairs (seed 001 scores "
        "failures as failures) or is left out of them",
    )
    tasks: list[TaskName] = Field(
        list(TASK_NAMES), min_length=1, description="task types to evaluate"
    )
    per_task: int | None = Field(
        None, ge=1, description="only the first N items of each task type (a subsample)"
    )
    human_ranks: Path | None = Field(
        None, description="human rankings per item (JSONL/CSV: id, annotator, ranks)"
    )
    flip_threshold: float = Field(
        0.35, gt=0, le=1, description="flag a judge whose pairwise order-flip rate is above this"
    )

    _split = field_validator("judge_modes", "tasks", mode="before")(comma_list)

    @field_validator("human_ranks", mode="before")
    @classmethod
    def _a_rankings_file(cls, value: Any) -> Any:
        """``-o human_ranks=`` (an empty or unset variable) names no file: an error, not a run
        without the human evaluation (leave the option out for none)."""
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ValueError("a rankings file (JSONL/CSV/Parquet); leave the option out for none")
        return value


class ChitchatMethod:
    name = "chitchat"
    seed = "001"
    title = "enjoyable chit-chat replies: regex extraction, ROUGE, LLM judge (single, pairwise)"
    takes_systems = True
    roles = (
        Role(
            "judge",
            "LLM judge (seed 001 単一評価/比較評価), a model SPEC; without one, ROUGE only",
        ),
    )
    options = ChitchatOptions

    @property
    def prompts(self) -> Mapping[str, str]:
        from taiwa.benchmarks.chitchat.prompts import PROMPTS
        from taiwa.judges.prompts import PROMPTS as JUDGE_PROMPTS

        return {**PROMPTS, **{f"judge_{k}": v for k, v in JUDGE_PROMPTS.items()}}

    def default_data(self) -> Path:
        from taiwa.core.samples import sample_path

        return sample_path("chitchat/tasks.jsonl")

    def load(self, path: Path, options: ChitchatOptions) -> Iterator[ChitchatItem]:
        from taiwa.benchmarks.chitchat.dataset import iter_tasks

        taken: dict[str, int] = {}
        for item in iter_tasks(path):
            if item.task not in options.tasks:
                continue
            taken[item.task] = taken.get(item.task, 0) + 1
            if options.per_task is None or taken[item.task] <= options.per_task:
                yield item

    def reference(self, sample: ChitchatItem) -> str | None:
        return sample.reference_text

    def stages(self, setup: Setup) -> list[Stage[Any]]:
        from taiwa.benchmarks.chitchat.evidence import record
        from taiwa.benchmarks.chitchat.human_ranks import iter_rankings
        from taiwa.benchmarks.chitchat.prompts import chat_messages, judge_question
        from taiwa.benchmarks.chitchat.scoring import score_generated
        from taiwa.harness.stages import GenerateStage, ItemStage, LocalStage
        from taiwa.judges.stages import PairwiseJudge, SingleJudge, judge_params

        o: ChitchatOptions = setup.options
        if o.human_ranks is not None:  # read and checked before any model call
            list(iter_rankings(o.human_ranks, within=setup.systems))
        stages: list[Stage[Any]] = [
            GenerateStage(chat_messages, setup.params),
            LocalStage("extract", score_generated, output="scores.jsonl"),
        ]
        if "judge" not in setup.roles:
            return [*stages, ItemStage(record)]

        def answer(upstream: Mapping[str, Any]) -> str | None:
            return str(upstream["extract"]["reply"]) or None

        def reference(item: ChitchatItem) -> str:
            return item.reference_text

        params = judge_params(setup.seed, o.judge_max_tokens)
        if "single" in o.judge_modes:
            stages.append(
                SingleJudge(
                    judge_question, reference, answer, attempts=o.judge_attempts, params=params
                )
            )
        if "pairwise" in o.judge_modes:
            stages.append(
                PairwiseJudge(
                    judge_question,
                    reference,
                    answer,
                    attempts=o.judge_attempts,
                    params=params,
                    missing=o.missing,
                )
            )
        return [*stages, ItemStage(record)]

    def evidence(self) -> ItemEvidence:
        """Per item (issue 43): the chat and its reference; per system the reply as extracted,
        ROUGE, the single judge's rating and judgment; the pairwise verdicts in both orders,
        flips marked (:mod:`.evidence`)."""
        from taiwa.benchmarks.chitchat.evidence import evidence

        return evidence()

    def compared(self, options: ChitchatOptions) -> list[ComparedMetric]:
        """Per item: ROUGE-L of the extracted reply and the single judge's rating (when the run
        has a judge); the pairwise judge's win rate as a statistic over shared items (pooled
        points / pairs, :class:`taiwa.judges.win_rate.WinRate`). Only what was measured is
        compared (issue 39): a reply whose extraction failed has ROUGE 0 and the lowest rating
        by rule, and an item a system only forfeited has no judged pair; such items are
        imputed, left out of the pair and counted."""
        from taiwa.judges.win_rate import WinRate, judged_points
        from taiwa.metrics.comparisons import ComparedMetric

        def not_extracted(row: Mapping[str, Any], system: str) -> bool:
            return not row.get("extracted")

        def not_judged(row: Mapping[str, Any], system: str) -> bool:
            return bool(row.get("missing"))

        return [
            ComparedMetric(
                "rougeL", "ROUGE-L", "higher", "extract", "rougeL", imputed=not_extracted
            ),
            ComparedMetric(
                "single", "judge 1-10", "higher", "single_judge", "rating", imputed=not_judged
            ),
            ComparedMetric(
                "win_rate",
                "win rate",
                "higher",
                "pairwise_judge",
                "pairs",
                kind="statistic",
                statistic=WinRate(),
                read=judged_points,
                across=True,
                relative=True,
                flagged_by=("pairwise",),
            ),
        ]

    def aggregate(self, samples: Iterable[Any], results: Results, setup: Setup) -> Summary:
        from taiwa.benchmarks.chitchat import summary as s
        from taiwa.benchmarks.chitchat.analysis import task_difficulty
        from taiwa.benchmarks.chitchat.human_ranks import iter_rankings
        from taiwa.judges.analysis import (
            judge_quality,
            overall_win_rates,
            quality_notes,
            win_rate_matrix,
        )
        from taiwa.metrics import flags

        o: ChitchatOptions = setup.options
        seed = setup.seed
        tasks = {item.id: item.task for item in samples}
        systems = {
            sys_: s.extraction_block(results.rows("extract", sys_), seed)
            for sys_ in results.systems
        }
        for sys_ in systems:
            systems[sys_]["rougeL_by_task"] = systems[sys_].pop("by_task")
        judged = "judge" in setup.roles
        single = judged and "single" in o.judge_modes
        pairwise = judged and "pairwise" in o.judge_modes
        across: dict[str, Any] = {"tasks": _task_counts(tasks.values())}
        notes: list[str] = []
        if single:
            for sys_ in systems:
                block = systems[sys_]["single"] = s.single_block(
                    results.rows("single_judge", sys_), tasks, seed
                )
                flags.add(
                    systems[sys_],
                    flags.all_imputed(
                        block["missing"],
                        block["n"],
                        "single",
                        "the lowest rating, given without the judge to replies with no answer",
                    ),
                )
            all_single = _chain(results.rows("single_judge", x) for x in systems)
            across["task_difficulty"] = task_difficulty(
                s.with_tasks(all_single, tasks, "rating"), seed=seed
            )
        if pairwise:
            rows = results.rows("pairwise_judge")
            names = list(systems)
            across["win_rates"] = win_rate_matrix(rows, names, seed=seed)
            for sys_, block in overall_win_rates(rows, names, seed=seed).items():
                systems[sys_]["pairwise"] = block["win_rate"]
                systems[sys_]["pairwise_detail"] = block
                forfeits = block["forfeit_wins"] + block["forfeit_losses"]
                flags.add(
                    systems[sys_],
                    flags.no_pair_judged(block["win_rate"]["n"], "pairwise", forfeits),
                )
        if judged and HUMAN in systems:
            notes.append(
                "the human system answers with the reference itself, and the judge compares "
                "every reply with that reference: its scores favour the human system (seed 001's "
                "human systems were separate crowd workers)"
            )
        if judged:
            quality = judge_quality(
                _chain(results.rows("single_judge", x) for x in systems) if single else None,
                results.rows("pairwise_judge") if pairwise else None,
                seed=seed,
                threshold=o.flip_threshold,
            )
            across["judge_quality"] = quality
            notes += quality_notes(quality)
            s.judge_flags(across, systems, results, HUMAN)
        for sys_ in systems:
            share, flag = flags.identical_replies(
                str(r["text"]) for r in results.ok("generate", sys_)
            )
            systems[sys_]["identical_replies"] = share
            if flag is not None:  # every score of the system rates those same replies
                flag = replace(flag, covers=SCORES)
            flags.add(systems[sys_], flag)
        across["rankings"] = s.rankings(systems)
        across["consistency"] = s.consistency(systems, seed)
        if len(systems) < 3:
            notes.append("rank correlations need 3 or more systems")
        if o.human_ranks is not None:
            human = list(iter_rankings(o.human_ranks, within=setup.systems))
            across["human"] = s.human_block(human, systems, results, tasks, seed)
            if across["human"]["rankings_for_other_items"]:
                notes.append(
                    f"{across['human']['rankings_for_other_items']} human ranking(s) are for "
                    "items this run did not evaluate (left out)"
                )
        return Summary(systems, across, notes)

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        from taiwa.benchmarks.chitchat.tables import tables

        return tables(summary)

    def report(self, run: RunData) -> Section:
        from taiwa.benchmarks.chitchat.report import section

        return section(run)

    def demo(self) -> Demo:
        from taiwa.benchmarks.chitchat.demo import demo

        return demo()


def _chain(parts: Iterable[Iterable[Any]]) -> Iterator[Any]:
    for part in parts:
        yield from part


def _task_counts(tasks: Iterable[str]) -> dict[str, int]:
    """Items per task type, in the seed's order of difficulty."""
    counts = dict.fromkeys(TASK_NAMES, 0)
    for t in tasks:
        counts[t] += 1  # type: ignore[index]
    return {t: n for t, n in counts.items() if n}


SCORES = ("single", "pairwise", "rouge1", "rouge2", "rougeL", "rougeL_by_task")
"""A system's numbers derived from its replies: a flag on the replies covers them."""

METHOD = ChitchatMethod()
