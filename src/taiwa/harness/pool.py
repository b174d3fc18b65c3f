"""The models of one run: every SPEC loaded once, every call of every role through the same
response cache, concurrency limit and retry policy, and counted per role and SPEC."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from taiwa.models.base import ChatModel, OnResponse
from taiwa.models.cache import CachingModel, ResponseCache
from taiwa.models.spec import ModelOptions, load_model
from taiwa.models.types import ChatRequest, ChatResponse


@dataclass
class RoleStats:
    """What one role did with one model: requests sent, answered from the cache, failed,
    outputs repaired by re-asking, outputs still invalid after the last attempt, seconds;
    ``repairs``: kind → count of every repair made to accept an output (``re_asked``: repair
    rounds sent; other kinds come from the stage's rows, e.g. ``renormalised``)."""

    role: str
    spec: str
    requests: int = 0
    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    repaired: int = 0
    invalid: int = 0
    seconds: float = 0.0
    repairs: dict[str, int] = field(default_factory=dict)

    def add_repairs(self, kinds: dict[str, int]) -> None:
        for kind, count in kinds.items():
            self.repairs[kind] = self.repairs.get(kind, 0) + int(count)

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

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: OnResponse | None = None
    ) -> list[ChatResponse]:
        start = time.perf_counter()
        model = self.model
        before = (model.calls, model.hits) if isinstance(model, CachingModel) else (0, 0)
        out = await model.generate(requests, on_response=on_response)
        self.stats.seconds += time.perf_counter() - start
        self.stats.requests += len(requests)
        if isinstance(model, CachingModel):
            self.stats.calls += model.calls - before[0]
            self.stats.cache_hits += model.hits - before[1]
        else:
            self.stats.calls += len(requests)
        self.stats.failures += sum(1 for r in out if not r.ok)
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

    def stats(self) -> list[dict[str, object]]:
        return [rm.stats.as_dict() for rm in self.roles.values()]
