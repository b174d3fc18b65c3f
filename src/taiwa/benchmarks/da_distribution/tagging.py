"""The ``tag`` stage: the dialogue act of every system's reply to a context, and of the context.

Seed 002 labels acts by crowd votes (§3.3, §5.1) or by a classifier (§5.2); the ``tagger``
role names which:

- ``default``: the embedded classifier (:mod:`taiwa.annotators.da_classifier.model`,
``chitchat11``);
- ``PATH``: a ``taiwa da train`` output: the default recipe on the user's data
  (:mod:`taiwa.annotators.da_classifier.own`) or an encoder fine-tuned with ``--base``
  (:mod:`taiwa.annotators.da_classifier.encoder`);
- ``SPEC``: a chat model (:mod:`.llm_tagging`: the seed's act definitions and a few examples,
  ``{"act": ...}`` answers, repairs counted);
- ``votes:FILE``: crowd votes on the replies (:mod:`.votes`, aggregated by the §3.3 rule), the
  reply of system ``S`` to context ``ID`` under the id ``ID/S`` (``ID/human`` for the human
  reply) and the context itself under ``ID``; replies no act reached 2 votes for, and replies
  without votes, stay untagged and are counted.

The stage sees every system's reply to a context at once (``across_systems``), so a
classifier tags them in one batch and a votes file can name the system. The act of the
context comes from the test set's ``prev_act`` label (``-o prev_acts=labels``, the default),
else from the tagger; the human reply's act from the tagger (``-o human_acts=tagger``, the same
instrument for every system) or from the test set's ``reply_act`` label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from taiwa.benchmarks.da_distribution.dataset import ContextItem
from taiwa.core.errors import TaiwaError
from taiwa.core.schema import Taxonomy
from taiwa.harness.method import HUMAN, Retry, Row, StageBase
from taiwa.models.types import ChatRequest, ChatResponse

VOTES = "votes:"
DEFAULT = "default"


class Classifier(Protocol):
    """What tags acts: (previous utterance, utterance) pairs → acts (a batch at a time)."""

    name: str
    acts: tuple[str, ...]

    def tag_many(self, contexts: Sequence[str], replies: Sequence[str]) -> list[str]: ...


@dataclass(frozen=True)
class Labels:
    """Acts adopted from crowd votes (§3.3) and what could not be labelled."""

    acts: Mapping[str, str]
    unlabelled: frozenset[str]
    source: str

    def reason(self, key: str) -> str:
        return "no act reached 2 votes" if key in self.unlabelled else "no votes"


@dataclass(frozen=True)
class ModelTagger:
    """``--tagger SPEC`` names a chat model."""

    spec: str


def check_tagger(spec: str, taxonomy: Taxonomy, seed: int) -> Labels | Path | ModelTagger | None:
    """Validate ``--tagger`` before any model call: the votes (read and aggregated), the trained
    encoder's directory, a chat model, or ``None`` for the default classifier."""
    if spec.startswith(VOTES):
        from taiwa.benchmarks.da_distribution.votes import aggregate_votes, load_votes

        if not spec[len(VOTES) :].strip():
            raise TaiwaError("--tagger votes: names no file: give votes:FILE")
        path = Path(spec[len(VOTES) :])
        agg = aggregate_votes(load_votes(path, taxonomy), seed=seed)
        return Labels(agg.labels, frozenset(agg.unlabelled), str(path))
    if spec == DEFAULT:
        if taxonomy.name != "chitchat11":
            raise TaiwaError(
                f"--tagger default labels chitchat11 acts, not {taxonomy.name}: give a trained "
                "encoder (--tagger PATH) or crowd votes (--tagger votes:FILE)"
            )
        return None
    from taiwa.core.io import path_kind

    path = Path(spec)
    if path_kind(path / "taiwa_da.json") != "file":
        from taiwa.models.spec import ModelSpec, looks_like_path

        if path_kind(path) == "missing" and looks_like_path(spec):
            raise TaiwaError(f"--tagger {spec}: no such directory")

        try:
            ModelSpec.parse(spec)
        except TaiwaError:
            raise TaiwaError(
                f"--tagger {spec}: expected default, votes:FILE, the directory of a `taiwa da "
                "train` output (no taiwa_da.json there) or a chat-model SPEC"
            ) from None
        return ModelTagger(spec)
    return path


def load_classifier(checked: Path | None, taxonomy: Taxonomy) -> Classifier:
    """The classifier of a checked ``--tagger`` (the default or a trained encoder), its acts
    checked against the taxonomy."""
    if checked is None:
        from taiwa.annotators.da_classifier.model import default_classifier

        classifier: Classifier = default_classifier()
    else:
        from taiwa.annotators.da_classifier.own import is_own, load_own

        if is_own(checked):
            classifier = load_own(checked)
        else:
            from taiwa.annotators.da_classifier.encoder import EncoderTagger

            classifier = EncoderTagger.load(checked)
    unknown = [a for a in classifier.acts if taxonomy.canonical(a) is None]
    if unknown:
        raise TaiwaError(
            f"tagger {classifier.name} has acts outside the {taxonomy.name} taxonomy: "
            f"{', '.join(unknown[:5])} (set -o taxonomy=...)"
        )
    return classifier


class TagStage(StageBase):
    """Tags every system's reply to a context, and the context (row: ``prev_act``,
    ``prev_from``, ``acts`` by system, ``untagged`` by system with the reason)."""

    def __init__(
        self,
        checked: Labels | Path | ModelTagger | None,
        taxonomy: Taxonomy,
        *,
        prev_from_labels: bool,
        human_from_labels: bool,
    ) -> None:
        super().__init__(name="tag", output="tags.jsonl", across_systems=True)
        self.checked = checked
        self.taxonomy = taxonomy
        self.prev_from_labels = prev_from_labels
        self.human_from_labels = human_from_labels

    @cached_property
    def classifier(self) -> Classifier:
        if isinstance(self.checked, Labels | ModelTagger):
            raise TypeError("votes and chat models are not a classifier")
        return load_classifier(self.checked, self.taxonomy)

    def requests(self, sample: ContextItem, upstream: Any) -> Sequence[ChatRequest]:
        return ()

    def finish(
        self,
        sample: ContextItem,
        upstream: Mapping[str, Mapping[str, Row]],
        replies: Sequence[ChatResponse],
    ) -> Row | Retry:
        texts, acts = self._to_tag(sample, upstream)
        untagged: dict[str, str] = {}
        shares: dict[str, float] = {}
        reference_act: str | None = None
        prev_act, prev_from = self._labelled_prev(sample)
        if isinstance(self.checked, Labels):
            labels = self.checked
            for system in texts:
                key = f"{sample.id}/{system}"
                if key in labels.acts:
                    acts[system] = labels.acts[key]
                else:
                    untagged[system] = labels.reason(key)
            if prev_act is None and sample.id in labels.acts:
                prev_act, prev_from = labels.acts[sample.id], "votes"
        else:
            systems = list(texts)
            contexts = [sample.context] * len(systems)
            utterances = [texts[s] for s in systems]
            reference = self._labelled_reply(sample, upstream)
            if reference is not None:  # the tagger's act of it, checked against the label
                contexts.append(sample.context)
                utterances.append(reference)
            if prev_act is None:
                contexts.append(sample.before_context)
                utterances.append(sample.context)
            tagged, probs = self._tag(contexts, utterances)
            acts.update(zip(systems, tagged, strict=False))
            if probs:
                shares = {s: round(p, 4) for s, p in zip(systems, probs, strict=False)}
            if reference is not None:
                reference_act = tagged[len(systems)]
            if prev_act is None:
                prev_act, prev_from = tagged[-1], "tagger"
        row: Row = {"prev_act": prev_act, "prev_from": prev_from, "acts": acts}
        if shares:
            row["probs"] = shares
        if reference_act is not None:
            row["reference_act"] = reference_act
        if untagged:
            row["untagged"] = untagged
        return row

    def _tag(self, contexts: list[str], utterances: list[str]) -> tuple[list[str], list[float]]:
        """The act of each utterance and, from a classifier that gives them, the probability
        it gave that act (the item view shows it, issue 43); the acts are ``tag_many``'s."""
        proba = getattr(self.classifier, "proba", None)
        if not callable(proba) or not utterances:
            return self.classifier.tag_many(contexts, utterances), []
        p = proba(contexts, utterances)
        best = p.argmax(axis=1)
        acts = self.classifier.acts
        return [acts[int(k)] for k in best], [float(p[i, k]) for i, k in enumerate(best)]

    def _to_tag(
        self, sample: ContextItem, upstream: Mapping[str, Mapping[str, Row]]
    ) -> tuple[dict[str, str], dict[str, str]]:
        """The replies to tag by system, and the acts already known (the human reply's label
        with ``-o human_acts=labels``)."""
        texts = {
            system: str(up["generate"]["text"])
            for system, up in upstream.items()
            if "error" not in up["generate"]
        }
        acts: dict[str, str] = {}
        if self.human_from_labels and HUMAN in texts and sample.reply_act is not None:
            acts[HUMAN] = sample.reply_act
            del texts[HUMAN]
        return texts, acts

    def _labelled_reply(
        self, sample: ContextItem, upstream: Mapping[str, Mapping[str, Row]]
    ) -> str | None:
        """The human reply whose act the run took from the test set's label (``-o
        human_acts=labels``), for the tagger to tag beside it (``reference_act``): the run's
        own check of the tagger against labels."""
        if not self.human_from_labels or sample.reply_act is None or HUMAN not in upstream:
            return None
        generated = upstream[HUMAN]["generate"]
        return None if "error" in generated else str(generated["text"])

    def _labelled_prev(self, sample: ContextItem) -> tuple[str | None, str | None]:
        if self.prev_from_labels and sample.prev_act is not None:
            return sample.prev_act, "labels"
        return None, None
