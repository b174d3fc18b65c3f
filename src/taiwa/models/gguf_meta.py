"""Read string metadata from a GGUF file header (enough to verify ``general.name``)."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

# GGUF value types: sizes of the scalar ones.
_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


def _u32(fh: BinaryIO) -> int:
    return int(struct.unpack("<I", fh.read(4))[0])


def _u64(fh: BinaryIO) -> int:
    return int(struct.unpack("<Q", fh.read(8))[0])


def _string(fh: BinaryIO) -> str:
    return fh.read(_u64(fh)).decode("utf-8", errors="replace")


def _skip(fh: BinaryIO, vtype: int) -> None:
    if vtype in _SCALAR:
        fh.seek(_SCALAR[vtype], 1)
    elif vtype == _STRING:
        fh.seek(_u64(fh), 1)
    elif vtype == _ARRAY:
        item_type, count = _u32(fh), _u64(fh)
        if item_type in _SCALAR:
            fh.seek(_SCALAR[item_type] * count, 1)
        else:
            for _ in range(count):
                _skip(fh, item_type)
    else:
        raise ValueError(f"unknown GGUF value type {vtype}")


def gguf_strings(path: str | Path, wanted: set[str]) -> dict[str, str]:
    """The string values of the ``wanted`` metadata keys found in the GGUF header."""
    out: dict[str, str] = {}
    with open(path, "rb") as fh:
        if fh.read(4) != b"GGUF":
            raise ValueError(f"{path} is not a GGUF file")
        _u32(fh)  # version
        _u64(fh)  # tensor count
        for _ in range(_u64(fh)):
            key, vtype = _string(fh), _u32(fh)
            if key in wanted and vtype == _STRING:
                out[key] = _string(fh)
                if len(out) == len(wanted):
                    break
            else:
                _skip(fh, vtype)
    return out
