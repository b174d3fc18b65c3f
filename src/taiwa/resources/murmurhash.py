"""MurmurHash64A (Austin Appleby), the hash spaCy uses for its string store (seed 1).

Needed to look words up in the ja-ginza vectors, whose ``key2row`` is keyed by
``MurmurHash64A(utf8(word), seed=1)`` (DESIGN.md: word vectors for the cohesion default).
"""

from __future__ import annotations

_M = 0xC6A4A7935BD1E995
_R = 47
_MASK = 0xFFFFFFFFFFFFFFFF


def murmurhash64a(data: bytes, seed: int = 1) -> int:
    """The unsigned 64-bit MurmurHash64A of ``data``."""
    length = len(data)
    h = (seed ^ (length * _M)) & _MASK
    n_blocks = length // 8
    for i in range(n_blocks):
        k = int.from_bytes(data[8 * i : 8 * i + 8], "little")
        k = (k * _M) & _MASK
        k ^= k >> _R
        k = (k * _M) & _MASK
        h ^= k
        h = (h * _M) & _MASK
    tail = data[8 * n_blocks :]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * _M) & _MASK
    h ^= h >> _R
    h = (h * _M) & _MASK
    h ^= h >> _R
    return h


def hash_string(text: str) -> int:
    """spaCy's ``hash_string``: MurmurHash64A of the UTF-8 bytes with seed 1."""
    return murmurhash64a(text.encode("utf-8"), 1)
