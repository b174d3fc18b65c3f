"""The :class:`Benchmark` protocol: dataset → requests → (responses) → per-sample scores → summary.

Benchmarks know nothing about HTTP or caching; the runner feeds their requests to a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from taiwa.models.types import ChatRequest, ChatResponse, GenerationParams


@dataclass
class Scored:
    """Per-sample score rows (one per sample, errors included) and the aggregate summary."""

    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    extra_files: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


class Benchmark(Protocol):
    """One evaluation method. ``prompts`` are hashed into ``config.json``."""

    name: str
    prompts: dict[str, str]

    def default_data(self) -> Path: ...

    def load(self, path: Path) -> Sequence[Any]: ...

    def requests(self, samples: Sequence[Any], params: GenerationParams) -> list[ChatRequest]: ...

    def score(
        self,
        samples: Sequence[Any],
        responses: Sequence[ChatResponse],
        seed: int,
        annotations: Sequence[Any] | None = None,
    ) -> Scored: ...
