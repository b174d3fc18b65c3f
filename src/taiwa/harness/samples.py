"""A run's dataset, validated once before the first model call and then read chunk by chunk.

:meth:`Method.load` may return a generator; :class:`SampleSource` reads it through once when
the run is prepared (every record validated, the samples counted), keeping the first chunk.
A larger dataset is read again from its second chunk on, chunk by chunk, while the run goes
on, so its memory does not grow with the dataset (issue 10), and the first requests never
wait for a second read (issue 29: before, a dataset of two chunks or more was read twice
before the first request).

A ``load`` that returns a list holds the samples itself (intent keeps up to 10,000 items,
which its whole-file pass reads anyway): the list is kept and never read again, so the run's
later chunks and its aggregate do not validate the file a second and third time (issue 29:
on 10,000 intent items each read cost 0.15-0.4 s, one of them after the last reply).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

CHUNK = 1024
"""Samples per chunk (at least): the runner runs every stage on one chunk, writes its rows and
moves on. A run of up to this many samples holds them all at once anyway, so a larger dataset
costs no more memory than it."""

ROUNDS = 16
"""Chunks of stages that call a model hold at least this many rounds of ``concurrency``
requests. Chunks overlap at their seams (:mod:`taiwa.harness.chunk_overlap`: no slot waits
for a chunk's last replies), so a chunk need not be long to hide that wait, and two of them
at once cost memory: 64 rounds (4,096 samples at concurrency 64) took 100,000 prompts to
1.25x the peak RSS of 1,000; 16 rounds, 1.1x, with 10,000 intent items as fast."""


PIPELINE_ROUNDS = 4
"""Rounds of ``concurrency`` requests per chunk when two or more stages call models (a system,
then a judge or an LLM annotator): a later stage starts on a chunk once the earlier one is
done with it, so short chunks keep both models busy at once, the next chunk's first stage
beside this chunk's second (:mod:`taiwa.harness.chunk_overlap`). On 1,000 chitchat tasks with
a judge at concurrency 64 the whole command went from 6.6 s to 4.7 s (one chunk: the judge
waited for the last reply of the system, the system for the judge)."""


def chunk_size(concurrency: int | None, calling_stages: int = 1) -> int:
    """Samples per chunk; ``concurrency`` is the request limit when the stages call a model,
    ``calling_stages`` how many of them do."""
    if not concurrency:
        return CHUNK
    if calling_stages >= 2:
        return PIPELINE_ROUNDS * concurrency
    return max(CHUNK, ROUNDS * concurrency)


class SampleSource:
    """The samples of ``load()`` (the first ``limit``), re-iterable. The first chunk is kept
    from the validating pass, so the run starts on it without reading the file again; a
    larger dataset is read again from its second chunk on, unless ``load()`` returned a list
    (kept whole)."""

    def __init__(
        self, load: Callable[[], Iterable[Any]], limit: int | None = None, chunk: int = CHUNK
    ) -> None:
        self._load = load
        self._limit = limit
        self.chunk = chunk
        loaded = load()
        if isinstance(loaded, list):  # held by the method: kept whole, never read again
            self._head = loaded[:limit]
            self._n = len(self._head)
            self._whole = True
            return
        head: list[Any] = []
        n = 0
        for sample in itertools.islice(iter(loaded), limit):
            n += 1
            if n <= chunk:
                head.append(sample)
        self._n = n
        self._head = head
        self._whole = n <= chunk

    def _read(self) -> Iterator[Any]:
        """The samples read again: their ids were checked by the first pass, so the loader's
        :func:`~taiwa.core.io.unique_ids` does not gather them again (issue 40 §4: 100,000 ids
        held 12 MB while the run went on)."""
        from taiwa.core.io import ids_checked

        with ids_checked():
            return itertools.islice(iter(self._load()), self._limit)

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[Any]:
        if self._whole:
            return iter(self._head)
        return itertools.chain(self._head, itertools.islice(self._read(), self.chunk, None))

    def chunks(self) -> Iterator[list[Any]]:
        """The samples in lists of at most :attr:`chunk`."""
        if self._whole:
            for start in range(0, max(self._n, 1), self.chunk):
                yield self._head[start : start + self.chunk]
            return
        yield self._head
        it = itertools.islice(self._read(), self.chunk, None)
        while batch := list(itertools.islice(it, self.chunk)):
            yield batch
