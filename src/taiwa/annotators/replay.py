"""DA sequences you already have (``{"id", "steps"}`` lines, or seed 000 items), keyed by id."""

from __future__ import annotations

from pathlib import Path

from taiwa.core.errors import TaiwaError
from taiwa.core.io import index_by_id, read_records
from taiwa.core.schema import DASequence, DASequenceRecord, Taxonomy


def load_sequences(path: str | Path, taxonomy: Taxonomy) -> dict[str, DASequence]:
    """Every sequence of ``path`` by id; acts are checked against ``taxonomy``."""
    if not str(path).strip():
        raise TaiwaError("bad spec 'replay:': expected replay:FILE (a file of DA sequences)")
    records = read_records(path, DASequenceRecord, context={"taxonomy": taxonomy})
    return {k: DASequence(steps=r.steps) for k, (_, r) in index_by_id(path, records).items()}
