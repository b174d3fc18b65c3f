"""Sentence-level dialogue-act annotator for sequence taxonomies (seed 000 §3.2, §4.1; issue 16).

A reply becomes a DA sequence with importances, without an LLM (``--annotator offline``):

1. the reply is split into functional sentences (after 。！？!?, not inside a closing quote, at
   line breaks, and at a space ending a spoken sentence of an unpunctuated transcript:
   :func:`split_sentences`);
2. each sentence gets an act from the shared classifier (:mod:`.da_classifier`: hashed
   character n-gram TF-IDF of the sentence and of the user's utterance, mean ja-ginza vector,
   overlap features, the sentence's position in the reply and, optionally, its sentence-final
   form apart from its punctuation), trained on labelled replies the caller hands in with its
   taxonomy;
3. each sentence gets a raw weight from :class:`ImportanceModel` (act × position priors fitted
   on the training replies, backed off to the act's prior when a cell has few examples, times
   the classifier's probability of the act it picked to the power
   :data:`CONFIDENCE_POWER`), and the weights are renormalised to sum 1 (seed 000 eq. 3).

The model ships as the classifier's ``.npz`` + JSON sidecar; the importance table rides in the
sidecar (``importance``). Nothing here knows a method: the method package hands in its data.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.annotators.da_classifier.endings import position_class as position_class
from taiwa.core.schema import DASequence, DAStep

if TYPE_CHECKING:
    from taiwa.annotators.da_classifier.model import DAClassifier, Example

_SPLIT = re.compile(r"(?<=[。！？!?])(?![」』）)\"'!?！？])\s*|\n+")
_SPOKEN = re.compile(
    r"(?<=[すたかねよいだんうるろ])[ \u3000]+(?=[\u3040-\u30ff\u4e00-\u9fff0-9０-９])"
)
"""A space after a sentence-final kana and before Japanese text or a number: where a
transcript without punctuation (a speech assistant's reply) ends a sentence (``〜ですか 15分
ほどで〜`` is two)."""
MIN_SPOKEN = 4
"""Characters a piece must have before :data:`_SPOKEN` ends it (``はい 〜`` stays whole)."""

SHRINK = 3.0
"""Pseudo-count pulling an act × position cell towards its act's prior."""
CONFIDENCE_POWER = 2.0
"""How much a sentence's weight follows the classifier's confidence in its act (issue 26): the
prior times ``p(act) ** CONFIDENCE_POWER``. A sentence the classifier is unsure of weighs
less, so a wrong act costs less WED (seed 000 eq. 5: a substitution costs the mean of both
weights) and a reply whose acts are right still beats a copy with one of them left out. Picked
on a dev fifth of the training replies (0, 0.5, 1, 2, 4 tried: mean WED 0.089 / 0.088 / 0.087
/ 0.085 / 0.082, a dropped sentence ranked below the whole reply 271 / 271 / 273 / 277 / 277
of 285); 2, not 4, keeps the act × position prior the larger part of the weight."""


def split_sentences(text: str) -> list[str]:
    """Functional sentences of a reply, in order: after 。！？!? (not inside a closing quote), at
    line breaks, and at a space that ends a spoken sentence (:data:`_SPOKEN`)."""
    out: list[str] = []
    for piece in _SPLIT.split(text):
        piece = piece.strip() if piece else ""
        start = 0
        for m in _SPOKEN.finditer(piece):
            if m.start() - start >= MIN_SPOKEN:
                out.append(piece[start : m.start()])
                start = m.end()
        if piece[start:]:
            out.append(piece[start:])
    return out


@dataclass(frozen=True)
class LabelledReply:
    """A reply with its gold steps and its context (the user's utterance); ``sentences``: one
    per step, in order (empty when the reply's sentences do not align with its steps: such a
    reply serves validation and importances, not act training)."""

    id: str
    context: str
    sentences: tuple[str, ...]
    steps: tuple[DAStep, ...]
    text: str

    @property
    def gold(self) -> DASequence:
        return DASequence(steps=list(self.steps))


def sentence_examples(replies: Sequence[LabelledReply]) -> list[Example]:
    """One classifier example per sentence of each aligned reply (id ``REPLY#k``)."""
    from taiwa.annotators.da_classifier.model import Example

    return [
        Example(f"{r.id}#{k}", r.context, s, step.act, k, len(r.sentences))
        for r in replies
        if r.sentences
        for k, (s, step) in enumerate(zip(r.sentences, r.steps, strict=True))
    ]


@dataclass(frozen=True)
class ImportanceModel:
    """Raw importance weights by act and position (seed 000 App. A: the central act weighs
    most); a reply's weights are renormalised to sum 1.

    The weight of a step is its gold importance times the number of sentences of its reply
    (1 = an equal share); a cell's weight is the mean over its training steps, shrunk towards
    the act's mean with :data:`SHRINK` pseudo-steps; an act never seen gets 1."""

    by_act: dict[str, float]
    by_cell: dict[str, float]
    confidence_power: float = 0.0

    @classmethod
    def fit(
        cls, replies: Sequence[LabelledReply], confidence_power: float = CONFIDENCE_POWER
    ) -> ImportanceModel:
        act_w: dict[str, list[float]] = defaultdict(list)
        cell_w: dict[str, list[float]] = defaultdict(list)
        for r in replies:
            n = len(r.steps)
            for k, step in enumerate(r.steps):
                w = step.importance * n
                act_w[step.act].append(w)
                cell_w[f"{step.act}|{position_class(k, n)}"].append(w)
        by_act = {a: sum(v) / len(v) for a, v in sorted(act_w.items())}
        by_cell = {
            c: (sum(v) + SHRINK * by_act[c.split("|")[0]]) / (len(v) + SHRINK)
            for c, v in sorted(cell_w.items())
        }
        return cls(by_act, by_cell, confidence_power)

    def weight(self, act: str, index: int, count: int) -> float:
        cell = f"{act}|{position_class(index, count)}"
        return self.by_cell.get(cell, self.by_act.get(act, 1.0))

    def steps(
        self,
        acts: Sequence[str],
        sentences: Sequence[str],
        confidence: Sequence[float] | None = None,
    ) -> list[DAStep]:
        """Steps with renormalised importances (seed 000 eq. 3); the sentence as rationale;
        ``confidence``: the classifier's probability of each act (weights times its
        ``confidence_power``-th power)."""
        conf = [1.0] * len(acts) if confidence is None else confidence
        raw = [
            max(self.weight(a, k, len(acts)) * c**self.confidence_power, 1e-6)
            for k, (a, c) in enumerate(zip(acts, conf, strict=True))
        ]
        total = sum(raw)
        return [
            DAStep(act=a, importance=w / total, rationale=s)
            for a, w, s in zip(acts, raw, sentences, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "by_act": self.by_act,
            "by_cell": self.by_cell,
            "shrink": SHRINK,
            "confidence_power": self.confidence_power,
        }


@dataclass
class SentenceAnnotator:
    """The shared classifier applied sentence by sentence plus an importance model (the
    classifier's probabilities give each sentence its act and its confidence)."""

    classifier: DAClassifier
    importance: ImportanceModel

    @property
    def name(self) -> str:
        return f"offline:{self.classifier.taxonomy}-sentence-logreg"

    def annotate_many(self, contexts: Sequence[str], replies: Sequence[str]) -> list[DASequence]:
        """The DA sequence of each reply (an empty reply gives an empty sequence); all
        sentences are classified in one batch."""
        split = [split_sentences(r) for r in replies]
        flat_ctx = [c for c, ss in zip(contexts, split, strict=True) for _ in ss]
        flat = [s for ss in split for s in ss]
        positions = [(k, len(ss)) for ss in split for k in range(len(ss))]
        if not flat:
            return [DASequence(steps=[]) for _ in split]
        proba = self.classifier.proba(flat_ctx, flat, positions)
        best = proba.argmax(axis=1)
        acts = [self.classifier.acts[int(k)] for k in best]
        conf = proba[range(len(flat)), best].tolist()
        out: list[DASequence] = []
        start = 0
        for ss in split:
            end = start + len(ss)
            out.append(
                DASequence(steps=self.importance.steps(acts[start:end], ss, conf[start:end]))
            )
            start = end
        return out

    def annotate(self, context: str, reply: str) -> DASequence:
        return self.annotate_many([context], [reply])[0]

    def save(self, directory: Path, stem: str) -> tuple[Path, Path]:
        self.classifier.meta["importance"] = self.importance.to_json()
        return self.classifier.save(directory, stem)

    @classmethod
    def load(cls, npz: Path) -> SentenceAnnotator:
        from taiwa.annotators.da_classifier.model import DAClassifier

        classifier = DAClassifier.load(npz)
        imp = classifier.meta["importance"]
        return cls(
            classifier,
            ImportanceModel(
                dict(imp["by_act"]), dict(imp["by_cell"]), float(imp.get("confidence_power", 0.0))
            ),
        )


def train_sentence_annotator(
    train: Sequence[LabelledReply],
    acts: Sequence[str],
    taxonomy: str,
    l2: float | None = None,
    endings: bool = False,
    cross: bool = False,
    ending_bits: int = 10,
) -> tuple[SentenceAnnotator, dict[str, Any]]:
    """Fit the classifier (seed 002 §5.2's recipe, with position features and, with
    ``endings``, sentence-final form features: :mod:`.da_sentence_endings`) and the importance
    model on ``train``; returns the annotator and the training info."""
    from taiwa.annotators.da_classifier.features import FeatureSettings
    from taiwa.annotators.da_classifier.model import fit

    unknown = sorted({s.act for r in train for s in r.steps} - set(acts))
    if unknown:
        raise ValueError(f"acts not in {taxonomy}: {', '.join(unknown)}")
    classifier, info = fit(
        sentence_examples(train),
        acts,
        FeatureSettings(
            use_position=True, use_endings=endings, ending_cross=cross, ending_bits=ending_bits
        ),
        l2=l2,
    )
    classifier.taxonomy = taxonomy
    return SentenceAnnotator(classifier, ImportanceModel.fit(train)), info
