"""Offline sentence-level DA tagger, for when no capable LLM is at hand (``--annotator offline``).

1. The reply is split into functional sentences (after 。！？!?, not inside a closing quote).
2. Each sentence gets an act from a multinomial naive Bayes classifier over character
   1–3-grams plus position and question-mark cues, trained on examples the caller hands in
   (texts with their gold DA sequences; only those whose sentences align one-to-one with their
   steps teach acts; all of them teach importances). The da-response method trains it on its
   bundled, team-written sample set.
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

from taiwa.metrics.da_sequence import wed
from taiwa.schema import DASequence, DAStep
from taiwa.text.normalize import nfkc

Example = tuple[str, DASequence]
"""A text and its gold DA sequence."""

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
    def train(cls, examples: Sequence[Example], alpha: float = 0.5) -> SentenceDATagger:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        n_act: Counter[str] = Counter()
        weights: dict[str, list[float]] = defaultdict(list)
        for text, gold in examples:
            for step in gold.steps:
                weights[step.act].append(step.importance)
            sentences = split_sentences(text)
            if len(sentences) != len(gold.steps):
                continue  # not aligned one-to-one: used for importances only
            for i, (sent, step) in enumerate(zip(sentences, gold.steps, strict=True)):
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


@dataclass(frozen=True)
class Agreement:
    """Held-out agreement of the offline tagger with gold sequences."""

    n_items: int
    mean_wed: float
    n_sentences: int
    act_accuracy: float


def held_out_agreement(examples: Sequence[Example], every: int = 4) -> Agreement:
    """Train on all but every ``every``-th example (in the given order) and score on those
    held out: mean WED against their gold sequences and sentence-level act accuracy."""
    held = [ex for k, ex in enumerate(examples) if k % every == 0]
    train = [ex for k, ex in enumerate(examples) if k % every != 0]
    tagger = SentenceDATagger.train(train)
    weds, hits, n_sent = [], 0, 0
    for text, gold in held:
        seq = tagger.tag(text)
        weds.append(wed(seq, gold).total)
        sentences = split_sentences(text)
        if len(sentences) == len(gold.steps):
            n_sent += len(sentences)
            hits += sum(p == g for p, g in zip(seq.acts, gold.acts, strict=True))
    return Agreement(
        len(held), sum(weds) / len(weds), n_sent, hits / n_sent if n_sent else float("nan")
    )
