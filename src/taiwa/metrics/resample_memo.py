"""The bootstrap resampled means of the last few item-mean CIs, kept by content (issue 27).

:func:`taiwa.metrics.stats.bootstrap_ci` remembers, for each array of values it bootstraps
the mean of, the ``n_resamples`` resampled means it drew (16 kB at 2,000 resamples), keyed by
the values' bytes, the number of resamples and the seed. Paired comparisons of two systems
over the same items then reuse them: the mean of ``a − b`` in a resample is the mean of ``a``
minus the mean of ``b`` in that resample (the same indices: same ``n``, same seed), so the
comparison's bootstrap costs a subtraction instead of a second pass over the items
(:func:`taiwa.metrics.comparisons.build_comparisons`). A miss costs nothing but the lookup."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

KEEP = 256
"""Arrays remembered (least recently used dropped first): 4 MB at 2,000 resamples."""

_memo: OrderedDict[tuple[int, int, int, bytes], np.ndarray] = OrderedDict()
_lock = threading.Lock()


def _key(values: np.ndarray, n_resamples: int, seed: int) -> tuple[int, int, int, bytes]:
    data = np.ascontiguousarray(values, dtype=float)
    return len(data), n_resamples, seed, hashlib.blake2b(data.tobytes(), digest_size=16).digest()


def remember(values: np.ndarray, n_resamples: int, seed: int, means: np.ndarray) -> None:
    """Keep the resampled ``means`` of ``values`` (1-d) for ``n_resamples`` and ``seed``."""
    key = _key(values, n_resamples, seed)
    kept = np.array(means, dtype=float)
    kept.flags.writeable = False
    with _lock:
        _memo[key] = kept
        _memo.move_to_end(key)
        while len(_memo) > KEEP:
            _memo.popitem(last=False)


def recall(values: np.ndarray, n_resamples: int, seed: int) -> np.ndarray | None:
    """The resampled means remembered for exactly these ``values``, or ``None``."""
    key = _key(values, n_resamples, seed)
    with _lock:
        got = _memo.get(key)
        if got is not None:
            _memo.move_to_end(key)
        return got
