"""Stages every method can reuse: the systems' generation step, a pure local step and the
record of each item for the item view."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, TypeVar

from taiwa.harness.evidence import ITEM_STAGE
from taiwa.harness.method import SYSTEM, Held, Row, Sample, StageBase, Upstream
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, GenerationParams

S = TypeVar("S", bound=Sample)


class GenerateStage(StageBase, Generic[S]):
    """The systems answer: one chat request per sample (role ``system``, ``responses.jsonl``).

    ``messages`` builds the chat of a sample (the method's prompt); the row is ``{"text"}``
    plus what the model recorded beside the reply (``ChatResponse.meta``, e.g. a cascade's
    ``transcript`` and ``asr_seconds``).
    """

    def __init__(
        self, messages: Callable[[S], Sequence[ChatMessage]], params: GenerationParams
    ) -> None:
        super().__init__(name="generate", role=SYSTEM, output="responses.jsonl")
        self.messages = messages
        self.params = params

    def requests(self, sample: S, upstream: Upstream) -> Sequence[ChatRequest]:
        return [ChatRequest(id=sample.id, messages=list(self.messages(sample)), params=self.params)]

    def finish(self, sample: S, upstream: Upstream, replies: Sequence[ChatResponse]) -> Row:
        return {**(replies[0].meta or {}), "text": replies[0].text}


class LocalStage(StageBase, Generic[S]):
    """A stage computed without a model: ``compute(sample, upstream) -> row``.

    ``compute_many(samples, upstreams)``, when given, is used instead for the samples of a
    chunk a stage computes on its own (not pipelined behind a model): it yields the rows of
    ``compute`` in sample order, one as soon as it is made, and may work on several samples
    at once (e.g. tag the next batch in another process while scoring this one). ``held``:
    what it keeps for the whole run (:class:`~taiwa.harness.method.Held`, e.g. that process)."""

    def __init__(
        self,
        name: str,
        compute: Callable[[S, Upstream], Row],
        *,
        output: str | None = None,
        role: str | None = None,
        compute_many: Callable[[Sequence[S], Sequence[Upstream]], Iterator[Row]] | None = None,
        held: Sequence[Held] = (),
    ) -> None:
        super().__init__(name=name, role=role, output=output, held=tuple(held))
        self.compute = compute
        self.compute_many = compute_many

    def requests(self, sample: S, upstream: Any) -> Sequence[ChatRequest]:
        return ()

    def finish(self, sample: S, upstream: Any, replies: Sequence[ChatResponse]) -> Row:
        return self.compute(sample, upstream)


class ItemStage(StageBase, Generic[S]):
    """Records each item once, for the item view (issue 43; ``items.jsonl``, stage ``item``):
    ``record(sample)``, the input, context and gold as the method shows them, and all that its
    prompts are built from (the item view rebuilds the prompt from it,
    :attr:`~taiwa.harness.evidence.ItemEvidence.prompt`). Across systems and local: one row per
    item, whatever the systems; a dictionary per item, so it costs the run next to nothing.
    Put last among a method's stages, so that it never holds back a chunk's first requests."""

    def __init__(self, record: Callable[[S], Row]) -> None:
        super().__init__(name=ITEM_STAGE, output="items.jsonl", across_systems=True)
        self.record = record

    def requests(self, sample: S, upstream: Any) -> Sequence[ChatRequest]:
        return ()

    def finish(self, sample: S, upstream: Any, replies: Sequence[ChatResponse]) -> Row:
        return self.record(sample)
