"""``replay:FILE`` annotator: DA sequences you already have, keyed by sample id."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from taiwa.annotators.base import Annotation, ReplyToAnnotate
from taiwa.io import index_by_id, read_records
from taiwa.schema import DASequence, DASequenceRecord
from taiwa.taxonomies import load_taxonomy


class ReplayAnnotator:
    """Lines ``{"id", "steps"}`` (or seed 000 items); a missing id is an annotation failure."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        records = read_records(
            self.path, DASequenceRecord, context={"taxonomy": load_taxonomy("assistant7")}
        )
        self.sequences = {
            k: DASequence(steps=r.steps) for k, (_, r) in index_by_id(self.path, records).items()
        }
        self.name = f"replay:{self.path}"

    async def annotate(self, replies: Sequence[ReplyToAnnotate]) -> list[Annotation]:
        return [
            Annotation(r.id, self.sequences[r.id])
            if r.id in self.sequences
            else Annotation(r.id, None, f"no sequence for id {r.id!r} in {self.path}")
            for r in replies
        ]
