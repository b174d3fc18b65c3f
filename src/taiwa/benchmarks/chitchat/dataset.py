"""The chitchat task item (seed 001's three tasks) and its streaming reader.

One JSON object per line::

    {"id": "cc2-01-next-t08", "task": "next_utterance", "labels": ["USER", "ASSISTANT"],
     "target": "ASSISTANT", "n_turns": 1,
     "context": [{"speaker": "USER", "lines": ["はじめまして！"]}, ...],
     "reference": [{"speaker": "ASSISTANT", "lines": ["はい！", "そういえば…"]}],
     "dialogue": "cc2-01", "cut": 8, "family": "role"}

``task`` is ``next_utterance`` (次発話生成: 2 speakers, the next turn of ``target``),
``next_speaker`` (次話者発話生成: 3 speakers, the next turn of the named ``target``) or
``continuation`` (後続対話生成: the next ``n_turns`` turns, speakers included, no target).
A *turn* is consecutive utterances of one speaker, shown under one label with one line per
utterance (seed 001's figures); seed 001 counts turns (its 「5つの発話」 reference has five
labelled turns and seven lines). ``labels`` are the shown speaker labels in the order the
instruction lists them; ``context`` is the chat up to the cut and ``reference`` the real
continuation. ``dialogue``, ``cut`` (index of the first reference turn) and ``family`` (the
label family) record where the item came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from taiwa.core.io import iter_records, unique_ids
from taiwa.core.schema import Id, NonBlank
from taiwa.text.normalize import nfkc

TaskType = Literal["next_utterance", "next_speaker", "continuation"]
TASKS: tuple[TaskType, ...] = ("next_utterance", "next_speaker", "continuation")
"""The task types in seed 001's order of intended difficulty (一般的, わずかに挑戦的, 挑戦的)."""

TASK_TITLES = {
    "next_utterance": "次発話生成",
    "next_speaker": "次話者発話生成",
    "continuation": "後続対話生成",
}

LABEL_CHARS = 16
"""The longest speaker label; extraction looks for a label within this many characters of a
line's start (seed 001: 文頭から一定文字数で「:」がある行)."""

LABEL_CHAR = r"[^\s:：、。，．,.！？!?「」『』（）()…]"
"""A character a speaker label may hold: no space, colon or sentence punctuation (so that a
sentence with a colon late in it is not taken for a label)."""

_LABEL = re.compile(rf"{LABEL_CHAR}{{1,{LABEL_CHARS}}}")
SEPARATOR = ": "
"""Between a label and the text, as in seed 001's prompt figure (``USER: こんにちは``)."""


def _label(value: str) -> str:
    if not _LABEL.fullmatch(value):
        raise ValueError(
            f"a speaker label of 1 to {LABEL_CHARS} characters without spaces, colons or "
            "punctuation"
        )
    return value


def _one_line(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise ValueError("one line of text (a turn holds one line per utterance)")
    return value


Label = Annotated[str, AfterValidator(_label)]
Line = Annotated[NonBlank, AfterValidator(_one_line)]


class Turn(BaseModel):
    """Consecutive utterances of one speaker: its label and one line per utterance."""

    model_config = ConfigDict(extra="forbid")

    speaker: Label
    lines: list[Line] = Field(min_length=1)


_SPEAKERS = {"next_utterance": 2, "next_speaker": 3}
"""How many speakers the single-turn tasks have (seed 001: 2-speaker and 3-speaker chats)."""


def _check_turns(turns: list[Turn], labels: list[str] | None, before: Turn | None) -> None:
    """Speakers are among ``labels`` and no two adjacent turns share a speaker."""
    for i, turn in enumerate(turns):
        if labels and turn.speaker not in labels:
            raise ValueError(f"turn {i}: a speaker among the labels {labels}")
        previous = turns[i - 1] if i else before
        if previous is not None and previous.speaker == turn.speaker:
            raise ValueError(
                f"turn {i}: a change of speaker (one turn holds all consecutive lines of one "
                "speaker)"
            )


def render_turns(turns: Sequence[Turn]) -> str:
    """Turns as seed 001 shows them: ``LABEL: first line`` and the speaker's further lines
    below it, without a label."""
    return "\n".join(f"{t.speaker}{SEPARATOR}" + "\n".join(t.lines) for t in turns)


class ChitchatItem(BaseModel):
    """One seed 001 task item (see the module docstring for the layout)."""

    model_config = ConfigDict(extra="ignore")

    id: Id
    task: TaskType
    labels: list[Label] = Field(min_length=2, max_length=3)
    target: Label | None = None
    n_turns: int = Field(1, ge=1, le=50)
    context: list[Turn] = Field(min_length=1)
    reference: list[Turn] = Field(min_length=1)
    dialogue: NonBlank | None = None
    cut: int | None = Field(None, ge=1)
    family: NonBlank | None = None

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str], info: ValidationInfo) -> list[str]:
        if len({nfkc(x).casefold() for x in labels}) != len(labels):
            raise ValueError(
                "distinct speaker labels, also after NFKC and case folding (the extraction "
                "reads 'USER', 'user' and 'ＵＳＥＲ' as one speaker)"
            )
        task = info.data.get("task")
        if task in _SPEAKERS and len(labels) != _SPEAKERS[task]:
            raise ValueError(f"{_SPEAKERS[task]} speaker labels for a {task} item")
        return labels

    @field_validator("target")
    @classmethod
    def _target(cls, target: str | None, info: ValidationInfo) -> str | None:
        task, labels = info.data.get("task"), info.data.get("labels")
        if task == "continuation" and target is not None:
            raise ValueError("no target for a continuation item (null or absent)")
        if task in _SPEAKERS and (target is None or (labels and target not in labels)):
            raise ValueError(f"the label of the speaker to answer as, one of {labels}")
        return target

    @field_validator("n_turns")
    @classmethod
    def _n_turns(cls, n_turns: int, info: ValidationInfo) -> int:
        task = info.data.get("task")
        if task in _SPEAKERS and n_turns != 1:
            raise ValueError(f"1 for a {task} item")
        return n_turns

    @field_validator("context")
    @classmethod
    def _context(cls, context: list[Turn], info: ValidationInfo) -> list[Turn]:
        _check_turns(context, info.data.get("labels"), None)
        return context

    @field_validator("reference")
    @classmethod
    def _reference(cls, reference: list[Turn], info: ValidationInfo) -> list[Turn]:
        context = info.data.get("context")
        _check_turns(reference, info.data.get("labels"), context[-1] if context else None)
        task, n_turns = info.data.get("task"), info.data.get("n_turns")
        if n_turns is not None and len(reference) != n_turns:
            raise ValueError(f"{n_turns} turn(s) (n_turns), got {len(reference)}")
        target = info.data.get("target")
        if task in _SPEAKERS and target is not None and reference[0].speaker != target:
            raise ValueError(f"a turn of the target speaker {target!r}")
        return reference

    @property
    def reference_text(self) -> str:
        """The reference as a system should write it after the prompt's ``出力:`` cue: the
        target's lines (single-turn tasks) or the labelled turns (continuation)."""
        if self.task == "continuation":
            return render_turns(self.reference)
        return "\n".join(self.reference[0].lines)

    @property
    def reference_plain(self) -> str:
        """The reference's lines without labels (what ROUGE compares)."""
        return "\n".join(line for t in self.reference for line in t.lines)


def iter_tasks(path: str | Path) -> Iterator[ChitchatItem]:
    """Read and validate a task file (JSONL/CSV/Parquet) one item at a time; ids must be
    unique. Errors name the file, line and field."""
    return unique_ids(path, iter_records(path, ChitchatItem))


def load_tasks(path: str | Path) -> list[ChitchatItem]:
    """Every item of ``path`` (see :func:`iter_tasks`)."""
    return list(iter_tasks(path))
