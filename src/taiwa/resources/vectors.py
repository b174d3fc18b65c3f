"""The embedded default association resource: ja-ginza's 20,000 × 300 word vectors.

The vectors ship inside the ``ja-ginza`` wheel (``vocab/vectors``: a NumPy array;
``vocab/key2row``: msgpack, spaCy's MurmurHash64A (seed 1) of Sudachi normalized forms → row).
They are read with numpy + msgpack (spaCy is not needed) in well under a second. Two content
words are associated when the cosine similarity of their vectors is at least ``threshold``
(calibrated as documented in :mod:`taiwa.benchmarks.cohesion.calibration`). A word is looked up
by its normalised form first (closest to Sudachi's), then by its lemma; a word with no vector is
associated with nothing.

A cosine is the float64 dot product of the two float32 unit vectors, rounded to float32: the
same value for a pair of words whatever else is in the dialogue (a float32 BLAS product's last
bit depends on the matrix layout and the number of BLAS threads). The scorer's fast path,
:meth:`GinzaVectors.associated_pairs`, keeps each vector row's associated rows among the rows
met so far, so a dialogue costs dictionary look-ups instead of a matrix product.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import msgpack
import numpy as np

from taiwa.core.errors import TaiwaError
from taiwa.resources.association import Word
from taiwa.resources.murmurhash import hash_string

DEFAULT_THRESHOLD = 0.7
"""Cosine threshold of the default resource, from :mod:`taiwa.benchmarks.cohesion.calibration`
on the bundled labelled dialogues (30 dialogues, 245 labelled agent utterances): separation of real
from spliced dialogues rises from 0.55 (θ = 0.3) and 0.75 (θ = 0.5) to 0.98 at θ = 0.7 and stays
there up to 0.8, while F1 against the human labels falls slowly (0.83 → 0.78 at 0.7); 0.7 is the
smallest threshold with the best separation. Reproduce with ``taiwa build calibrate-cohesion``."""


def ginza_vocab_dir() -> Path:
    """The ``vocab`` directory of the installed ja-ginza package."""
    spec = importlib.util.find_spec("ja_ginza")
    if spec is None or spec.origin is None:
        raise TaiwaError(
            "the ja-ginza vectors are not installed: run `make install` "
            "(it runs `pip install --no-deps ja-ginza==5.3.0`)"
        )
    root = Path(spec.origin).parent
    found = sorted(root.glob("ja_ginza-*/vocab"))
    if not found:
        raise TaiwaError(f"no vocab/ directory inside {root}: reinstall ja-ginza")
    return found[-1]


@cache
def _load(vocab_dir: Path) -> tuple[dict[int, int], np.ndarray]:
    key2row: dict[int, int] = msgpack.unpackb(
        (vocab_dir / "key2row").read_bytes(), strict_map_key=False
    )
    vectors = np.load(vocab_dir / "vectors", allow_pickle=False).astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return key2row, vectors / np.where(norms > 0, norms, 1.0)


MAX_NEIGHBOURS = 64
"""Mean associated rows per row above which :meth:`GinzaVectors.associated_pairs` stops keeping
neighbour lists (a very low threshold) and works from each dialogue's matrix instead."""


class GinzaVectors:
    """Cosine similarity of ja-ginza word vectors, thresholded."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, vocab_dir: Path | None = None) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.threshold = threshold
        self.key2row, self.unit_vectors = _load(vocab_dir or ginza_vocab_dir())
        self.name = f"ginza-vectors(cos>={threshold:g})"
        self._cut = np.float32(threshold)  # cosines are float32: compared as float32
        self._rows: dict[tuple[str, str], int] = {}
        # rows met so far (their float64 vectors in a growing buffer): each one's cosine with
        # itself, and its *other* rows at cosine >= threshold (only for rows that have some)
        self._lock = threading.Lock()
        self._own: dict[int, float] = {}
        self._others: dict[int, dict[int, float]] = {}
        self._seen = np.empty(0, dtype=np.int64)
        self._seen_vectors = np.empty((0, self.unit_vectors.shape[1]))
        self._n_links = 0
        self._dense = False

    def row(self, word: Word) -> int:
        """The vector row of ``word`` (-1 when it has none)."""
        key = (word.lemma, word.norm)
        row = self._rows.get(key)
        if row is None:
            row = -1
            for form in (word.norm, word.lemma):
                found = self.key2row.get(hash_string(form))
                if found is not None:
                    row = int(found)
                    break
            self._rows[key] = row
        return row

    def cosines(self, rows_a: np.ndarray, rows_b: np.ndarray) -> np.ndarray:
        """Cosines (float32) of the vector rows ``rows_a`` × ``rows_b``."""
        return _products(
            self.unit_vectors[rows_a].astype(np.float64),
            self.unit_vectors[rows_b].astype(np.float64),
        )

    def association_matrix(self, words: Sequence[Word]) -> tuple[np.ndarray, np.ndarray]:
        rows = np.array([self.row(w) for w in words], dtype=np.int64)
        has = rows >= 0
        safe = np.where(has, rows, 0)
        score = self.cosines(safe, safe)
        score[~has, :] = 0.0
        score[:, ~has] = 0.0
        return score >= self._cut, score

    def _learn(self, new: list[int]) -> None:
        """Neighbours of the rows ``new`` (not met before) among every row met."""
        rows = np.array(new, dtype=np.int64)
        vectors = self.unit_vectors[rows].astype(np.float64)
        n_old, n_all = len(self._seen), len(self._seen) + len(rows)
        if n_all > len(self._seen_vectors):
            grown = np.empty((max(2 * len(self._seen_vectors), n_all, 256), vectors.shape[1]))
            grown[:n_old] = self._seen_vectors[:n_old]
            self._seen_vectors = grown
        self._seen_vectors[n_old:n_all] = vectors
        self._seen = seen = np.concatenate([self._seen, rows])
        score = _products(vectors, self._seen_vectors[:n_all])
        own = score[np.arange(len(rows)), n_old + np.arange(len(rows))]
        self._own.update(zip(new, own.tolist(), strict=True))
        hit_new, hit_seen = np.nonzero(score >= self._cut)
        others = self._others
        for p, q, s in zip(
            hit_new.tolist(), hit_seen.tolist(), score[hit_new, hit_seen].tolist(), strict=True
        ):
            a, b = new[p], int(seen[q])
            if a != b:
                self._n_links += (b not in others.get(a, ())) + (a not in others.get(b, ()))
                others.setdefault(a, {})[b] = s
                others.setdefault(b, {})[a] = s
        if self._n_links > MAX_NEIGHBOURS * n_all:
            self._dense = True
            self._others = {}

    def associated_pairs(self, words: Sequence[Word]) -> list[tuple[int, int, float]]:
        """``(i, j, cosine)`` for every ``i != j`` at cosine >= threshold, sorted by ``i``
        then ``j``: the associated entries of :meth:`association_matrix`, without the matrix."""
        cached = self._rows.get
        rows = [cached((w.lemma, w.norm), -2) for w in words]  # -2: not looked up yet
        if -2 in rows:
            rows = [self.row(w) if r == -2 else r for r, w in zip(rows, words, strict=True)]
        present = set(rows)
        present.discard(-1)
        if not present:
            return []
        with self._lock:
            if not self._dense:
                new = present.difference(self._own)
                if new:
                    self._learn(sorted(new))
            if self._dense:
                return _pairs_of(*self.association_matrix(words))
            others = self._others
            linked = others.keys() & present
            # several words on one row (two lemmas, one normalised form) are associated too
            shared = len(rows) - rows.count(-1) > len(present)
            if not linked and not shared:
                return []  # the usual case at the default threshold
            where: dict[int, list[int]] = {}
            for i, r in enumerate(rows):
                if r >= 0:
                    where.setdefault(r, []).append(i)
            cut = float(self._cut)
            heads = set(linked)
            if shared:
                heads.update(r for r, js in where.items() if len(js) > 1)
            out: list[tuple[int, int, float]] = []
            for i in sorted(i for r in heads for i in where[r]):
                r = rows[i]
                found: list[tuple[int, float]] = []
                own = self._own[r]
                if own >= cut and len(where[r]) > 1:
                    found += [(j, own) for j in where[r] if j != i]
                near = others.get(r)
                if near:
                    pairs = (
                        near.items()
                        if len(near) <= len(where)
                        else [(r2, near[r2]) for r2 in where if r2 in near]
                    )
                    found += [(j, c) for r2, c in pairs if r2 in where for j in where[r2]]
                found.sort()
                out += [(i, j, c) for j, c in found]
            return out


def _products(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b.T`` (float64 rows) rounded to float32, one matrix-vector product per row of
    ``a``: as one matrix product, these small products are several times slower whenever
    OpenBLAS spreads them over threads while the cores are busy."""
    out = np.empty((len(a), len(b)), dtype=np.float32)
    for i, row in enumerate(a):
        out[i] = b @ row
    return out


def _pairs_of(assoc: np.ndarray, score: np.ndarray) -> list[tuple[int, int, float]]:
    iu, iv = np.nonzero(assoc)
    keep = iu != iv
    iu, iv = iu[keep], iv[keep]
    return list(zip(iu.tolist(), iv.tolist(), score[iu, iv].tolist(), strict=True))
