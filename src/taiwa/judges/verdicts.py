"""Reading a judge's output: a single rating ``[[N]]``, a pairwise verdict ``[[A]]`` /
``[[B]]`` / ``[[C]]``, and what the two verdicts of a position-swapped pair mean.

The formats are MT-bench's (Zheng+ 2023; FastChat reads ``\\[\\[(\\d+\\.?\\d*)\\]\\]`` and
``[[A]]``/``[[B]]``/``[[C]]``), as seed 001 adopts them. Decisions:

- The text is NFKC-normalised first, so full-width ``［［７］］`` or ``［［Ａ］］`` (common in
  Japanese output) read like ``[[7]]`` and ``[[A]]``; spaces inside the brackets are allowed.
- When the pattern occurs several times, the **last** occurrence is the verdict (a judge may
  quote the format or mention a score in its explanation before giving its own).
- Ratings may have decimals (``[[7.5]]``), as MT-bench allows, although the prompt asks for
  an integer: a clear rating is not worth a repair round. It must lie in 1–10.
- Anything else raises :class:`VerdictError` whose message is the reason a repair round gives
  the judge (:class:`taiwa.harness.method.Retry`) and, when the bound is reached, the failure
  recorded.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

RATING_MIN = 1.0
RATING_MAX = 10.0

Verdict = Literal["A", "B", "C"]
"""A pairwise verdict: the answer shown first (A) or second (B) is better, or a tie (C)."""

_RATING = re.compile(r"\[\[\s*(\d+(?:\.\d+)?)\s*\]\]")
_VERDICT = re.compile(r"\[\[\s*([ABC])\s*\]\]")

RATING_REASON = (
    "no rating [[N]] (N from 1 to 10) found: end the evaluation with the rating in that "
    "form, e.g. 評価：[[7]]"
)
VERDICT_REASON = (
    "no verdict [[A]], [[B]] or [[C]] found: end the judgement with one of them, e.g. 判定：[[A]]"
)


class VerdictError(ValueError):
    """The judge's output holds no valid verdict; the message says what was expected."""


def parse_rating(text: str) -> float:
    """The last ``[[N]]`` of ``text`` as a float in 1–10 (MT-bench's single format)."""
    found = _RATING.findall(unicodedata.normalize("NFKC", text))
    if not found:
        raise VerdictError(RATING_REASON)
    rating = float(found[-1])
    if not RATING_MIN <= rating <= RATING_MAX:
        raise VerdictError(f"rating [[{found[-1]}]] is outside 1-10: {RATING_REASON}")
    return rating


def parse_verdict(text: str) -> Verdict:
    """The last ``[[A]]``, ``[[B]]`` or ``[[C]]`` (tie) of ``text`` (MT-bench's pair format)."""
    found = _VERDICT.findall(unicodedata.normalize("NFKC", text))
    if not found:
        raise VerdictError(VERDICT_REASON)
    verdict: Verdict = found[-1]
    return verdict


Outcome = Literal["a", "b", "tie", "unparsed"]
Position = Literal["first", "second"]

_AS_SHOWN: dict[Verdict, Outcome] = {"A": "a", "B": "b", "C": "tie"}
_SWAPPED: dict[Verdict, Outcome] = {"A": "b", "B": "a", "C": "tie"}
_BIAS: dict[tuple[Verdict, Verdict], Position] = {("A", "A"): "first", ("B", "B"): "second"}


@dataclass(frozen=True)
class SwappedPair:
    """What the two verdicts on systems ``a`` and ``b`` mean (Zheng+ 2023 §3.4, "swap").

    ``first`` is the verdict with ``a`` shown as A, ``second`` the verdict with ``b`` shown as
    A (``None``: not parsed). The pair is won when both orders name the same system; a verdict
    that changes with the order (``flipped``) counts as a tie, as does a tie in both orders.
    ``bias`` says which position a flipping judge preferred in both orders (``"first"``,
    ``"second"``), or ``None`` (Zheng+ 2023 Table 2's "biased toward first/second")."""

    outcome: Outcome
    flipped: bool | None
    bias: Position | None

    @classmethod
    def resolve(cls, first: Verdict | None, second: Verdict | None) -> SwappedPair:
        if first is None or second is None:
            return cls("unparsed", None, None)
        as_shown, swapped = _AS_SHOWN[first], _SWAPPED[second]
        if as_shown == swapped:
            return cls(as_shown, False, None)
        return cls("tie", True, _BIAS.get((first, second)))
