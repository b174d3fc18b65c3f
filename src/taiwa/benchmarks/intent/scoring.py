"""Scoring an answer and the accuracy table of seed 004 §3.1 (Table 1).

An answer is correct when :func:`~taiwa.benchmarks.intent.parsing.parse_answer` reads the gold
option from it; an unparseable answer is counted and scored wrong. Accuracy is reported over
all items and split into context-dependent items (their core sentence's group has 2 or more
distinct gold labels) and context-independent ones, each with n and a 95 % bootstrap CI.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any

from taiwa.benchmarks.intent.dataset import IntentItem
from taiwa.benchmarks.intent.parsing import read_answer
from taiwa.harness.method import Row, Upstream


def score_answer(item: IntentItem, upstream: Upstream) -> Row:
    """The score row of one reply: the option read from it (``None``: unparseable) and how it
    was read (:data:`~taiwa.benchmarks.intent.parsing.HOW`)."""
    text = str(upstream["generate"]["text"])
    choice, how = read_answer(text, item.options)
    return {
        "choice": choice,
        "gold": item.gold,
        "correct": choice == item.gold,
        "dependent": item.dependent,
        "parsed": how,
    }


def accuracy_block(
    rows: Iterable[Mapping[str, Any]], dependent: Mapping[str, bool], seed: int
) -> dict[str, Any]:
    """Table 1's cells for one system: accuracy overall, on context-dependent and on
    context-independent items (n, 95 % CI), and the unparseable answers."""
    # Imported here, not with the module: the score stage needs no numpy, and a run's first
    # request should not wait for it (the runner warms the statistics up during the requests).
    from taiwa.metrics.stats import bootstrap_ci

    split: dict[str, list[float]] = {"all": [], "dependent": [], "independent": []}
    unparsed = 0
    for r in rows:
        hit = float(bool(r["correct"]))
        split["all"].append(hit)
        split["dependent" if dependent[r["id"]] else "independent"].append(hit)
        unparsed += r["choice"] is None
    out: dict[str, Any] = {
        f"accuracy_{k}" if k != "all" else "accuracy": bootstrap_ci(v, seed=seed).as_dict()
        for k, v in split.items()
    }
    out["unparseable"] = unparsed
    return out


DERIVED = ("accuracy_independent", "accuracy_dependent", "stability")
"""A system's numbers derived from the same answers as its accuracy: a flag on the accuracy
(one option for every answer, every answer unreadable) covers them (issue 39)."""


def distribution_block(
    rows: Iterable[Mapping[str, Any]], k: int, block: MutableMapping[str, Any]
) -> dict[str, Any]:
    """A system's answers per option beside the gold labels of the same items, and the flags
    on its accuracy when one option takes most answers or the answers lean on some options
    beyond gold's shares (:func:`taiwa.metrics.answer_flags.answer_distribution_flags`: a
    constant answerer scores what gold gives its option, which can read like a model's
    accuracy). The flags cover every number derived from the same answers (:data:`DERIVED`)."""
    from taiwa.metrics import flags
    from taiwa.metrics.answer_flags import answer_distribution, answer_distribution_flags

    choices: list[int | None] = []
    golds: list[int] = []
    for r in rows:
        choices.append(r["choice"])
        golds.append(int(r["gold"]))
    dist = answer_distribution(choices, golds, k)
    flags.add(block, *answer_distribution_flags(dist, "accuracy", DERIVED))
    return dist
