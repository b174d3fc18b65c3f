"""What one sample's requests cost in a stage that calls a model, over all its attempts (repair
rounds included): the tokens in and out, and the requests the backend repeated. The runner
writes it into the sample's row (``tokens_in``, ``tokens_out``, ``retries``), beside
``attempts`` and ``cached``, so the item view shows each model call (issue 43) and a run
replayed from the cache shows the tokens the replies cost when they were made."""

from __future__ import annotations

from collections.abc import Sequence

from taiwa.harness.method import Row
from taiwa.models.types import ChatResponse


class Spent:
    """What a sample's requests cost over its attempts: tokens in and out (``None`` once a
    reply did not say) and the requests the backend repeated (:attr:`ChatResponse.retries`)."""

    __slots__ = ("retries", "tokens_in", "tokens_out")

    def __init__(self) -> None:
        self.tokens_in: int | None = 0
        self.tokens_out: int | None = 0
        self.retries = 0

    def add(self, replies: Sequence[ChatResponse]) -> None:
        for r in replies:
            self.retries += r.retries
            if r.usage is None or self.tokens_in is None or self.tokens_out is None:
                self.tokens_in = self.tokens_out = None
            else:
                self.tokens_in += r.usage.prompt_tokens
                self.tokens_out += r.usage.completion_tokens

    def into(self, row: Row) -> None:
        """The row's call fields: ``tokens_in`` and ``tokens_out`` when every reply counted
        them, ``retries`` when the backend repeated a request."""
        if self.tokens_in is not None:
            row.setdefault("tokens_in", self.tokens_in)
            row.setdefault("tokens_out", self.tokens_out)
        if self.retries:
            row.setdefault("retries", self.retries)
