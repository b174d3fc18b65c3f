"""A run's dataset, validated once before the first model call and then read chunk by chunk.

:meth:`Method.load` may return a generator; :class:`SampleSource` reads it through once when
the run is prepared (every record validated, the samples counted), keeping the samples only
while they fit in one chunk. A larger dataset is read again, chunk by chunk, while the run
goes on, so its memory does not grow with the dataset (issue 10).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

CHUNK = 1024
"""Samples per chunk (at least): the runner runs every stage on one chunk, writes its rows and
moves on. A run of up to this many samples holds them all at once anyway, so a larger dataset
costs no more memory than it."""

ROUNDS = 64
"""Chunks of stages that call a model hold at least this many rounds of ``concurrency``
requests, so the wait for a chunk's last replies stays a small share of its time."""


def chunk_size(concurrency: int | None) -> int:
    """Samples per chunk; ``concurrency`` is the request limit when the stages call a model."""
    return max(CHUNK, ROUNDS * concurrency) if concurrency else CHUNK


class SampleSource:
    """The samples of ``load()`` (the first ``limit``), re-iterable."""

    def __init__(
        self, load: Callable[[], Iterable[Any]], limit: int | None = None, chunk: int = CHUNK
    ) -> None:
        self._load = load
        self._limit = limit
        self.chunk = chunk
        kept: list[Any] | None = []
        n = 0
        for sample in self._read():
            n += 1
            if kept is not None:
                kept.append(sample)
                if len(kept) > chunk:
                    kept = None
        self._n = n
        self._kept = kept

    def _read(self) -> Iterator[Any]:
        return itertools.islice(iter(self._load()), self._limit)

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Any]:
        return iter(self._kept) if self._kept is not None else self._read()

    def chunks(self) -> Iterator[list[Any]]:
        """The samples in lists of at most :attr:`chunk`."""
        if self._kept is not None:
            yield self._kept
            return
        it = self._read()
        while batch := list(itertools.islice(it, self.chunk)):
            yield batch
