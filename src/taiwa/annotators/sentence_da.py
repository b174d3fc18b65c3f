"""Offline sentence-level DA tagger, for when no capable LLM is at hand (``--annotator offline``).

1. The reply is split into functional sentences (after 。！？!?, not inside a closing quote).
2. Each sentence gets an ``assistant7`` act from a multinomial naive Bayes classifier over
   character 1–3-grams plus position and question-mark cues, trained on the bundled, team-written
   da-response sample set (the items whose sentences align one-to-one with their steps).
3. Importance rule: each sentence gets the mean importance its act has in the training steps;
   the importances are then renormalised to sum 1 (seed 000 eq. 3).

:func:`held_out_agreement` reports how closely it reproduces gold sequences it was not trained
on (mean WED and sentence-level act accuracy), so users can judge it before relying on it.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from taiwa.annotators.base import Annotation, ReplyToAnnotate
from taiwa.datasets.da_response import DAResponseItem, load_da_response
from taiwa.metrics.da_sequence import wed
from taiwa.samples import sample_path
from taiwa.schema import DASequence, DAStep
from taiwa.text.normalize import nfkc

_SPLIT = re.compile(r"(?<=[。！？!?])(?![」』）)\"'!?！？])\s*|\n+")


def split_sentences(text: str) -> list[str]:
    """Functional sentences of a reply, in order."""
    return [s.strip() for s in _SPLIT.split(text) if s and s.strip()]


def _features(sentence: str, index: int, count: int) -> Counter[str]:
    s = nfkc(sentence)
    feats: Counter[str] = Counter()
    for n in (1, 2, 3):
        feats.update(s[i : i + n] for i in range(len(s) - n + 1))
    feats["__first"] += index == 0
    feats["__last"] += index == count - 1
    feats["__only"] += count == 1
    feats["__question"] += s.rstrip().endswith(("?", "か"))
    return feats


@dataclass
class SentenceDATagger:
    """Naive Bayes over sentence features; see the module docstring for the recipe."""

    log_prior: dict[str, float]
    log_likelihood: dict[str, dict[str, float]]
    unseen: dict[str, float]
    importance_prior: dict[str, float]
    name: str = "offline:sentence-nb"

    @classmethod
    def train(cls, items: Sequence[DAResponseItem], alpha: float = 0.5) -> SentenceDATagger:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        n_act: Counter[str] = Counter()
        weights: dict[str, list[float]] = defaultdict(list)
        for item in items:
            for step in item.gold.steps:
                weights[step.act].append(step.importance)
            sentences = split_sentences(item.output.text)
            if len(sentences) != len(item.gold.steps):
                continue  # not aligned one-to-one: used for importances only
            for i, (sent, step) in enumerate(zip(sentences, item.gold.steps, strict=True)):
                counts[step.act].update(_features(sent, i, len(sentences)))
                n_act[step.act] += 1
        vocab = {f for c in counts.values() for f in c}
        total = sum(n_act.values())
        log_prior = {a: math.log(n / total) for a, n in n_act.items()}
        log_lik: dict[str, dict[str, float]] = {}
        unseen: dict[str, float] = {}
        for act, c in counts.items():
            denom = sum(c.values()) + alpha * (len(vocab) + 1)
            log_lik[act] = {f: math.log((v + alpha) / denom) for f, v in c.items()}
            unseen[act] = math.log(alpha / denom)
        prior_imp = {a: sum(w) / len(w) for a, w in weights.items()}
        return cls(log_prior, log_lik, unseen, prior_imp)

    def classify(self, sentence: str, index: int, count: int) -> str:
        feats = _features(sentence, index, count)
        best, best_score = "", -math.inf
        for act, lp in self.log_prior.items():
            ll, miss = self.log_likelihood[act], self.unseen[act]
            score = lp + sum(v * ll.get(f, miss) for f, v in feats.items())
            if score > best_score:
                best, best_score = act, score
        return best

    def tag(self, reply: str) -> DASequence:
        """The DA sequence of one reply (empty reply → empty sequence)."""
        sentences = split_sentences(reply)
        acts = [self.classify(s, i, len(sentences)) for i, s in enumerate(sentences)]
        raw = [self.importance_prior.get(a, 0.1) for a in acts]
        total = sum(raw) or 1.0
        return DASequence(
            steps=[
                DAStep(act=a, importance=w / total, rationale=s)
                for a, w, s in zip(acts, raw, sentences, strict=True)
            ]
        )

    async def annotate(self, replies: Sequence[ReplyToAnnotate]) -> list[Annotation]:
        out = []
        for r in replies:
            seq = self.tag(r.reply)
            out.append(
                Annotation(r.id, seq)
                if seq.steps
                else Annotation(r.id, None, "empty reply: no sentence to tag")
            )
        return out


def default_sentence_tagger() -> SentenceDATagger:
    """Trained on the whole bundled sample set (deterministic, well under a second)."""
    return SentenceDATagger.train(load_da_response(sample_path("da_response/gold.jsonl")))


@dataclass(frozen=True)
class Agreement:
    """Held-out agreement of the offline tagger with gold sequences."""

    n_items: int
    mean_wed: float
    n_sentences: int
    act_accuracy: float


def held_out_agreement(items: Sequence[DAResponseItem], every: int = 4) -> Agreement:
    """Train on all but every ``every``-th item (by id order) and score on those held out."""
    ordered = sorted(items, key=lambda it: it.id)
    held = [it for k, it in enumerate(ordered) if k % every == 0]
    train = [it for k, it in enumerate(ordered) if k % every != 0]
    tagger = SentenceDATagger.train(train)
    weds, hits, n_sent = [], 0, 0
    for it in held:
        seq = tagger.tag(it.output.text)
        weds.append(wed(seq, it.gold).total)
        sentences = split_sentences(it.output.text)
        if len(sentences) == len(it.gold.steps):
            n_sent += len(sentences)
            hits += sum(p == g for p, g in zip(seq.acts, it.gold.acts, strict=True))
    return Agreement(
        len(held), sum(weds) / len(weds), n_sent, hits / n_sent if n_sent else float("nan")
    )
