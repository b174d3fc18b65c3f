"""Sentence and window counting as sparse matrix products, for ``text`` and ``tokens`` input
(seed 003 §2.2).

Python moves bytes and NumPy/SciPy count; no Python loop runs per line, per unit or per pair.
Each block of lines (:func:`~taiwa.resources.cooccurrence.duckdb_text.line_blocks`) is split
into words by Arrow and dictionary-encoded; the block's distinct words get integer ids (a
vocabulary in first-seen order, grown block by block; stop words and empty strings get none).
Blocks are counted on one thread per core (:func:`count_incidence`).
The units of the block (sentences, or windows of ``k`` consecutive content words: a line with
at most ``k`` is one unit, with the semantics of
:class:`~taiwa.resources.cooccurrence.counts.LineCounter`) become the rows of a binary
unit × word incidence matrix ``X`` (a word twice in a unit counts once). Then

- ``h(v)`` = units containing ``v`` = the column sums of ``X``;
- ``g(v, w)`` = units containing both = ``(Xᵀ X)[v, w]``, one sparse product per block in
  SciPy's C++ (its upper triangle kept);

the blocks (:data:`~taiwa.resources.cooccurrence.duckdb_text.BLOCK_BYTES`, small enough
that a block's matrices stay in the CPU caches while multiplied) have their ``g`` matrices
added up in memory while they fit a quarter of DuckDB's ``memory_limit``, and beyond that
handed to DuckDB (``pair_parts``), whose ``GROUP BY`` adds them up out of core. Word ids are
finally renumbered in code-point order, so that ``w1 < w2`` and every ``ORDER BY`` of the
shared scoring SQL hold on the integer ids alone; the words are joined back only for the
written table (``word_names``).

Leaves ``word_totals(w, h)``, ``pair_totals(w1, w2, g)`` (pairs with ``g`` below
``min_pair_count`` are left out: they can never be kept; ``w`` columns are INTEGER ids) and
``word_names(id, w)`` for :mod:`taiwa.resources.cooccurrence.duckdb_engine`.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from taiwa.resources.cooccurrence.config import MinerConfig

_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_UNITS |= {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}

DIRECT_PRODUCT_ENTRIES = 1 << 24
"""Largest bound on a block's ``Xᵀ X`` entries for which :func:`gram` sizes the output itself
(two int32 arrays of this length: 128 MB of address space, touched only where written)."""

ENTRY_BYTES = 16
"""Memory of one pair held in the in-memory sum (CSR index and count, and the product's
temporaries)."""


def memory_bytes(limit: str) -> int:
    """A DuckDB ``memory_limit`` (``'512MB'``, ``'2GiB'``) in bytes."""
    found = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i?B|B)", limit.strip())
    if found is None:
        raise ValueError(f"not a size: {limit!r}")
    return int(float(found.group(1)) * _UNITS[found.group(2)])


class Vocabulary:
    """Integer ids of words in first-seen order (blocks encoded by several threads: the order
    the threads reach them in); the words of ``drop`` (stop words) and the empty string get
    ``-1``."""

    def __init__(self, drop: frozenset[str]) -> None:
        import threading

        self.drop = drop | {""}
        self.ids: dict[str, int] = {}
        self.words: list[str] = []
        self.lock = threading.Lock()

    def encode(self, tokens: Any) -> Any:
        """The id of each of ``tokens`` (an Arrow string array), as an int64 array."""
        import numpy as np
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(tokens)
        distinct = encoded.dictionary.to_pylist()
        ids, words, drop = self.ids, self.words, self.drop
        mapping = np.empty(len(distinct), dtype=np.int64)
        with self.lock:
            for i, word in enumerate(distinct):  # once per distinct word of the block
                got = ids.get(word)
                if got is None:
                    if word in drop:
                        got = -1
                    else:
                        got = ids[word] = len(words)
                        words.append(word)
                mapping[i] = got
        return mapping[encoded.indices.to_numpy(zero_copy_only=False)]

    def code_point_ranks(self) -> Any:
        """``rank[id]``: each word's position in code-point order."""
        import numpy as np

        order = sorted(range(len(self.words)), key=self.words.__getitem__)
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        return rank


def unit_rows(ids: Any, offsets: Any, window: int | None) -> tuple[Any, Any]:
    """``(indices, indptr)`` of the units of a block: ``ids`` are the word ids of its lines in
    order (``-1`` for a dropped word), ``offsets`` where each line starts in ``ids``."""
    import numpy as np

    keep = ids >= 0
    kept = np.concatenate(([0], np.cumsum(keep, dtype=np.int32)))  # a block's nnz < 2³¹
    starts = kept[offsets]  # line boundaries among the kept words
    words = ids[keep]
    if window is None:
        return words, starts
    lengths = np.diff(starts)
    per_line = np.where(lengths > window, lengths - window + 1, 1)  # units of each line
    first = np.repeat(starts[:-1], per_line)
    step = np.arange(len(first)) - np.repeat(np.cumsum(per_line) - per_line, per_line)
    unit_start = first + step
    unit_len = np.repeat(np.minimum(lengths, window), per_line)
    indptr = np.concatenate(([0], np.cumsum(unit_len, dtype=np.int64)))
    inner = np.arange(indptr[-1]) - np.repeat(indptr[:-1], unit_len)
    return words[np.repeat(unit_start, unit_len) + inner], indptr


def block_counts(indices: Any, indptr: Any, n_words: int) -> tuple[Any, Any]:
    """``(h, g)`` of one block's units: ``h`` per word id, ``g`` the upper triangle of
    ``Xᵀ X`` as a CSR matrix (``n_words`` square)."""
    import numpy as np
    import scipy.sparse as sp

    n_units = len(indptr) - 1
    x = sp.csr_matrix(
        (np.ones(len(indices), np.int32), indices.astype(np.int32), indptr.copy()),
        shape=(n_units, n_words),
    )
    x.sum_duplicates()  # a word twice in a unit counts once
    x.data.fill(1)
    h = np.bincount(x.indices, minlength=n_words)
    return h, upper_triangle(gram(x))


def gram(x: Any) -> Any:
    """``Xᵀ X`` of a binary int32 CSR matrix ``X`` (int32 counts: a block has < 2³¹ units).

    SciPy's product makes a first pass over every product only to size its output; here the
    output is sized by a bound, ``Xᵀ`` times the unit lengths (row ``v`` has at most ``Σ |u|``
    entries over the units ``u`` holding ``v``, and at most one per word), and SciPy's kernel
    is called directly: a third less time. A bound above
    :data:`DIRECT_PRODUCT_ENTRIES` (allocated, though only the entries written are touched)
    goes through the public product instead."""
    import numpy as np

    try:
        from scipy.sparse._sparsetools import csr_matmat
    except ImportError:  # pragma: no cover - SciPy moved its kernels
        csr_matmat = None
    xt = x.T.tocsr()
    n = x.shape[1]
    per_word = xt @ np.diff(x.indptr).astype(np.int64)  # Σ |u| over the units holding v
    bound = int(np.minimum(per_word, n).sum())
    if csr_matmat is None or bound > DIRECT_PRODUCT_ENTRIES:
        return xt @ x
    import scipy.sparse as sp

    def i32(a: Any) -> Any:
        return np.asarray(a, dtype=np.int32)

    indptr = np.empty(n + 1, dtype=np.int32)
    indices = np.empty(bound, dtype=np.int32)
    data = np.empty(bound, dtype=np.int32)
    csr_matmat(
        n, n, i32(xt.indptr), i32(xt.indices), i32(xt.data),
        i32(x.indptr), i32(x.indices), i32(x.data), indptr, indices, data,
    )  # fmt: skip
    end = int(indptr[-1])
    return sp.csr_matrix((data[:end], indices[:end], indptr), shape=(n, n))


def upper_triangle(m: Any) -> Any:
    """The entries of the square CSR matrix ``m`` above its diagonal, as an int64 CSR matrix
    (column indices in ``m``'s order, unsorted like a product's): one mask over the entries,
    a third of the cost of ``scipy.sparse.triu``, which goes through COO and sorts."""
    import numpy as np
    import scipy.sparse as sp

    rows = np.repeat(np.arange(m.shape[0], dtype=m.indices.dtype), np.diff(m.indptr))
    keep = m.indices > rows
    kept = np.concatenate(([0], np.cumsum(keep, dtype=np.int32)))  # a block's nnz < 2³¹
    return sp.csr_matrix(
        (m.data[keep].astype(np.int64), m.indices[keep], kept[m.indptr]), shape=m.shape
    )


class PairSums:
    """The ``g`` matrices of the blocks added up: in memory up to ``budget`` bytes, then in
    DuckDB's ``pair_parts(a, b, g)`` (word ids in first-seen order).

    The sums in memory are a stack merged like a binary counter (a matrix is added to the one
    below it when that one is at most twice its size), so each pair is added about log(blocks)
    times rather than once per block."""

    def __init__(self, con: Any, budget: int) -> None:
        self.con = con
        self.budget = budget
        self.stack: list[Any] = []
        self.parts = 0

    def add(self, g: Any) -> None:
        self.stack.append(g)
        while len(self.stack) > 1 and self.stack[-2].nnz <= 2 * self.stack[-1].nnz:
            self._merge_top()
        if sum(m.nnz for m in self.stack) * ENTRY_BYTES > self.budget:
            self._flush()

    def _merge_top(self) -> None:
        top = self.stack.pop()
        below = self.stack.pop()
        shape = max(below.shape, top.shape)  # blocks counted later may know more words
        below.resize(shape)
        top.resize(shape)
        self.stack.append(below + top)

    @property
    def total(self) -> Any:
        """Everything held in memory, as one matrix (``None``: nothing)."""
        while len(self.stack) > 1:
            self._merge_top()
        return self.stack[0] if self.stack else None

    def _flush(self) -> None:
        import numpy as np
        import pyarrow as pa

        coo = self.total.tocoo()
        self.stack = []
        part = pa.table(
            {"a": coo.row.astype(np.int32), "b": coo.col.astype(np.int32), "g": coo.data}
        )
        if not self.parts:
            self.con.execute("CREATE TABLE pair_parts (a INTEGER, b INTEGER, g BIGINT)")
        self.con.register("part", part)
        self.con.execute("INSERT INTO pair_parts SELECT a, b, g FROM part")
        self.con.unregister("part")
        self.parts += 1

    def finish(self, rank: Any, min_count: int) -> int:
        """``pair_totals(w1, w2, g)`` with code-point ids and ``g ≥ min_count``; returns the
        number of distinct pairs."""
        import numpy as np
        import pyarrow as pa

        if self.parts:
            if self.stack:
                self._flush()
            self.con.register("ranks", pa.table({"id": np.arange(len(rank), dtype=np.int32),
                                                 "r": rank}))  # fmt: skip
            self.con.execute(
                "CREATE TABLE pair_ids AS SELECT a, b, SUM(g) AS g FROM pair_parts GROUP BY a, b"
            )
            self.con.execute("DROP TABLE pair_parts")
            pairs = int(self.con.execute("SELECT COUNT(*) FROM pair_ids").fetchone()[0])
            self.con.execute(
                "CREATE TABLE pair_totals AS SELECT LEAST(x.r, y.r) AS w1, "
                "GREATEST(x.r, y.r) AS w2, p.g FROM pair_ids AS p "
                "JOIN ranks AS x ON p.a = x.id JOIN ranks AS y ON p.b = y.id "
                f"WHERE p.g >= {min_count}"
            )
            self.con.execute("DROP TABLE pair_ids")
            self.con.unregister("ranks")
            return pairs
        total = self.total
        coo = total.tocoo() if total is not None else None
        pairs = 0 if coo is None else int(coo.nnz)
        if coo is None:
            a = b = np.zeros(0, np.int32)
            g = np.zeros(0, np.int64)
        else:
            keep = coo.data >= min_count
            a, b, g = rank[coo.row[keep]], rank[coo.col[keep]], coo.data[keep]
        table = pa.table({"w1": np.minimum(a, b), "w2": np.maximum(a, b), "g": g})
        self.con.register("pairs_block", table)
        self.con.execute("CREATE TABLE pair_totals AS SELECT w1, w2, g FROM pairs_block")
        self.con.unregister("pairs_block")
        return pairs


def counting_threads(config: MinerConfig) -> int:
    """Threads that multiply blocks: DuckDB's ``threads`` when set, else one per core."""
    import os

    if config.duckdb.threads is not None:
        return config.duckdb.threads
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def count_block(vocab: Vocabulary, lines: Any, separator: str, window: int | None) -> Any:
    """One block of lines (words joined by ``separator``) counted: its ``(lines, tokens,
    units)``, ``h`` and ``g`` (:func:`block_counts`)."""
    import pyarrow.compute as pc

    split = pc.split_pattern(lines, separator)
    ids = vocab.encode(split.flatten())
    indices, indptr = unit_rows(ids, split.offsets.to_numpy(), window)
    h, g = block_counts(indices, indptr, len(vocab.words))  # ≥ every id of the block
    return (len(lines), int((ids >= 0).sum()), len(indptr) - 1), h, g


def count_incidence(
    con: Any, blocks: Iterator[tuple[str, Any]], config: MinerConfig, separator: str
) -> Counter[str]:
    """Fill ``word_totals``, ``pair_totals`` and ``word_names`` from blocks of lines (words
    joined by ``separator``); returns the stats (``lines``, ``tokens``, ``units``,
    ``pairs``).

    This thread reads the blocks and adds up their counts; :func:`counting_threads` threads
    count the blocks meanwhile (:func:`count_block`: Arrow, NumPy and SciPy's sparse kernels
    release the GIL, so the threads share the cores with no process to start and no data to
    copy; only the vocabulary's loop over a block's distinct words takes turns, under its
    lock). Which thread reaches a word first decides its id, but the ids are renumbered in
    code-point order and the sums are of integers, so the tables are those of one thread."""
    import numpy as np
    import pyarrow as pa

    vocab = Vocabulary(config.stopword_set())
    sums = PairSums(con, memory_bytes(config.duckdb.memory_limit) // 4)
    h = np.zeros(0, dtype=np.int64)
    stats: Counter[str] = Counter()

    def add(counted: tuple[tuple[int, int, int], Any, Any]) -> None:
        nonlocal h
        (lines, tokens, units), block_h, g = counted
        stats.update(lines=lines, tokens=tokens, units=units)
        size = max(len(h), len(block_h))
        h = np.pad(h, (0, size - len(h))) + np.pad(block_h, (0, size - len(block_h)))
        sums.add(g)

    threads = counting_threads(config)
    with ThreadPoolExecutor(threads, thread_name_prefix="taiwa-count") as pool:
        pending: deque[Future[Any]] = deque()
        for _, lines in blocks:
            pending.append(pool.submit(count_block, vocab, lines, separator, config.window))
            while len(pending) > threads:  # bounded: at most one block waits per thread
                add(pending.popleft().result())
        while pending:
            add(pending.popleft().result())
    rank = vocab.code_point_ranks()
    stats["pairs"] = sums.finish(rank, config.min_pair_count)
    names = pa.table({"id": rank, "w": pa.array(vocab.words, pa.string())})
    totals = pa.table({"w": rank, "h": h})
    con.register("names_block", names)
    con.register("totals_block", totals)
    con.execute("CREATE TABLE word_names AS SELECT id, w FROM names_block")
    con.execute("CREATE TABLE word_totals AS SELECT w, h FROM totals_block")
    con.unregister("names_block")
    con.unregister("totals_block")
    return stats
