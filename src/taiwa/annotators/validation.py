"""How good is an annotator? Scores DA sequences an annotator wrote against gold ones (issue 16).

For a sequence annotator (seed 000 §4.1: reply → acts with importances), on replies with gold
sequences:

- per-act precision / recall / F1 and a confusion matrix, over the steps the WED alignment
  pairs (seed 000 eqs. 4–7): a matched or substituted pair is (gold act, predicted act); a
  gold step the prediction lacks counts against recall (predicted ``∅``), a predicted step
  gold lacks against precision (gold ``∅``);
- WED against gold (mean, with its deletion / insertion / substitution parts) and the share of
  exact act sequences;
- on gold-vs-flawed alternatives: how often the gold reply gets a lower WED against the
  reference than a flawed variant (ties counted apart), overall and per kind of flaw.

Each figure has its n and a seeded 95 % bootstrap CI; :func:`baseline_annotations` gives the
trivial baselines the figures are read against. For a single-label tagger (seed 002: one act
per utterance), :func:`label_report` gives the per-act table beside a majority baseline.
Nothing here knows a method: callers hand in the annotations.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from taiwa.annotators.sentence_annotator import position_class
from taiwa.core.schema import DASequence, DAStep
from taiwa.metrics.da_sequence import wed
from taiwa.metrics.stats import bootstrap_ci, precision_recall_f1

NONE = "∅"
"""The confusion-matrix label of a step one side lacks."""

MAJORITY = "majority act per sentence position"
"""The label of the majority baseline (:func:`baseline_annotations`)."""

TIE = 1e-12
"""WEDs closer than this are a tie (gold not ranked first, not last either)."""


@dataclass(frozen=True)
class Pair:
    """A reply's annotation (``None``: the annotator failed on it) and its gold sequence."""

    pred: DASequence | None
    gold: DASequence


@dataclass(frozen=True)
class Ranking:
    """One gold-vs-flawed comparison: the WED of the annotated gold reply and of the annotated
    flawed variant, both against the reference (``None``: an annotation failed)."""

    group: str
    kind: str
    gold_wed: float | None
    flawed_wed: float | None


def _ci(values: Sequence[float], seed: int) -> dict[str, float | int]:
    return bootstrap_ci(list(values), seed=seed).as_dict()


def macro_f1_ci(
    gold: Sequence[str], pred: Sequence[str], unit: Sequence[int], acts: Sequence[str], seed: int
) -> dict[str, float | int]:
    """Macro-F1 (over the acts gold has) with a bootstrap CI that resamples the units (replies)
    the paired labels come from; ``n``: the number of units."""
    import numpy as np

    code = {a: k for k, a in enumerate([*acts, NONE])}
    g = np.array([code[a] for a in gold], dtype=np.int64)
    p = np.array([code[a] for a in pred], dtype=np.int64)
    u = np.asarray(unit, dtype=np.int64)
    size, real = len(code), len(acts)
    n_units = int(u.max()) + 1 if len(u) else 0
    hit = g == p

    def macro(units: Sequence[int]) -> float:
        w = np.bincount(np.asarray(units, dtype=np.int64), minlength=n_units)[u].astype(float)
        tp = np.bincount(g[hit], weights=w[hit], minlength=size)[:real]
        n_gold = np.bincount(g, weights=w, minlength=size)[:real]
        n_pred = np.bincount(p, weights=w, minlength=size)[:real]
        prec = np.divide(tp, n_pred, out=np.zeros(real), where=n_pred > 0)
        rec = np.divide(tp, n_gold, out=np.zeros(real), where=n_gold > 0)
        f1 = np.divide(2 * prec * rec, prec + rec, out=np.zeros(real), where=prec + rec > 0)
        present = n_gold > 0
        return float(f1[present].mean()) if present.any() else 0.0

    return bootstrap_ci(list(range(n_units)), macro, seed=seed).as_dict()


def per_act_block(gold: Sequence[str], pred: Sequence[str], acts: Sequence[str]) -> dict[str, Any]:
    """``per_act`` P/R/F1/support, ``macro_f1`` over the acts gold has, and the ``confusion``
    matrix (with ``∅``) of paired labels."""
    labels = [*acts, NONE]
    scores = precision_recall_f1(gold, pred, labels)
    per_act = {
        a: {"precision": s.precision, "recall": s.recall, "f1": s.f1, "support": s.support}
        for a, s in scores.items()
        if a != NONE
    }
    present = [a for a in acts if per_act[a]["support"]]
    confusion = Counter(zip(gold, pred, strict=True))
    return {
        "per_act": per_act,
        "macro_f1": sum(per_act[a]["f1"] for a in present) / len(present) if present else 0.0,
        "confusion": {g: {q: confusion[(g, q)] for q in labels} for g in labels},
    }


def aligned_acts(pred: DASequence, gold: DASequence) -> list[tuple[str, str]]:
    """(gold act, predicted act) for every step of the WED alignment (``∅``: none)."""
    return [
        (op.gold_act or NONE, op.pred_act or NONE) for op in wed(pred.steps, gold.steps).alignment
    ]


def sequence_report(pairs: Sequence[Pair], acts: Sequence[str], seed: int = 0) -> dict[str, Any]:
    """Per-act P/R/F1, confusion matrix, WED against gold and exact-sequence rate of ``pairs``
    (failed annotations are counted, and scored as an empty sequence: WED 1)."""
    gold_acts: list[str] = []
    units: list[int] = []
    pred_acts: list[str] = []
    weds: list[float] = []
    parts: dict[str, list[float]] = {"deletion": [], "insertion": [], "substitution": []}
    exact: list[float] = []
    for k, p in enumerate(pairs):
        pred = p.pred if p.pred is not None else DASequence(steps=[])
        for g, q in aligned_acts(pred, p.gold):
            gold_acts.append(g)
            pred_acts.append(q)
            units.append(k)
        w = wed(pred.steps, p.gold.steps)
        weds.append(w.total)
        for name in parts:
            parts[name].append(getattr(w, name))
        exact.append(float(pred.acts == p.gold.acts))
    return {
        "n_replies": len(pairs),
        "failed": sum(p.pred is None for p in pairs),
        "n_steps": sum(1 for g in gold_acts if g != NONE),
        **per_act_block(gold_acts, pred_acts, acts),
        "macro_f1_ci": macro_f1_ci(gold_acts, pred_acts, units, acts, seed),
        "wed": _ci(weds, seed),
        **{name: _ci(v, seed) for name, v in parts.items()},
        "exact_sequence": _ci(exact, seed),
    }


def ranking_report(rankings: Sequence[Ranking], seed: int = 0) -> dict[str, Any]:
    """Gold ranked first (strictly lower WED) per comparison, overall and per kind of flaw:
    share with CI, and the counts of wins, ties, losses and failed comparisons."""

    def block(rows: Sequence[Ranking]) -> dict[str, Any]:
        scored = [
            (g, f)
            for r in rows
            if (g := r.gold_wed) is not None and (f := r.flawed_wed) is not None
        ]
        wins = [float(g < f - TIE) for g, f in scored]
        ties = sum(abs(g - f) <= TIE for g, f in scored)
        return {
            "gold_first": _ci(wins, seed),
            "wins": int(sum(wins)),
            "ties": int(ties),
            "losses": len(scored) - int(sum(wins)) - int(ties),
            "failed": len(rows) - len(scored),
        }

    kinds = sorted({r.kind for r in rankings})
    return {
        "n_groups": len({r.group for r in rankings}),
        "all": block(rankings),
        "by_kind": {k: block([r for r in rankings if r.kind == k]) for k in kinds},
    }


def equal_steps(acts: Sequence[str]) -> DASequence:
    """One step per act, equal importances."""
    return DASequence(steps=[DAStep(act=a, importance=1.0 / len(acts)) for a in acts])


def majority_by_position(golds: Sequence[DASequence]) -> dict[str, str]:
    """The most frequent gold act at each position class (only / first / middle / last step;
    ties: first seen)."""
    counts: dict[str, Counter[str]] = {}
    for g in golds:
        for k, act in enumerate(g.acts):
            counts.setdefault(position_class(k, len(g.acts)), Counter())[act] += 1
    return {pos: c.most_common(1)[0][0] for pos, c in counts.items()}


def baseline_annotations(
    sentence_counts: Sequence[int], majority: Mapping[str, str], fixed: str
) -> dict[str, list[DASequence]]:
    """The trivial annotators, one sequence per reply from its number of sentences, equal
    importances: ``majority`` (on each sentence, the most frequent gold act at its position:
    :func:`majority_by_position`) and ``fixed`` (one ``fixed`` act per sentence)."""
    common = Counter(majority.values()).most_common(1)[0][0]

    def by_position(n: int) -> list[str]:
        return [majority.get(position_class(k, n), common) for k in range(n)]

    return {
        MAJORITY: [equal_steps(by_position(n)) for n in sentence_counts],
        f"one {fixed} per sentence, equal importance": [
            equal_steps([fixed] * n) for n in sentence_counts
        ],
    }


def label_report(
    gold: Sequence[str], pred: Sequence[str | None], acts: Sequence[str], seed: int = 0
) -> dict[str, Any]:
    """Per-act P/R/F1, macro-F1, accuracy (with CI) and confusion of single labels (a failed
    tag, ``None``, counts as ``∅``)."""
    shown = [p or NONE for p in pred]
    return {
        "n": len(gold),
        "failed": sum(p is None for p in pred),
        **per_act_block(gold, shown, acts),
        "macro_f1_ci": macro_f1_ci(gold, shown, range(len(gold)), acts, seed),
        "accuracy": _ci([float(g == p) for g, p in zip(gold, shown, strict=True)], seed),
    }
