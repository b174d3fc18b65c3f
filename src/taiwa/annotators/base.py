"""The annotator protocol: replies in, DA sequences (or failure reasons) out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from taiwa.schema import DASequence


@dataclass(frozen=True)
class ReplyToAnnotate:
    """A system reply with its sample id and the user utterance it answers."""

    id: str
    user_text: str
    reply: str


@dataclass
class Annotation:
    """The DA sequence of one reply, or ``error`` when no valid one could be obtained."""

    id: str
    sequence: DASequence | None
    error: str | None = None
    attempts: int = 1

    def as_row(self, annotator: str) -> dict[str, object]:
        row: dict[str, object] = {"id": self.id, "annotator": annotator, "attempts": self.attempts}
        if self.sequence is not None:
            row["steps"] = [s.model_dump(exclude_none=True) for s in self.sequence.steps]
        if self.error is not None:
            row["error"] = self.error
        return row


class DAAnnotator(Protocol):
    """Turns replies into dialogue-act sequences with importances."""

    name: str

    async def annotate(self, replies: Sequence[ReplyToAnnotate]) -> list[Annotation]: ...
