"""Records shared by every part of taiwa (pydantic v2).

Anything that crosses a file boundary is one of these models, so that a bad line in an input
file fails with the field that is wrong (see :mod:`taiwa.core.io`).

Texts are bounded by one limit, :data:`MAX_TEXT_CHARS`: every string an input file holds is
checked against it when the file is read (:mod:`taiwa.core.io`), and the :data:`Text` and
:data:`NonBlank` field types check it again for records built in code. Ids and the texts a
method evaluates are :data:`NonBlank`: an empty or white-space-only value is an error.

Each model's validator is built when it is first used (pydantic's ``defer_build``), as are the
methods' options: every command imports them all and a run uses one method's (issue 29).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

MAX_TEXT_CHARS = 100_000
"""The longest string taiwa accepts in any input (an utterance, a reply, an id, a label):
longer ones are an error naming file, line and field. 100,000 characters is some 50 pages of
Japanese, far above any dialogue turn; the tokenizer and the tables stay fast below it."""


def non_blank(text: str) -> str:
    """``text`` unless it is empty or only white space, or longer than
    :data:`MAX_TEXT_CHARS` (a ``ValueError`` then, worded as :func:`error_text` words the
    same checks of :data:`NonBlank`): for texts checked in Python, e.g. inside a list."""
    if not text.strip():
        raise ValueError("a non-blank text")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(f"at most {MAX_TEXT_CHARS:,} characters (got {len(text):,})")
    return text


NON_BLANK = r"\S"
"""The pattern of a non-blank text (searched: something other than white space somewhere)."""

MAX_ID_CHARS = 1_000
"""The longest id taiwa accepts (ids, and other short fields such as labels of files it pairs
by id): longer ones are an error naming file, line and field when the file is read. Ids are
keys, printed in tables and notes; a page-long id is a mistake, and one of 100,000 characters
made pairing files by id and printing what was left unpaired take minutes."""

# The three string types are checked by pydantic-core itself (no Python call per string: on
# 10,000 intent items, half the time of validating them went to these checks in Python);
# :func:`error_text` words their errors as taiwa always has.

Text = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
"""A string of at most :data:`MAX_TEXT_CHARS` characters."""

NonBlank = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS, pattern=NON_BLANK)]
"""A string with something other than white space in it, of at most :data:`MAX_TEXT_CHARS`."""

Id = Annotated[str, StringConstraints(max_length=MAX_ID_CHARS, pattern=NON_BLANK)]
"""An id: non-blank, at most :data:`MAX_ID_CHARS` characters."""


def error_text(err: Mapping[str, Any]) -> str:
    """What one of pydantic's errors (``ValidationError.errors()``) says, in taiwa's words:
    ``Value error, `` dropped, and the checks of :data:`Text`, :data:`NonBlank` and :data:`Id`
    worded as "a non-blank text", "at most 100,000 characters (got N)" and "an id of at most
    1,000 characters (this one has N)"."""
    kind, ctx, value = err.get("type"), err.get("ctx") or {}, err.get("input")
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == NON_BLANK:
        return "a non-blank text"
    if kind == "string_too_long" and isinstance(value, str):
        limit = ctx.get("max_length")
        if limit == MAX_ID_CHARS:
            return f"an id of at most {limit:,} characters (this one has {len(value):,})"
        if limit == MAX_TEXT_CHARS:
            return f"at most {limit:,} characters (got {len(value):,})"
    return str(err.get("msg", "")).removeprefix("Value error, ")


Role = Literal["user", "system", "human", "agent"]
"""Who speaks: ``user``/``system`` for assistant dialogues, ``human``/``agent`` for seed 003."""


class Utterance(BaseModel):
    """One turn of a dialogue."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    speaker: Text
    text: NonBlank
    role: Role
    correct: bool | None = None
    """Optional human label: is this (agent) utterance semantically correct? (seed 003 §3.1)"""


class Dialogue(BaseModel):
    """A dialogue: an id, its utterances in order and free-form metadata."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: Id
    utterances: list[Utterance] = Field(min_length=1)
    meta: dict[str, Any] = Field(default_factory=dict)


def canonical_act(act: str, info: ValidationInfo) -> str:
    """Map ``act`` to its taxonomy's canonical name when a taxonomy is in the context."""
    taxonomy = (info.context or {}).get("taxonomy")
    if taxonomy is None:
        return act
    canonical: str | None = taxonomy.canonical(act)
    if canonical is None:
        raise ValueError(f"expected one of the {taxonomy.name} acts {taxonomy.names}")
    return canonical


class DAStep(BaseModel):
    """One element of a dialogue-act sequence: the act, its importance and why (seed 000 §3.2)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    act: str = Field(min_length=1)
    importance: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    rationale: Text | None = None

    @field_validator("act")
    @classmethod
    def _act_in_taxonomy(cls, act: str, info: ValidationInfo) -> str:
        return canonical_act(act, info)


class DASequence(BaseModel):
    """A reply decomposed into dialogue acts, in order, with importances (seed 000 §3.2)."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    steps: list[DAStep]

    @property
    def acts(self) -> list[str]:
        return [s.act for s in self.steps]


class DASequenceRecord(DASequence):
    """A DA sequence with an id: ``{"id": ..., "steps": [...]}``.

    A seed 000 dataset item (App. A) is accepted as well: its
    ``output_dialogue_acts.steps`` become ``steps`` and ``output.text`` becomes ``text``.
    A record needs at least one step and importances that sum to more than 0 (they are
    renormalised to 1 when scored).
    """

    id: Id
    text: NonBlank | None = None
    steps: list[DAStep] = Field(min_length=1)

    @field_validator("steps")
    @classmethod
    def _some_importance(cls, steps: list[DAStep]) -> list[DAStep]:
        if math.fsum(s.importance for s in steps) <= 0:
            raise ValueError("importances that sum to more than 0 (they are renormalised to 1)")
        return steps

    @model_validator(mode="before")
    @classmethod
    def _lift_seed000_item(cls, data: Any) -> Any:
        if isinstance(data, dict) and "steps" not in data and "output_dialogue_acts" in data:
            lifted = dict(data)
            odas = lifted.pop("output_dialogue_acts")
            lifted["steps"] = odas.get("steps") if isinstance(odas, dict) else odas
            output = lifted.get("output")
            if "text" not in lifted and isinstance(output, dict):
                lifted["text"] = output.get("text")
            return lifted
        return data


class DialogueAct(BaseModel):
    """One act of a taxonomy, with Japanese and English names and a definition."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: NonBlank
    ja: NonBlank
    en: NonBlank
    definition: Text
    group: Text | None = None


class Taxonomy(BaseModel):
    """A dialogue-act inventory. Acts are referred to by ``name``; ``ja``/``en`` are aliases."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    name: NonBlank
    description: Text = ""
    acts: list[DialogueAct] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> Taxonomy:
        seen: dict[str, str] = {}
        for act in self.acts:
            for alias in {act.name, act.ja, act.en}:
                key = alias.casefold()
                if key in seen and seen[key] != act.name:
                    raise ValueError(f"alias {alias!r} names both {seen[key]!r} and {act.name!r}")
                seen[key] = act.name
        return self

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.acts]

    def canonical(self, act: str) -> str | None:
        """The canonical name of ``act`` (matched on name, ja or en, case-insensitively)."""
        key = act.strip().casefold()
        for a in self.acts:
            if key in (a.name.casefold(), a.ja.casefold(), a.en.casefold()):
                return a.name
        return None


class TaggedReply(BaseModel):
    """A reply tagged with its dialogue act and the act of the utterance before it (seed 002).

    Either ``act`` or ``votes`` (one list of selected acts per annotator, aggregated by the
    seed 002 §3.3 rule) must be given; likewise ``prev_act`` or ``prev_votes``.
    """

    model_config = ConfigDict(extra="ignore", defer_build=True)

    id: Id
    system: NonBlank = "system"
    context: NonBlank | None = None
    reply: NonBlank | None = None
    act: str | None = None
    votes: list[list[str]] | None = None
    prev_act: str | None = None
    prev_votes: list[list[str]] | None = None

    @field_validator("act", "prev_act")
    @classmethod
    def _act_in_taxonomy(cls, act: str | None, info: ValidationInfo) -> str | None:
        return None if act is None else canonical_act(act, info)

    @field_validator("votes", "prev_votes")
    @classmethod
    def _votes_in_taxonomy(
        cls, votes: list[list[str]] | None, info: ValidationInfo
    ) -> list[list[str]] | None:
        if votes is None:
            return None
        return [[canonical_act(a, info) for a in ballot] for ballot in votes]

    @model_validator(mode="after")
    def _act_or_votes(self) -> TaggedReply:
        if self.act is None and self.votes is None:
            raise ValueError("expected 'act' (a dialogue act) or 'votes' (annotator selections)")
        return self


class TextRecord(BaseModel):
    """A text with an id, e.g. a system reply or a reference reply."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    id: Id
    text: NonBlank
