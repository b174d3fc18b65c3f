"""``replay:FILE``: precomputed replies keyed by sample id, so existing outputs can be scored."""

from __future__ import annotations

from pathlib import Path

from taiwa.io import index_by_id, read_records
from taiwa.models.base import ConcurrentModel
from taiwa.models.types import ChatRequest
from taiwa.schema import TextRecord


class MissingReplay(LookupError):
    """The replay file has no reply for this sample id."""


class ReplayModel(ConcurrentModel):
    """Answers each request with the ``text`` of the line whose ``id`` is the sample id.

    Lines are ``{"id": ..., "text": ...}`` (JSONL, CSV or Parquet). A sample without a line
    becomes an error response naming the file, so missing ids are reported, not skipped.
    """

    backend = "replay"
    keyed_by_id = True  # replies differ by sample id, not by message

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.replies = {
            k: rec.text
            for k, (_, rec) in index_by_id(self.path, read_records(self.path, TextRecord)).items()
        }
        self.model_id = str(self.path.resolve())
        self.concurrency = 64

    async def _complete(self, request: ChatRequest) -> str:
        try:
            return self.replies[request.id]
        except KeyError:
            raise MissingReplay(f"no reply for id {request.id!r} in {self.path}") from None
