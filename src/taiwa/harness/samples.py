"""A run's dataset, validated once before the first model call and then read chunk by chunk.

:meth:`Method.load` may return a generator; :class:`SampleSource` reads it through once when
the run is prepared (every record validated, the samples counted), keeping the first chunk.
A larger dataset is read again from its second chunk on, chunk by chunk, while the run goes
on, so its memory does not grow with the dataset (issue 10), and the first requests never
wait for a second read (issue 29: before, a dataset of two chunks or more was read twice
before the first request).
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
    """The samples of ``load()`` (the first ``limit``), re-iterable. The first chunk is kept
    from the validating pass, so the run starts on it without reading the file again; a
    larger dataset is read again from its second chunk on."""

    def __init__(
        self, load: Callable[[], Iterable[Any]], limit: int | None = None, chunk: int = CHUNK
    ) -> None:
        self._load = load
        self._limit = limit
        self.chunk = chunk
        head: list[Any] = []
        n = 0
        for sample in self._read():
            n += 1
            if n <= chunk:
                head.append(sample)
        self._n = n
        self._head = head

    def _read(self) -> Iterator[Any]:
        return itertools.islice(iter(self._load()), self._limit)

    @property
    def _all_kept(self) -> bool:
        return self._n <= self.chunk

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Any]:
        if self._all_kept:
            return iter(self._head)
        return itertools.chain(self._head, itertools.islice(self._read(), self.chunk, None))

    def chunks(self) -> Iterator[list[Any]]:
        """The samples in lists of at most :attr:`chunk`."""
        yield self._head
        if self._all_kept:
            return
        it = itertools.islice(self._read(), self.chunk, None)
        while batch := list(itertools.islice(it, self.chunk)):
            yield batch
