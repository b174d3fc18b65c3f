"""The models of one run: every SPEC loaded once, every call of every role through the same
response cache, concurrency limit and retry policy, and counted per role and SPEC."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from taiwa.harness.cost import add_cost, price_for, unmatched
from taiwa.models.base import TALLY, ChatModel, OnResponse, Tally
from taiwa.models.cache import CachingModel, ResponseCache
from taiwa.models.spec import ModelOptions, load_model
from taiwa.models.types import ChatRequest, ChatResponse


@dataclass
class RoleStats:
    """What one role did with one model (docs/architecture.md, "calls" in summary.json).

    ``requests`` the role's stages made (repair rounds included), ``cache_hits`` of them
    answered from the cache, ``calls`` the rest, handed to the backend (so ``calls +
    cache_hits == requests``); ``retries`` and ``probes``: HTTP requests the backend made on
    its own beyond those (:class:`~taiwa.models.base.Tally`); ``failures`` requests that got
    no reply; ``repaired`` outputs accepted after a re-ask, ``invalid`` still invalid after the
    last attempt; ``repairs``: kind → count of every repair made to accept an output
    (``re_asked``: repair rounds sent; other kinds come from the stage's rows);
    ``seconds``: the role's wall time, while at least one of its requests was in flight
    (overlapping stages counted once, never more than the run's).

    Tokens (backends that count them, else None): ``tokens_in`` / ``tokens_out`` of the
    replies the backend made, ``cached_tokens_in`` / ``cached_tokens_out`` of the replies
    served from the cache (free); ``usage_unknown`` / ``cached_usage_unknown``: replies whose
    usage nobody reported (counted apart, never as zero). Requests that failed are not
    counted (APIs do not bill them)."""

    role: str
    spec: str
    requests: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    probes: int = 0
    failures: int = 0
    repaired: int = 0
    invalid: int = 0
    seconds: float = 0.0
    repairs: dict[str, int] = field(default_factory=dict)
    tokens_in: int | None = None
    tokens_out: int | None = None
    cached_tokens_in: int | None = None
    cached_tokens_out: int | None = None
    usage_unknown: int = 0
    cached_usage_unknown: int = 0

    def add_repairs(self, kinds: dict[str, int]) -> None:
        for kind, count in kinds.items():
            self.repairs[kind] = self.repairs.get(kind, 0) + int(count)

    def count_tokens(self, replies: Sequence[ChatResponse]) -> None:
        """Add the usage of each reply (cached ones apart; failures not at all)."""
        for r in replies:
            if not r.ok:
                continue
            if r.usage is None:
                if r.cached:
                    self.cached_usage_unknown += 1
                else:
                    self.usage_unknown += 1
            elif r.cached:
                self.cached_tokens_in = (self.cached_tokens_in or 0) + r.usage.prompt_tokens
                self.cached_tokens_out = (self.cached_tokens_out or 0) + r.usage.completion_tokens
            else:
                self.tokens_in = (self.tokens_in or 0) + r.usage.prompt_tokens
                self.tokens_out = (self.tokens_out or 0) + r.usage.completion_tokens

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["seconds"] = round(self.seconds, 3)
        d["repairs"] = dict(sorted(self.repairs.items()))
        return d


class RoleModel:
    """A model as one role uses it: cached (when the model allows) and counted."""

    def __init__(self, role: str, spec: str, inner: ChatModel, cache: ResponseCache | None):
        self.inner = inner
        self.model: ChatModel = (
            CachingModel(inner, cache) if cache is not None and inner.cacheable else inner
        )
        self.stats = RoleStats(role, spec)
        self.counts_tokens = bool(getattr(inner, "counts_tokens", False))
        if self.counts_tokens:
            self.stats.tokens_in = self.stats.tokens_out = 0
            self.stats.cached_tokens_in = self.stats.cached_tokens_out = 0
        self._active = 0
        self._since = 0.0

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        """The replies, counted from the replies themselves (not from the cache's running
        totals, which stages calling this role at once would count twice)."""
        if self._active == 0:
            self._since = time.perf_counter()
        self._active += 1
        tally = Tally()
        token = TALLY.set(tally)
        try:
            out = await self.model.generate(requests, on_response=on_response)
        finally:
            TALLY.reset(token)
            self._active -= 1
            if self._active == 0:
                self.stats.seconds += time.perf_counter() - self._since
            self.stats.retries += tally.retries
            self.stats.probes += tally.probes
        hits = sum(1 for r in out if r.cached)
        self.stats.requests += len(requests)
        self.stats.cache_hits += hits
        self.stats.calls += len(requests) - hits
        self.stats.failures += sum(1 for r in out if not r.ok)
        if self.counts_tokens:
            self.stats.count_tokens(out)
        return out


class ModelPool:
    """Loads each SPEC once (shared by every role using it) and hands out :class:`RoleModel`s.

    ``factories`` builds SPECs the pool cannot load by itself (``human``: the dataset's
    reference replies)."""

    def __init__(
        self,
        options: ModelOptions,
        cache: ResponseCache | None,
        factories: dict[str, Callable[[], ChatModel]] | None = None,
        preloaded: dict[str, ChatModel] | None = None,
    ) -> None:
        self.options = options
        self.cache = cache
        self.factories = factories or {}
        self.loaded: dict[str, ChatModel] = dict(preloaded or {})
        self.roles: dict[tuple[str, str], RoleModel] = {}

    def load(self, spec: str) -> ChatModel:
        if spec not in self.loaded:
            factory = self.factories.get(spec)
            self.loaded[spec] = factory() if factory else load_model(spec, self.options)
        return self.loaded[spec]

    def get(self, role: str, spec: str) -> RoleModel:
        key = (role, spec)
        if key not in self.roles:
            self.roles[key] = RoleModel(role, spec, self.load(spec), self.cache)
        return self.roles[key]

    def stats(
        self, prices: Mapping[str, tuple[float, float]] | None = None
    ) -> list[dict[str, Any]]:
        """The ``calls`` entries of summary.json, priced where ``prices`` names the model."""
        out = []
        for rm in self.roles.values():
            entry = rm.stats.as_dict()
            add_cost(entry, price_for(rm.stats.spec, rm.inner.model_id, prices or {}))
            out.append(entry)
        return out

    def notes(self) -> list[str]:
        """What the loaded models noticed during the run (e.g. timeouts from queueing at a
        server with fewer slots than --concurrency), for the summary's notes."""
        out: list[str] = []
        for model in self.loaded.values():
            notes = getattr(model, "run_notes", None)
            out += notes() if callable(notes) else []
        return out

    def unpriced(self, prices: Mapping[str, tuple[float, float]]) -> list[str]:
        """Prices given that name none of the run's models."""
        return unmatched(prices, [(rm.stats.spec, rm.inner.model_id) for rm in self.roles.values()])
