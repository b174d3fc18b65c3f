"""The da-distribution test set: contexts the systems reply to (seed 002 §3.3, §5.1).

Seed 002 gives each system the last utterance of a multi-turn dialogue and labels the act of
its reply; DAMI needs the act of that previous utterance too. One JSON object per line (JSONL,
or CSV / Parquet with the same columns)::

    {"id": "t0001", "history": ["older turn", ...], "context": "the utterance replied to",
     "prev_act": "質問", "reply": "a human's reply", "reply_act": "意見"}

``history`` (optional, oldest first, alternating speakers, the last turn by the replying
speaker) is shown to the systems before ``context``. ``prev_act`` (optional) labels
``context``; ``reply`` (optional) is the human reference reply (the ``human`` system) and
``reply_act`` (optional) its label. Acts are validated against the run's taxonomy and stored
under their canonical names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core.core_schema import ValidationInfo

from taiwa.core.io import iter_records, unique_ids
from taiwa.core.schema import Id, NonBlank, Taxonomy, canonical_act


class ContextItem(BaseModel):
    """One context of the test set (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Id
    history: list[NonBlank] = Field(default_factory=list)
    context: NonBlank
    prev_act: str | None = None
    reply: NonBlank | None = None
    reply_act: str | None = None

    @field_validator("prev_act", "reply_act")
    @classmethod
    def _act_in_taxonomy(cls, act: str | None, info: ValidationInfo) -> str | None:
        return None if act is None else canonical_act(act, info)

    @property
    def before_context(self) -> str:
        """The utterance ``context`` answers (the last history turn; empty at the start)."""
        return self.history[-1] if self.history else ""


def iter_contexts(path: str | Path, taxonomy: Taxonomy) -> Iterator[ContextItem]:
    """The contexts of ``path``, streamed, acts checked against ``taxonomy``; ids unique."""
    return unique_ids(path, iter_records(path, ContextItem, context={"taxonomy": taxonomy}))
