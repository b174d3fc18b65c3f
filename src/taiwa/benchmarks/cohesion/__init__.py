"""``cohesion`` (seed 003): how many of an agent's utterances are lexically cohesive with their
context. Score only: the dialogues (and so the systems) come from the data.

Each utterance's content words are linked through an association resource (§2.2: LLR pairs
mined from a corpus, or the embedded word-vector default) and the same word (reiteration); an
agent utterance is cohesive when condition (a) prior, (b) posterior or (c) prior × posterior
holds within distance d (§2.3), never between two agent utterances. The summary gives per
system the share of cohesive agent utterances (Table 3's 評価値, pooled and per dialogue),
each condition's share and, with human labels, precision, recall and the per-dialogue
correlation with the human rate (§3.3).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from taiwa.harness.method import Results, Setup, Summary
from taiwa.harness.options import comma_list

if TYPE_CHECKING:
    from taiwa.core.schema import Dialogue
    from taiwa.display.section import Section
    from taiwa.harness.demo_spec import Demo
    from taiwa.harness.evidence import ItemEvidence
    from taiwa.harness.method import Stage
    from taiwa.harness.run_reader import RunData
    from taiwa.metrics.comparisons import ComparedMetric


class CohesionOptions(BaseModel):
    """Options of cohesion (``-o key=value``)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    resource: str = Field(
        "default",
        description="default (ja-ginza vectors, cosine >= 0.7), vectors:THRESHOLD, "
        "or an LLR pair table (.parquet from `taiwa build cooccurrence`)",
    )
    distance: int = Field(3, ge=1, le=100, description="max utterance distance d (§2.3)")
    strict: bool = Field(False, description="associated pairs only, no reiteration")
    conditions: list[Literal["a", "b", "c"]] = Field(
        ["a", "b", "c"],
        min_length=1,
        description="conditions that make an utterance cohesive: a prior, b posterior, "
        "c prior x posterior (seed: a,b,c)",
    )
    human_systems: list[str] = Field(
        ["human"],
        description="systems whose agent side is a person, left out of the agents-only "
        "correlation (§3.3)",
    )

    _split = field_validator("conditions", "human_systems", mode="before")(comma_list)


WORKER_MIN_BYTES = 800_000
"""Dataset files from which a run tags in a second process (started before the file is read):
about 8,000 utterances at ~100 bytes each in JSONL (the bundled sample: 128), where
:data:`taiwa.text.content_words.WORKER_MIN_TEXTS` puts the break-even."""


class CohesionMethod:
    name = "cohesion"
    seed = "003"
    title = "lexical cohesion of agent utterances with their context (scores dialogue files)"
    takes_systems = False
    roles = ()
    options = CohesionOptions
    prompts: Mapping[str, str] = {}

    def default_data(self) -> Path:
        from taiwa.core.samples import sample_path

        return sample_path("cohesion/dialogues.jsonl")

    def load(self, path: Path, options: CohesionOptions) -> Iterator[Dialogue]:
        from taiwa.benchmarks.cohesion.dataset import iter_dialogues, with_agents

        return with_agents(path, iter_dialogues(path))

    def reference(self, sample: Dialogue) -> str | None:
        return None

    def stages(self, setup: Setup) -> list[Stage[Any]]:
        from taiwa.benchmarks.cohesion.evidence import record
        from taiwa.benchmarks.cohesion.scoring import iter_scored
        from taiwa.harness.stages import ItemStage, LocalStage
        from taiwa.text.content_words import CONTENT_POS
        from taiwa.text.tagging_worker import RunTagger
        from taiwa.text.tokenizer import default_tokenizer

        o: CohesionOptions = setup.options
        resource = _resource(o.resource)
        analyzer = default_tokenizer()
        # MeCab's second process, for the whole run: it starts while the file is read
        tagger = RunTagger(CONTENT_POS, analyzer.normalize, min_bytes=WORKER_MIN_BYTES)

        def score_many(dialogues: Sequence[Dialogue], upstream: Any) -> Iterator[dict[str, Any]]:
            return iter_scored(
                dialogues,
                resource,
                d=o.distance,
                strict=o.strict,
                conditions=o.conditions,
                analyzer=analyzer,
                worker=tagger.worker,
            )

        def score(dialogue: Dialogue, upstream: Any) -> dict[str, Any]:
            return next(score_many([dialogue], upstream))  # the rows of score_dialogue

        return [
            LocalStage(
                "score", score, output="scores.jsonl", compute_many=score_many, held=[tagger]
            ),
            ItemStage(record),
        ]

    def evidence(self) -> ItemEvidence:
        """Per dialogue (issue 43): the utterances with each agent utterance's verdict and
        label, the cohesive pairs' words marked in both utterances (:mod:`.evidence`)."""
        from taiwa.benchmarks.cohesion.evidence import evidence

        return evidence()

    def compared(self, options: CohesionOptions) -> list[ComparedMetric]:
        """Nothing: each dialogue is scored for the one agent it was collected with (the
        systems come from the data), so no two systems share an item to pair on; comparing
        agents here would need an unpaired test."""
        return []

    def aggregate(self, samples: Iterable[Any], results: Results, setup: Setup) -> Summary:
        from taiwa.benchmarks.cohesion.scoring import summarize

        o: CohesionOptions = setup.options
        examples = _Examples()
        s = summarize(
            examples.watch(results.ok("score")), seed=setup.seed, human_systems=o.human_systems
        )
        systems = s.pop("systems")
        notes = []
        if examples.empty:
            shown = ", ".join(examples.empty[:5]) + (" …" if len(examples.empty) > 5 else "")
            notes.append(
                f"{examples.n_empty} dialogue(s) have no agent utterance and add nothing: {shown} "
                "(check the role mapping)"
            )
        across = {
            "resource": _resource(o.resource).name,
            "distance": o.distance,
            "strict": o.strict,
            "conditions": o.conditions,
            **s,
            "examples": examples.with_texts(samples),
        }
        return Summary(systems, across, notes)

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        from taiwa.benchmarks.cohesion.tables import (
            agreement_table,
            correlation_lines,
            examples_table,
            shares_table,
        )

        a = summary["across"]
        title = (
            f"cohesion ({a['resource']}, d={a['distance']}, conditions {','.join(a['conditions'])})"
        )
        out: list[Any] = shares_table(summary, title)
        if any("precision" in b for b in summary["systems"].values()):
            out.append(agreement_table(summary))
        out += correlation_lines(a)
        if a.get("examples"):
            out.append(examples_table(a["examples"]))
        return out

    def report(self, run: RunData) -> Section:
        from taiwa.benchmarks.cohesion.report import section

        return section(run)

    def demo(self) -> Demo:
        """The bundled labelled dialogues scored with the defaults (the systems come from the
        data)."""
        from taiwa.harness.demo_spec import DemoRun, one_run

        return one_run(DemoRun("cohesion", progress=False, show="tables"))


@cache
def _resource(spec: str) -> Any:
    """The association resource named by the ``resource`` option, loaded once per process."""
    from taiwa.resources.loading import load_resource

    return load_resource(spec)


class _Examples:
    """What the summary shows beside the numbers, gathered while :func:`summarize` reads the
    rows (one pass): a few agent utterances with their verdicts (half cohesive, half not) and
    the dialogues without any agent utterance (the first few ids and their number)."""

    def __init__(self, k: int = 4, ids: int = 5) -> None:
        self.yes: list[dict[str, Any]] = []
        self.no: list[dict[str, Any]] = []
        self.k = k
        self.ids = ids
        self.empty: list[str] = []
        self.n_empty = 0

    def watch(self, rows: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        from taiwa.benchmarks.cohesion.dataset import AGENT_ROLES

        for r in rows:
            agent = [u for u in r["utterances"] if u["role"] in AGENT_ROLES]
            if not agent:
                self.n_empty += 1
                if len(self.empty) < self.ids:
                    self.empty.append(r["id"])
            for u in agent:
                side, limit = (
                    (self.yes, self.k - self.k // 2) if u["cohesive"] else (self.no, self.k // 2)
                )
                if len(side) < limit:
                    side.append({"dialogue_id": r["id"], "system": r["system"], **u})
            yield r

    def picked(self) -> list[dict[str, Any]]:
        return self.yes + self.no

    def with_texts(self, dialogues: Iterable[Dialogue]) -> list[dict[str, Any]]:
        """The picked utterances, each with ``context``: the utterance and those its pairs link
        it to (index, role, speaker, text), read in one pass over the dialogues (up to the last
        one wanted: the examples come from the first rows), so that the report can show the
        words that fired."""
        picked = self.picked()
        wanted: dict[str, set[int]] = {}
        for r in picked:
            wanted.setdefault(r["dialogue_id"], set()).update(
                [r["index"], *(i for p in r["pairs"] for i in p["between"])]
            )
        found: dict[tuple[str, int], dict[str, Any]] = {}
        left = set(wanted)
        for d in dialogues if left else ():
            for i in sorted(wanted.get(d.id, ())):
                if 0 <= i < len(d.utterances):
                    u = d.utterances[i]
                    found[d.id, i] = {"index": i, "role": u.role, "speaker": u.speaker,
                                      "text": u.text}  # fmt: skip
            left.discard(d.id)
            if not left:  # ids are unique: the rest of the file has nothing wanted
                break
        for r in picked:
            idx = sorted({r["index"], *(i for p in r["pairs"] for i in p["between"])})
            r["context"] = [
                found[r["dialogue_id"], i] for i in idx if (r["dialogue_id"], i) in found
            ]
        return picked


METHOD = CohesionMethod()
