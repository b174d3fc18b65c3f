"""Models that answer from data rather than by generating: ``replay:FILE`` (replies you already
have, keyed by sample id) and :class:`ReferenceModel` (a dataset's own reference replies, the
``human`` system). Neither is cached: the answers are read afresh on every run."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from taiwa.core.io import index_by_id, read_records
from taiwa.core.schema import TextRecord
from taiwa.models.base import ConcurrentModel
from taiwa.models.types import ChatRequest


class MissingReply(LookupError):
    """There is no answer for this sample id."""


class ReferenceModel(ConcurrentModel):
    """Answers each request with the text stored for its (sample) id."""

    backend = "reference"
    cacheable = False

    def __init__(self, replies: Mapping[str, str], model_id: str, source: str) -> None:
        self.replies = dict(replies)
        self.model_id = model_id
        content = json.dumps(sorted(self.replies.items()), ensure_ascii=False).encode("utf-8")
        self.identity = f"replies:{hashlib.sha256(content).hexdigest()}"
        self.source = source
        self.concurrency = 64

    async def _complete(self, request: ChatRequest) -> str:
        try:
            return self.replies[request.id]
        except KeyError:
            raise MissingReply(f"no reply for id {request.id!r} in {self.source}") from None


class ReplayModel(ReferenceModel):
    """Lines ``{"id": ..., "text": ...}`` (JSONL, CSV or Parquet). A sample without a line
    becomes an error response naming the file, so missing ids are reported, not skipped."""

    backend = "replay"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        records = index_by_id(self.path, read_records(self.path, TextRecord))
        super().__init__(
            {k: rec.text for k, (_, rec) in records.items()},
            str(self.path.resolve()),
            str(self.path),
        )
