"""The records of the intent builder (seed 004 §2.1–2.3): a candidate (one line of
``candidates.jsonl``) and a question before annotation (one line of ``questions.jsonl``, see
:mod:`.builder`), shared by the builder, its filters and the annotation sheets."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taiwa.benchmarks.intent.dataset import QuestionBase
from taiwa.core.schema import Id, NonBlank

MAX_OPTIONS = 4
"""Options per question, 「該当なし」 included (seed 004 §2.3 shows four)."""


class Candidate(BaseModel):
    """A (context, core, intent) triple: one line of ``candidates.jsonl``. ``group`` is the id of
    the extracted candidate whose core sentence it shares; ``origin`` says which step wrote it;
    ``dropped`` is the filter's reason when a filter dropped it (such lines are kept in the
    file, for the record, but give no question)."""

    model_config = ConfigDict(extra="forbid")

    id: Id
    group: NonBlank
    dialogue: str
    origin: Literal["extracted", "generated"]
    context: NonBlank
    core: NonBlank
    intent: NonBlank
    dropped: str | None = None


class Question(QuestionBase):
    """A question before annotation: one line of ``questions.jsonl`` (module docstring)."""

    intended: int = Field(ge=0)
    """The option the model wrote for this context: a hint, not the gold label."""

    @model_validator(mode="after")
    def _intended_in_options(self) -> Question:
        self._check_index("intended", self.intended)
        return self
