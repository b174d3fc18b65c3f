"""MeCab in a second process: the tagging half of content-word analysis
(:func:`taiwa.text.tokenizer.found_lines`) off the calling process, so that a long batch of
texts is tagged on one core while the caller turns the previous batch's output into words and
scores them on another.

One worker process, forked on first use (so it needs no import of the caller's main module,
which ``spawn`` would run again, and starts with the dictionary already loaded) and kept for the
life of the process. It is forked before the caller tags anything, from a caller that holds no
MeCab lock. Where ``fork`` does not exist (:func:`available` is false) the caller tags itself.
The output lines are the very strings MeCab writes in the caller (same dictionary, same format),
so the words made of them are the same.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context

from taiwa.text.tokenizer import found_lines

_POOL: ProcessPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def available() -> bool:
    """Whether a worker would help here: it can be forked, and a core is free for it (the
    load average below the number of cores; on a saturated machine a second process only
    adds the cost of passing the texts and lines between the two)."""
    cores = os.cpu_count() or 1
    return "fork" in get_all_start_methods() and cores > 1 and os.getloadavg()[0] < cores


def _pool() -> ProcessPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            found_lines(["起動"], frozenset({"名詞"}))  # the dictionary loaded, then inherited
            _POOL = ProcessPoolExecutor(1, mp_context=get_context("fork"))
        return _POOL


def submit_found_lines(
    texts: Sequence[str], pos1: frozenset[str], normalize: bool = True
) -> Future[list[list[str]]]:
    """:func:`~taiwa.text.tokenizer.found_lines` of ``texts``, computed in the worker
    process."""
    return _pool().submit(found_lines, list(texts), pos1, normalize)
