"""LLM-as-a-judge stages (Zheng+ 2023, as seed 001 uses it): :class:`SingleJudge` rates each
system's answer 1–10, :class:`PairwiseJudge` compares every pair of systems in both orders.

Both are generic over the sample through three small callables the method passes in:
``question(sample) -> (instruction, context)`` (the task instruction the systems were given
and the dialogue so far, as text), ``reference(sample) -> str | None`` (the human
continuation; ``None``: the reference-free prompt) and ``answer(upstream) -> str | None`` (a
system's answer from its upstream rows, e.g. the extracted reply; ``None``: it has none).
``answer`` is called only for a system whose upstream rows all succeeded.

Requests go to the ``judge`` role at temperature 0 (:func:`judge_params`). The response cache
keys on the request's content (the judge's identity, the parameters and the messages, never
the request id), so an edited answer, reference or prompt is judged afresh; ids only need to
be unique within a stage's batch and say what was asked.

**A system without an answer** (its generation failed upstream, or ``answer`` gave ``None``,
e.g. extraction failed) is scored as a failure, as seed 001 scores failed extractions, unless
told otherwise: :class:`SingleJudge` gives it ``missing_rating`` (default 1, the lowest) without
asking the judge (``None``: the row fails instead), and in :class:`PairwiseJudge` it loses to
every system with an answer, two failures tie (``missing="excluded"``: such pairs are recorded
but count for nobody). A system whose *generation request* failed is skipped by the runner in
the per-system :class:`SingleJudge` (its row carries the upstream error).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from taiwa.harness.method import Retry, Row, Sample, StageBase, StageFailure, Upstream
from taiwa.judges.prompts import pairwise_messages, single_messages
from taiwa.judges.verdicts import (
    RATING_MAX,
    RATING_MIN,
    SwappedPair,
    Verdict,
    VerdictError,
    parse_rating,
    parse_verdict,
)
from taiwa.models.types import ChatRequest, ChatResponse, GenerationParams

S = TypeVar("S", bound=Sample)

Answer = Callable[[Upstream], "str | None"]
MissingPolicy = Literal["loses", "excluded"]

JUDGE_REPAIR = (
    "判定の形式が不正でした: {error}\n同じ指示に従い、指定の形式で評価をやり直してください。"
)
"""The repair message of an unreadable verdict (the runner's default asks for JSON)."""

JUDGE_MAX_TOKENS = 1024
"""Room for the short explanation MT-bench's prompts ask for before the verdict (Japanese
text costs more tokens per character than English; a cut-off explanation loses the verdict)."""


def judge_params(seed: int = 0, max_tokens: int = JUDGE_MAX_TOKENS) -> GenerationParams:
    """A judge's generation parameters: greedy (temperature 0, as MT-bench's judges)."""
    return GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=seed)


def answer_of(answer: Answer, upstream: Upstream) -> str | None:
    """A system's answer: ``None`` when an upstream row failed or the answer is blank."""
    if any("error" in row for row in upstream.values()):
        return None
    text = answer(upstream)
    return text if text is not None and text.strip() else None


def _digest(*texts: str) -> str:
    return hashlib.sha256("\x00".join(texts).encode("utf-8")).hexdigest()[:12]


class SingleJudge(StageBase, Generic[S]):
    """One request per sample and system; the row is ``{"rating", "judgment", "missing"}``.

    A reply without a rating ``[[N]]`` is re-asked with the reason (:class:`Retry`) up to
    ``attempts`` rounds, then the row fails ("invalid output after N attempt(s): ...")."""

    def __init__(
        self,
        question: Callable[[S], tuple[str, str]],
        reference: Callable[[S], str | None],
        answer: Answer,
        *,
        name: str = "single_judge",
        output: str | None = "single_judgments.jsonl",
        role: str = "judge",
        attempts: int = 3,
        params: GenerationParams | None = None,
        missing_rating: float | None = RATING_MIN,
    ) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {attempts}")
        if missing_rating is not None and not RATING_MIN <= missing_rating <= RATING_MAX:
            raise ValueError(f"missing_rating must be in 1-10 or None, got {missing_rating}")
        super().__init__(name=name, role=role, output=output, attempts=attempts)
        self.question = question
        self.reference = reference
        self.answer = answer
        self.params = params or judge_params()
        self.missing_rating = missing_rating

    def requests(self, sample: S, upstream: Upstream) -> Sequence[ChatRequest]:
        text = answer_of(self.answer, upstream)
        if text is None:
            return ()
        instruction, context = self.question(sample)
        messages = single_messages(instruction, context, self.reference(sample), text)
        rid = f"{sample.id}:single:{_digest(text)}"
        return [ChatRequest(id=rid, messages=messages, params=self.params)]

    def finish(self, sample: S, upstream: Upstream, replies: Sequence[ChatResponse]) -> Row | Retry:
        if not replies:  # no answer: nothing was asked
            if self.missing_rating is None:
                raise StageFailure("no answer to judge")
            return {"rating": self.missing_rating, "judgment": None, "missing": True}
        text = replies[0].text or ""
        try:
            rating = parse_rating(text)
        except VerdictError as exc:
            return Retry(str(exc), JUDGE_REPAIR)
        return {"rating": rating, "judgment": text, "missing": False}


@dataclass
class _Rounds:
    """The verdicts of one sample's requests gathered over its repair rounds."""

    attempt: int = 0
    verdicts: dict[int, Verdict] = field(default_factory=dict)
    judgments: dict[int, str] = field(default_factory=dict)
    reason: str = ""


class PairwiseJudge(StageBase, Generic[S]):
    """Every unordered pair of systems with answers, judged in both orders (A/B and B/A).

    The row is ``{"pairs": [...], "missing": [systems without an answer]}``; each pair is
    ``{"a", "b", "verdicts": [with a first, with b first], "judgments", "outcome", "winner",
    "flipped", "bias", "basis"}``: ``outcome`` is ``"a"``, ``"b"``, ``"tie"`` (a tie in both
    orders, or a verdict that flips with the order: :class:`SwappedPair`), ``"unparsed"`` or
    ``"excluded"``; ``basis`` is ``"judged"`` or ``"missing"`` (decided without the judge).

    An unparseable verdict is re-asked (:class:`Retry`) up to ``attempts`` rounds; the verdicts
    already read are kept (the runner re-asks every request of the sample, with the repair
    turn). What is still unparseable after the last round is recorded as ``"unparsed"`` for its
    pair alone, so one bad verdict costs that pair, not the sample's other pairs."""

    def __init__(
        self,
        question: Callable[[S], tuple[str, str]],
        reference: Callable[[S], str | None],
        answer: Answer,
        *,
        name: str = "pairwise_judge",
        output: str | None = "pairwise_judgments.jsonl",
        role: str = "judge",
        attempts: int = 3,
        params: GenerationParams | None = None,
        missing: MissingPolicy = "loses",
    ) -> None:
        if attempts < 1:
            raise ValueError(f"attempts must be >= 1, got {attempts}")
        if missing not in ("loses", "excluded"):
            raise ValueError(f"missing must be 'loses' or 'excluded', got {missing!r}")
        super().__init__(
            name=name, role=role, output=output, attempts=attempts, across_systems=True
        )
        self.question = question
        self.reference = reference
        self.answer = answer
        self.params = params or judge_params()
        self.missing = missing
        self._rounds: dict[str, _Rounds] = {}

    def _answers(self, upstream: Mapping[str, Upstream]) -> dict[str, str | None]:
        return {system: answer_of(self.answer, up) for system, up in upstream.items()}

    @staticmethod
    def _judged(answers: Mapping[str, str | None]) -> list[tuple[str, str]]:
        """The pairs the judge is asked about: both systems have an answer."""
        return [
            (a, b)
            for a, b in itertools.combinations(answers, 2)
            if answers[a] is not None and answers[b] is not None
        ]

    def requests(self, sample: S, upstream: Mapping[str, Upstream]) -> Sequence[ChatRequest]:
        self._rounds.pop(sample.id, None)
        answers = self._answers(upstream)
        judged = self._judged(answers)
        if not judged:
            return ()
        instruction, context = self.question(sample)
        reference = self.reference(sample)
        out: list[ChatRequest] = []
        for a, b in judged:
            for order, (x, y) in (("AB", (a, b)), ("BA", (b, a))):
                first, second = answers[x] or "", answers[y] or ""
                messages = pairwise_messages(instruction, context, reference, first, second)
                rid = f"{sample.id}:{a}|{b}:{order}"
                out.append(ChatRequest(id=rid, messages=messages, params=self.params))
        return out

    def finish(
        self, sample: S, upstream: Mapping[str, Upstream], replies: Sequence[ChatResponse]
    ) -> Row | Retry:
        rounds = self._rounds.setdefault(sample.id, _Rounds())
        rounds.attempt += 1
        for i, reply in enumerate(replies):
            if i in rounds.verdicts:
                continue
            rounds.judgments[i] = reply.text or ""
            try:
                rounds.verdicts[i] = parse_verdict(reply.text or "")
            except VerdictError as exc:
                rounds.reason = str(exc)
        if len(rounds.verdicts) < len(replies) and rounds.attempt < self.attempts:
            return Retry(rounds.reason, JUDGE_REPAIR)
        del self._rounds[sample.id]
        answers = self._answers(upstream)
        index = {pair: k for k, pair in enumerate(self._judged(answers))}
        pairs = [
            self._judged_pair(a, b, rounds, index[a, b])
            if (a, b) in index
            else self._missing_pair(a, b, answers)
            for a, b in itertools.combinations(answers, 2)
        ]
        return {"pairs": pairs, "missing": [s for s, text in answers.items() if text is None]}

    @staticmethod
    def _judged_pair(a: str, b: str, rounds: _Rounds, k: int) -> dict[str, Any]:
        first, second = rounds.verdicts.get(2 * k), rounds.verdicts.get(2 * k + 1)
        swapped = SwappedPair.resolve(first, second)
        winner = {"a": a, "b": b}.get(swapped.outcome)
        return {
            "a": a,
            "b": b,
            "verdicts": [first, second],
            "judgments": [rounds.judgments.get(2 * k), rounds.judgments.get(2 * k + 1)],
            "outcome": swapped.outcome,
            "winner": winner,
            "flipped": swapped.flipped,
            "bias": swapped.bias,
            "basis": "judged",
        }

    def _missing_pair(self, a: str, b: str, answers: Mapping[str, str | None]) -> dict[str, Any]:
        """A pair decided without the judge: at least one side has no answer."""
        if self.missing == "excluded":
            outcome, winner = "excluded", None
        elif answers[a] is not None:
            outcome, winner = "a", a
        elif answers[b] is not None:
            outcome, winner = "b", b
        else:
            outcome, winner = "tie", None
        return {
            "a": a,
            "b": b,
            "verdicts": [None, None],
            "judgments": [None, None],
            "outcome": outcome,
            "winner": winner,
            "flipped": None,
            "bias": None,
            "basis": "missing",
        }
