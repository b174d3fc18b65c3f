"""Content hashes of model files, remembered by path, size and modification time.

A cached reply is keyed by the model's identity; for a local model that is the SHA-256 of its
weights (a copy with changed weights is another model, whatever its name or first bytes).
Hashing a large file takes seconds, so the digest is kept in ``CACHE_DIR/file-hashes.json`` and
reused while the file's resolved path, size and ``mtime_ns`` are unchanged.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from taiwa.core.io import atomic_open

INDEX = "file-hashes.json"


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes (read in 4 MB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _load(index: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # missing or damaged: the hashes are computed again
    return data if isinstance(data, dict) else {}


def content_sha256(path: str | Path, cache_dir: Path | None) -> str:
    """SHA-256 of the file at ``path`` (of every file under it, by relative path, for a
    directory), from ``cache_dir``'s index while path, size and mtime are unchanged."""
    target = Path(path).resolve()
    files = sorted(p for p in target.rglob("*") if p.is_file()) if target.is_dir() else [target]
    stamps = {str(p): _stamp(p) for p in files}
    index = cache_dir / INDEX if cache_dir is not None else None
    known = _load(index) if index is not None else {}
    entry = known.get(str(target))
    if isinstance(entry, dict) and entry.get("stamps") == stamps:
        return str(entry["sha256"])
    if target.is_dir():
        h = hashlib.sha256()
        for p in files:
            h.update(f"{p.relative_to(target)}\0{sha256_file(p)}\n".encode())
        digest = h.hexdigest()
    else:
        digest = sha256_file(target)
    if index is not None:
        known[str(target)] = {"stamps": stamps, "sha256": digest}
        with contextlib.suppress(OSError):  # a read-only cache dir: hashed again next time
            index.parent.mkdir(parents=True, exist_ok=True)
            with atomic_open(index) as fh:
                fh.write(json.dumps(known, indent=1))
    return digest
