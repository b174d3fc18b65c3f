"""The ids a streamed file has used so far, in about 24 bytes an id (issue 40 §4: memory flat).

:func:`~taiwa.core.io.records.unique_ids` refuses a repeated id naming both lines. Keeping
every id read as a Python string in a dict cost about 130 bytes an id, and it was what made a
run's memory grow with its dataset: 100,000 prompts held 12 MB of ids, once while the dataset
was validated and again while it was read chunk by chunk (``benchmarks/run_memory.py``).

:class:`SeenIds` keeps the most recent :data:`RECENT` ids exactly (a dict of id → line, so a
repeat within them is found on its own line), and older ids as 128-bit digests
(:func:`_digests`) with their lines, in sorted numpy arrays merged by size (a log-structured
index: a lookup is a binary search per level, a merge copies each id a logarithmic number of
times). The ids of each full batch are looked up in the older levels together when the batch is
sealed, so a repeat of an id more than :data:`RECENT` ids back is reported at most
:data:`RECENT` records after its line, with both lines and the id, before the stream ends. Two
different ids share a digest with a probability of about n²/2¹²⁹ (1e-21 for a billion ids).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

RECENT = 16_384
"""Ids kept exactly (as strings) before they are sealed into the digest levels."""


class _Level:
    """Digests (``hi``, ``lo``: the two 64-bit halves) sorted by their high half, and the line
    of each."""

    def __init__(self, hi: np.ndarray, lo: np.ndarray, line: np.ndarray) -> None:
        self.hi, self.lo, self.line = hi, lo, line

    def __len__(self) -> int:
        return len(self.hi)

    def merged(self, other: _Level) -> _Level:
        """This level and ``other`` as one (each element copied once, no sort: the least
        memory a merge can take beside the two levels)."""
        import numpy as np

        at = np.searchsorted(self.hi, other.hi)
        return _Level(
            np.insert(self.hi, at, other.hi),
            np.insert(self.lo, at, other.lo),
            np.insert(self.line, at, other.line),
        )

    def lines_of(self, hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
        """For each digest (``hi`` sorted, ``lo``): the line it was first used on, or -1."""
        import numpy as np

        start = np.searchsorted(self.hi, hi, "left")
        found = np.full(len(hi), -1, dtype=np.int64)
        inside = start < len(self.hi)
        for k in np.flatnonzero(inside)[self.hi[start[inside]] == hi[inside]]:
            end = int(np.searchsorted(self.hi, hi[k], "right"))  # rare unless repeated
            match = np.flatnonzero(self.lo[start[k] : end] == lo[k])
            if match.size:
                found[k] = self.line[start[k] + match[0]]
        return found


def _digests(ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """A 128-bit digest of each id as two int64 arrays: Python's string hash (SipHash, keyed
    per process; a string caches its own, so the dict of recent ids already paid for it) of the
    id and of the id behind a separator. Never stored: the key may differ between processes."""
    import numpy as np

    n = len(ids)
    hi = np.fromiter((hash(i) for i in ids), dtype=np.int64, count=n)
    lo = np.fromiter((hash("\x1f" + i) for i in ids), dtype=np.int64, count=n)
    return hi, lo


class SeenIds:
    """Ids read so far with the line of each (see the module docstring). ``setdefault`` is
    what :func:`~taiwa.core.io.records.check_id` calls; a repeat found among the older ids
    lands in :attr:`repeated` as ``(id, first line, line)``, the earliest such line."""

    def __init__(self) -> None:
        self._recent: dict[str, int] = {}
        self._levels: list[_Level] = []
        self.repeated: tuple[str, int, int] | None = None

    def __len__(self) -> int:
        return len(self._recent) + sum(len(level) for level in self._levels)

    def setdefault(self, rid: str, line: int) -> int:
        """The line ``rid`` was first used on among the recent ids, else ``line`` (then it is
        added; a full batch of recent ids is sealed)."""
        first = self._recent.setdefault(rid, line)
        if first == line and len(self._recent) >= RECENT:
            self.seal()
        return first

    def finish(self) -> None:
        """At the end of the stream: the last recent ids looked up among the older ones (none
        to look up in, and numpy not imported, for a stream of at most :data:`RECENT` ids)."""
        if self._levels:
            self.seal()

    def seal(self) -> None:
        """Look the recent ids up among the older ones (a repeat goes to :attr:`repeated`),
        then move them into the digest levels."""
        import numpy as np

        if not self._recent:
            return
        ids = list(self._recent)
        lines = np.fromiter(self._recent.values(), dtype=np.int64, count=len(ids))
        hi, lo = _digests(ids)
        order = np.argsort(hi)  # sorted queries: the binary searches walk memory in order
        hi, lo, lines = hi[order], lo[order], lines[order]
        for level in self._levels:
            first = level.lines_of(hi, lo)
            for k in np.flatnonzero(first >= 0):
                if self.repeated is None or lines[k] < self.repeated[2]:
                    self.repeated = (ids[order[k]], int(first[k]), int(lines[k]))
        self._recent = {}
        self._levels.append(_Level(hi, lo, lines))
        while len(self._levels) >= 2 and len(self._levels[-2]) <= 2 * len(self._levels[-1]):
            newer = self._levels.pop()
            self._levels.append(self._levels.pop().merged(newer))
