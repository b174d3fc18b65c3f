"""The da-distribution summary: one block per system (seed 002 Table 1, Table 2, Fig. 2) and
the consistency of the DAE ordering between systems (§5.1, Fig. 3).

Per system: DAE and DAMI in bits, Distinct-1/2, the share of every act and the transition lift
``P(a_t+1 | a_t) / P(a_t+1)`` of every (previous act, act) cell, each with n and a 95 %
bootstrap CI over the system's replies (:mod:`taiwa.metrics.da_bootstrap`). Replies the tagger
could not label, and contexts without a previous act, are counted beside the numbers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from taiwa.benchmarks.da_distribution.consistency import Consistency, consistency
from taiwa.harness.method import HUMAN, Results
from taiwa.metrics import flags
from taiwa.metrics.da_bootstrap import (
    PLUG_IN_FLOORS,
    ActDistribution,
    act_distribution,
    distinct_with_bias,
)
from taiwa.metrics.stats import bootstrap_ci


@dataclass
class Collected:
    """One pass over the ``tag`` rows: each system's acts and the previous acts, per context."""

    systems: Sequence[str]
    acts: dict[str, list[str]] = field(default_factory=dict)
    previous: dict[str, list[str | None]] = field(default_factory=dict)
    paired: list[dict[str, str]] = field(default_factory=list)
    """Per context: the act of every system that was tagged (for the paired consistency)."""
    paired_prev: list[str | None] = field(default_factory=list)
    reference: list[str | None] = field(default_factory=list)
    """Per context: the tagger's act of the human reply when the run took its act from the
    test set's label (``reference_act``; ``None`` otherwise), to check the tagger against it."""
    untagged: dict[str, Counter[str]] = field(default_factory=dict)
    prev_from: Counter[str] = field(default_factory=Counter)


def collect(rows: Iterable[Mapping[str, Any]], systems: Sequence[str]) -> Collected:
    c = Collected(systems)
    for s in systems:
        c.acts[s], c.previous[s], c.untagged[s] = [], [], Counter()
    for row in rows:
        if "error" in row:
            continue
        prev = row.get("prev_act")
        c.prev_from[row.get("prev_from") or "unknown"] += 1
        for s, act in row["acts"].items():
            c.acts[s].append(act)
            c.previous[s].append(prev)
        for s, reason in row.get("untagged", {}).items():
            c.untagged[s][reason] += 1
        c.paired.append(dict(row["acts"]))
        c.paired_prev.append(prev)
        c.reference.append(row.get("reference_act"))
    return c


def _estimate(e: Any) -> dict[str, Any]:
    return {
        k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in e.as_dict().items()
    }


def _matrix(a: Any) -> list[list[float | None]]:
    return [[None if math.isnan(float(x)) else round(float(x), 6) for x in row] for row in a]


def distribution_block(d: ActDistribution) -> dict[str, Any]:
    """Seed 002 Table 1 (act counts and shares) and Fig. 2 (transition lift) of one system."""
    return {
        "dae": _estimate(d.dae),
        "dami": {**_estimate(d.dami), "bias": None if math.isnan(d.dami_bias) else d.dami_bias},
        "acts": {
            act: {"count": int(d.counts[j]), "share": _estimate(d.shares[j])}
            for j, act in enumerate(d.labels)
        },
        "transitions": {
            "labels": list(d.labels),
            "counts": [[int(x) for x in row] for row in d.joint],
            "lift": _matrix(d.lift),
            "ci_low": _matrix(d.lift_low),
            "ci_high": _matrix(d.lift_high),
        },
    }


def system_blocks(
    c: Collected,
    texts: Mapping[str, Sequence[str]],
    labels: Sequence[str],
    seed: int,
) -> dict[str, dict[str, Any]]:
    """One block per system: DAE, DAMI, Distinct-1/2, act shares, transition lift (n, CIs)."""
    from taiwa.text.tokenizer import default_tokenizer

    tok = default_tokenizer()
    out: dict[str, dict[str, Any]] = {}
    for s in c.systems:
        d = act_distribution(c.acts[s], c.previous[s], labels, seed=seed)
        tokens = [tok.tokenize(t) for t in texts.get(s, ())]
        block: dict[str, Any] = {"tagged": len(c.acts[s])}
        if c.untagged[s]:
            block["untagged"] = dict(c.untagged[s])
        block.update(distribution_block(d))
        for n in (1, 2):
            est, bias = distinct_with_bias(tokens, n)
            block[f"distinct{n}"] = {**_estimate(est), "bias": None if math.isnan(bias) else bias}
            grams = sum(max(0, len(t) - n + 1) for t in tokens)
            flags.add(block, flags.nothing_counted(grams, f"reply of {n}+ tokens", f"distinct{n}"))
        out[s] = block
    return out


def human_label_agreement(
    c: Collected, reply_acts: Mapping[int, str], seed: int, from_labels: bool = False
) -> dict[str, Any] | None:
    """How often the tagger gives the human reply the test set's ``reply_act`` label (a check
    of the tagger on this test set), or ``None`` without labels. ``from_labels``: the run took
    the human replies' acts from those labels, and the tagger's own acts of them are the
    ``reference`` ones (none when the tagger did not tag them: a chat model or votes)."""
    tagged = c.reference if from_labels else [acts.get(HUMAN) for acts in c.paired]
    hits = [
        float(act == reply_acts[i])
        for i, act in enumerate(tagged)
        if act is not None and i in reply_acts
    ]
    if not hits:
        return None
    return _estimate(bootstrap_ci(hits, seed=seed))


def consistency_block(
    c: Collected,
    order: Sequence[str],
    sizes: Sequence[int],
    repetitions: int,
    seed: int,
) -> tuple[dict[str, Any], dict[str, Consistency], list[str]]:
    """Seed 002 §5.1 for each pair of systems adjacent in the DAE ordering (``order``, highest
    first): share of paired batches ordering the two as the full set does. Batch sizes larger
    than the paired contexts are dropped; when none fits, quarters of the set are used."""
    notes: list[str] = []
    pairs: dict[str, Any] = {}
    curves: dict[str, Consistency] = {}
    for a, b in pairwise(order):
        both = [(acts[a], acts[b]) for acts in c.paired if a in acts and b in acts]
        n = len(both)
        fit = [k for k in sizes if k < n]
        if not fit and n >= 8:
            fit = sorted({n // 4, n // 2, 3 * n // 4})
            notes.append(
                f"consistency {a} vs {b}: {n} paired contexts, fewer than the batch sizes "
                f"{list(sizes)}; used {fit} instead"
            )
        elif len(fit) < len(sizes):
            notes.append(
                f"consistency {a} vs {b}: batch sizes of {n} or more dropped ({n} paired contexts)"
            )
        label = f"{a} vs {b}"
        if not fit:
            pairs[label] = {"n": n, "skipped": "fewer than 8 paired contexts"}
            continue
        try:
            res = consistency(
                [x for x, _ in both],
                [y for _, y in both],
                batch_sizes=fit,
                repetitions=repetitions,
                seed=seed,
            )
        except ValueError as exc:  # a tie on the full set: no ordering to agree with
            pairs[label] = {"n": n, "skipped": str(exc)}
            continue
        curves[label] = res
        pairs[label] = {
            "n": n,
            "full": [round(res.full_a, 6), round(res.full_b, 6)],
            "repetitions": repetitions,
            "points": [
                {"batch_size": p.batch_size, "agreement": _estimate(p.agreement), "ties": p.ties}
                for p in res.points
            ],
        }
    return {"metric": "dae", "pairs": pairs}, curves, notes


def curve_writer(curves: Mapping[str, Consistency]) -> Callable[[Path], None]:
    from taiwa.benchmarks.da_distribution.plots import write_curve_svg

    return lambda path: write_curve_svg(curves, path)


def lift_writer(blocks: Mapping[str, Mapping[str, Any]]) -> Callable[[Path], None]:
    from taiwa.benchmarks.da_distribution.plots import write_lift_svg

    return lambda path: write_lift_svg(blocks, path)


def systems_texts(results: Results) -> dict[str, list[str]]:
    """Every reply each system gave (failed generations left out), for Distinct-n."""
    return {s: [str(r["text"]) for r in results.ok("generate", s)] for s in results.systems}


def bias_flags(
    blocks: Mapping[str, MutableMapping[str, Any]], texts: Mapping[str, Sequence[str]]
) -> None:
    """Flag DAMI and Distinct-1/2 where the plug-in estimate's jackknife bias is a noticeable
    share of its value (either sign) or n is below the metric's floor (seed 002 App. C's
    plug-in estimates; :func:`taiwa.metrics.flags.plug_in_flags`), and DAE and DAMI of a system
    that gives one reply to most contexts (:func:`taiwa.metrics.flags.identical_replies`): the
    acts the tagger then reads vary with the contexts (the previous act is a feature), not
    with anything the system did."""
    for s, b in blocks.items():
        flags.add(b, *flags.plug_in_flags(b, PLUG_IN_FLOORS))
        if s not in texts:
            continue
        share, flag = flags.identical_replies(texts[s], "dae")
        b["identical_replies"] = share
        if flag is not None:
            flags.add(b, flag, flags.Flag(flag.code, "dami", flag.text))


def validation_range_flags(
    blocks: Mapping[str, MutableMapping[str, Any]],
    texts: Mapping[str, Sequence[str]],
    validated: Mapping[str, Sequence[int]],
    labelled: Sequence[str] = (),
) -> None:
    """Flag DAE and DAMI of a system whose replies are mostly longer than every utterance of
    the tagger's validation set of that system (``validated``: their lengths by system; see
    :func:`taiwa.metrics.flags.beyond_validation`): the tagger's accuracy there, and the correction
    through its confusion, do not carry over (not for the ``labelled`` systems, whose acts
    are gold labels)."""
    for s, b in blocks.items():
        if s in labelled or s not in texts:
            continue
        lengths = [len(t) for t in texts[s]]
        flag = flags.beyond_validation(lengths, validated.get(s, ()), "dae", "the tagger")
        if flag is not None:
            flags.add(b, flag, flags.Flag(flag.code, "dami", flag.text))


def untagged_notes(blocks: Mapping[str, Mapping[str, Any]]) -> list[str]:
    return [
        f"{s}: {sum(b['untagged'].values())} repl(ies) untagged "
        f"({', '.join(f'{k}: {v}' for k, v in b['untagged'].items())}), left out"
        for s, b in blocks.items()
        if b.get("untagged")
    ]
