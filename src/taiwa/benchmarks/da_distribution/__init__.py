"""``da-distribution`` (seed 002): how varied and how context-aware are a system's dialogue acts?

generate → tag. Every system replies to each context of the test set (:mod:`.dataset`); the
``tagger`` role labels the act of every reply and of the context (:mod:`.tagging`: the
embedded classifier, an encoder from ``taiwa da train``, or crowd votes aggregated as §3.3,
:mod:`.votes`). The summary (:mod:`.summary`) gives per system DAE and DAMI in bits (§4,
App. C), Distinct-1/2 (Table 2), the act distribution (Table 1) and the transition lift
(§3.4, Fig. 2), each with n and a 95 % bootstrap CI, DAE/DAMI and shares corrected for the
tagger's errors when it has a validation set (:mod:`.correction`; a chat model can tag too,
:mod:`.llm_tagging`), and the consistency of the DAE ordering
of adjacent systems over paired batches (§5.1, Fig. 3; :mod:`.consistency`, plotted to
``consistency.svg``). The parrot baseline gets DAE = 0 and DAMI = 0 with a high Distinct
(Table 2): the tagger labels its echoes うなずき・おうむ返し.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from taiwa.benchmarks.da_distribution.prompts import SYSTEM_PROMPT, messages
from taiwa.core.errors import TaiwaError
from taiwa.harness.method import HUMAN, Results, Role, Setup, Summary
from taiwa.harness.options import comma_list

if TYPE_CHECKING:
    from taiwa.benchmarks.da_distribution.dataset import ContextItem
    from taiwa.display.section import Section
    from taiwa.harness.demo_spec import Demo
    from taiwa.harness.evidence import ItemEvidence
    from taiwa.harness.method import Stage
    from taiwa.harness.run_reader import RunData
    from taiwa.metrics.comparisons import ComparedMetric
    from taiwa.models.spec import ModelOptions


class DADistributionOptions(BaseModel):
    """Options of da-distribution (``-o key=value``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    taxonomy: str = Field(
        "chitchat11", description="dialogue-act taxonomy: chitchat11 or a YAML file"
    )
    prev_acts: Literal["labels", "tagger"] = Field(
        "labels",
        description="act of the utterance replied to: the test set's prev_act label (tagged "
        "where missing) or always the tagger",
    )
    human_acts: Literal["tagger", "labels"] = Field(
        "tagger",
        description="act of the human reply: the tagger (same instrument as the systems) or "
        "the test set's reply_act label",
    )
    consistency_sizes: list[int] = Field(
        [500, 1000, 1500, 2000],
        min_length=1,
        description="batch sizes of the consistency analysis (seed 002 §5.1)",
    )
    tagger_validation: str | None = Field(
        None,
        description="gold labels (JSONL: id, context, reply, act) or a `taiwa validate tagger "
        "--json` report: the tagger's confusion, for DAE/DAMI corrected for its errors (the "
        "default tagger: the real-chat held-out split for the human replies, the system-style "
        "one for the systems')",
    )
    consistency_repetitions: int = Field(
        20_000, ge=1, le=1_000_000, description="paired batches drawn per batch size"
    )

    _split = field_validator("consistency_sizes", mode="before")(comma_list)

    @field_validator("taxonomy")
    @classmethod
    def _a_taxonomy(cls, value: str) -> str:
        """Read now, so a bad taxonomy is refused with the other options."""
        from taiwa.core.errors import TaiwaError
        from taiwa.core.taxonomies import load_taxonomy

        try:
            load_taxonomy(value)
        except TaiwaError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("consistency_sizes")
    @classmethod
    def _positive(cls, sizes: list[int]) -> list[int]:
        if any(k < 1 for k in sizes):
            raise ValueError("batch sizes must be >= 1")
        return sorted(set(sizes))


class TaggerValidator:
    """``taiwa validate tagger`` (:mod:`.validate_tagger`)."""

    def default_data(self) -> list[Path]:
        return []

    def validate(
        self, spec: str, data: Sequence[Path], seed: int, models: ModelOptions
    ) -> dict[str, Any]:
        from taiwa.benchmarks.da_distribution.validate_tagger import validate_tagger

        return validate_tagger(spec, data, seed, models)

    def tables(self, report: Mapping[str, Any]) -> list[Any]:
        from taiwa.benchmarks.da_distribution.validate_tagger import report_tables

        return report_tables(report)


class DADistributionMethod:
    name = "da-distribution"
    seed = "002"
    title = "variety and context-awareness of a system's dialogue acts: DAE, DAMI, Distinct"
    takes_systems = True
    roles = (
        Role(
            "tagger",
            "dialogue act of every reply: default (the embedded classifier), PATH (a `taiwa "
            "da train` output), votes:FILE (crowd votes, seed 002 §3.3) or a chat-model SPEC",
            default="default",
            local=("default", "votes:"),
            paths=True,
        ),
    )
    options = DADistributionOptions
    validators: Mapping[str, TaggerValidator] = {"tagger": TaggerValidator()}
    prompts: Mapping[str, str] = {"system": SYSTEM_PROMPT}

    def default_data(self) -> Path:
        from taiwa.core.samples import sample_path

        return sample_path("da_distribution/contexts.jsonl")

    def load(self, path: Path, options: DADistributionOptions) -> Iterator[ContextItem]:
        from taiwa.benchmarks.da_distribution.dataset import iter_contexts
        from taiwa.core.taxonomies import load_taxonomy

        return iter_contexts(path, load_taxonomy(options.taxonomy))

    def reference(self, sample: ContextItem) -> str | None:
        return sample.reply

    def stages(self, setup: Setup) -> list[Stage[Any]]:
        from taiwa.benchmarks.da_distribution.correction import check_validation_file
        from taiwa.benchmarks.da_distribution.evidence import record
        from taiwa.benchmarks.da_distribution.llm_tagging import LLMTagStage
        from taiwa.benchmarks.da_distribution.tagging import ModelTagger, TagStage, check_tagger
        from taiwa.core.taxonomies import load_taxonomy
        from taiwa.harness.stages import GenerateStage, ItemStage

        o: DADistributionOptions = setup.options
        taxonomy = load_taxonomy(o.taxonomy)
        checked = check_tagger(setup.roles["tagger"], taxonomy, setup.seed)
        if o.tagger_validation is not None:
            spec = setup.roles["tagger"]
            model = isinstance(checked, ModelTagger)
            try:
                check_validation_file(Path(o.tagger_validation), spec, classifier=not model)
            except TaiwaError as e:  # name the option the user typed
                raise TaiwaError(f"-o tagger_validation: {e}") from None
        kw = {
            "prev_from_labels": o.prev_acts == "labels",
            "human_from_labels": o.human_acts == "labels",
        }
        tag = (
            LLMTagStage(checked, taxonomy, setup.seed, **kw)
            if isinstance(checked, ModelTagger)
            else TagStage(checked, taxonomy, **kw)
        )
        return [GenerateStage(messages, setup.params), tag, ItemStage(record)]

    def evidence(self) -> ItemEvidence:
        """Per item (issue 43): the chat and its previous act; per system the reply, the act
        the tagger gave it and the tagger's probability (:mod:`.evidence`)."""
        from taiwa.benchmarks.da_distribution.evidence import evidence

        return evidence()

    def compared(self, options: DADistributionOptions) -> list[ComparedMetric]:
        """DAE and DAMI (seed 002 App. C) as statistics over shared contexts: a context counts
        for a pair when both systems' replies were tagged (DAMI: and the context has a previous
        act). Distinct-n is not compared: a corpus n-gram count, recomputed per resample it
        would cost more than the whole aggregate."""
        from taiwa.metrics.comparisons import ComparedMetric
        from taiwa.metrics.paired import ActEntropy, ActMutualInformation

        def act_pair(row: Mapping[str, Any], system: str) -> tuple[str, str] | None:
            act, prev = row.get("acts", {}).get(system), row.get("prev_act")
            return None if act is None or prev is None else (prev, act)

        return [
            ComparedMetric(
                "dae",
                "DAE",
                "higher",
                "tag",
                "acts.{system}",
                kind="statistic",
                statistic=ActEntropy(),
                across=True,
            ),
            ComparedMetric(
                "dami",
                "DAMI",
                "higher",
                "tag",
                "acts.{system}",
                kind="statistic",
                statistic=ActMutualInformation(),
                read=act_pair,
                across=True,
            ),
        ]

    def aggregate(self, samples: Iterable[Any], results: Results, setup: Setup) -> Summary:
        from taiwa.benchmarks.da_distribution import summary as s
        from taiwa.benchmarks.da_distribution.corrected import (
            add_corrected,
            off_validation_flags,
            ordering_flags,
        )
        from taiwa.benchmarks.da_distribution.correction import run_validations
        from taiwa.core.taxonomies import load_taxonomy

        o: DADistributionOptions = setup.options
        labels = load_taxonomy(o.taxonomy).names
        c = s.collect(results.rows("tag"), results.systems)
        texts = s.systems_texts(results)
        systems = s.system_blocks(c, texts, labels, setup.seed)
        order = sorted(systems, key=lambda x: -(systems[x]["dae"]["value"] or 0.0))
        across: dict[str, Any] = {
            "taxonomy": o.taxonomy,
            "tagger": _tagger_provenance(setup.roles["tagger"]),
            "prev_acts": dict(c.prev_from),
            "ranking": order,
        }
        s.bias_flags(systems, texts)
        notes = s.untagged_notes(systems)
        validations = run_validations(setup.roles["tagger"], o)
        gold = [HUMAN] if o.human_acts == "labels" else []
        notes += add_corrected(systems, across, c, labels, validations, setup.seed, gold)
        if validations is not None:
            lengths = {x: validations.of(x).lengths for x in systems}
            s.validation_range_flags(systems, texts, lengths, gold)
        if HUMAN in systems:
            reply_acts = {i: it.reply_act for i, it in enumerate(samples) if it.reply_act}
            agreement = s.human_label_agreement(c, reply_acts, setup.seed, bool(gold))
            if agreement is not None:
                across["tagger_vs_human_labels"] = agreement
                off_validation_flags(systems, agreement, validations)
        files = {"transitions.svg": s.lift_writer(systems)}
        if len(systems) >= 2:
            block, curves, more = s.consistency_block(
                c, order, o.consistency_sizes, o.consistency_repetitions, setup.seed
            )
            across["consistency"] = block
            notes += more
            if curves:
                files["consistency.svg"] = s.curve_writer(curves)
        ordering_flags(systems, across, order)
        if c.prev_from.get("unknown"):
            notes.append(
                f"{c.prev_from['unknown']} context(s) without a previous act: left out of DAMI "
                "and the transitions"
            )
        return Summary(systems, across, notes, files)

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        from taiwa.benchmarks.da_distribution.tables import tables

        return tables(summary)

    def report(self, run: RunData) -> Section:
        from taiwa.benchmarks.da_distribution.report import section

        return section(run)

    def demo(self) -> Demo:
        from taiwa.benchmarks.da_distribution.demo import demo

        return demo()


def _tagger_provenance(spec: str) -> dict[str, Any]:
    """Which tagger labelled the acts, with its recorded held-out figures when it has some."""
    import json

    from taiwa.benchmarks.da_distribution.tagging import DEFAULT, VOTES

    if spec.startswith(VOTES):
        return {"spec": spec, "kind": "crowd votes (seed 002 §3.3)"}
    if not (spec == DEFAULT or Path(spec).is_dir()):
        return {"spec": spec, "kind": "chat model (seed 002 §3.1 definitions, few-shot)"}
    if spec == DEFAULT:
        from taiwa.annotators.da_classifier.model import shipped_paths

        meta = json.loads(shipped_paths()[1].read_text("utf-8"))
        held_out = meta["held_out_metrics"]
        return {
            "spec": spec,
            "kind": "embedded classifier",
            "held_out_macro_f1": {
                name: block["default"]["macro_f1"]
                for name, block in held_out.items()
                if isinstance(block, dict)
            },
            "training_data": meta["training_data"],
        }
    from taiwa.core.io import read_json_object

    meta = read_json_object(Path(spec) / "taiwa_da.json", "a tagger's description")[0]
    from taiwa.annotators.da_classifier.own import FORMAT

    if meta.get("format") == FORMAT:
        return {
            "spec": spec,
            "kind": "classifier (taiwa da train)",
            "training_data": meta["training_data"],
            "previous_act": bool(meta.get("previous_act", {}).get("used")),
        }
    return {
        "spec": spec,
        "kind": "encoder (taiwa da train)",
        "validation_macro_f1": meta.get("validation", {}).get("macro_f1", meta.get("macro_f1")),
    }


METHOD = DADistributionMethod()
