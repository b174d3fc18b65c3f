"""The multiple-choice checks of a system's answers beside gold (seed 004's multiple choice;
issue 24): a constant answerer, an answerer leaning on some options. The flags they raise sit on
the accuracy (:mod:`taiwa.metrics.flags`) and cover the numbers derived from the same answers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from taiwa.metrics.flags import ALPHA, MCQ_TEST_FLOOR, MIN_N, Flag


def answer_distribution(
    choices: Sequence[int | None], golds: Sequence[int], k: int
) -> dict[str, Any]:
    """A multiple-choice system's answers per option beside the gold labels of the same items
    (options numbered from 1; ``None``: unparseable), and the tests of
    :func:`answer_distribution_flags`: ``top`` (the most chosen option, its count and gold's
    share of it, the one-sided exact binomial p that it is chosen no more often than gold) and
    ``chi2`` (goodness of fit of the answers, over the options gold uses, to gold's shares;
    ``None`` below :data:`MCQ_TEST_FLOOR` such answers or when gold uses one option)."""
    answers = [0] * k
    gold = [0] * k
    for c, g in zip(choices, golds, strict=True):
        gold[g] += 1
        if c is not None:
            answers[c] += 1
    parsed = sum(answers)
    out: dict[str, Any] = {
        "options": [str(i + 1) for i in range(k)],
        "answers": answers,
        "gold": gold,
        "unparsed": len(choices) - parsed,
        "n": len(choices),
        "top": None,
        "chi2": None,
    }
    if not parsed or not golds:
        return out
    from taiwa.metrics.exact_tail import binom_sf, chi2_sf  # not scipy.stats: ~0.5 s to import

    top = max(range(k), key=lambda i: answers[i])
    p0 = gold[top] / len(golds)
    p = binom_sf(answers[top] - 1, parsed, p0) if p0 < 1 else 1.0
    out["top"] = {"option": top + 1, "count": answers[top], "gold_share": p0, "p": p}
    used = [i for i in range(k) if gold[i]]
    within = sum(answers[i] for i in used)
    if within >= MCQ_TEST_FLOOR and len(used) > 1:
        expected = [gold[i] / len(golds) * within for i in used]
        statistic = math.fsum(
            (answers[i] - e) ** 2 / e for i, e in zip(used, expected, strict=True)
        )
        out["chi2"] = {
            "statistic": statistic,
            "p": chi2_sf(statistic, len(used) - 1),
            "concentration": _hhi(answers),
            "gold_concentration": _hhi(gold),
        }
    return out


def answer_distribution_flags(
    dist: Mapping[str, Any], on: str, covers: Sequence[str] = ()
) -> list[Flag]:
    """Flags for :func:`answer_distribution`, on ``on`` and covering ``covers`` (the numbers
    derived from the same answers, e.g. the accuracy's splits and stability curve):

    - ``one-option``: every parsed answer names one option while gold does not, or the most
      chosen option takes more than half of the parsed answers and more than gold gives it
      beyond chance (exact binomial test, one-sided, p < :data:`ALPHA`);
    - ``skewed-answers``: over the options gold uses, the answers differ from gold's shares
      beyond chance (chi-square goodness of fit, p < :data:`ALPHA`), and they are more
      concentrated than gold (Herfindahl index): a system that leans on some options. A
      uniform guesser is about as concentrated as gold or less (answers on an option gold
      never uses, e.g. 「該当なし」, are no lean) and is rarely flagged; a system answering
      like gold never is.
    """
    out: list[Flag] = []
    top, parsed = dist["top"], sum(dist["answers"])
    if top is None or parsed < MIN_N:
        return out
    share = top["count"] / parsed
    constant = top["count"] == parsed and max(dist["gold"]) < sum(dist["gold"])
    if constant or (share > 0.5 and top["p"] < ALPHA):
        how = "every answer" if constant else f"{top['count']} of {parsed} answers"
        out.append(
            Flag(
                "one-option",
                on,
                f"{how} named option {top['option']} (gold: {top['gold_share']:.0%} of "
                f"{sum(dist['gold'])}; exact binomial p={top['p']:.1g}): the score reflects a "
                "fixed answer, not reading",
                tuple(covers),
            )
        )
        return out
    chi2 = dist["chi2"]
    if chi2 and chi2["p"] < ALPHA and chi2["concentration"] > chi2["gold_concentration"]:
        out.append(
            Flag(
                "skewed-answers",
                on,
                f"answers lean on some options beyond gold's shares (chi-square "
                f"p={chi2['p']:.1g}): part of the score follows the option order",
                tuple(covers),
            )
        )
    return out


def _hhi(counts: Sequence[int]) -> float:
    """Herfindahl index of a distribution: the sum of squared shares (1: one option only)."""
    total = sum(counts)
    return sum((c / total) ** 2 for c in counts) if total else float("nan")
