"""The chit-chat corpus: text chats of 2 or 3 speakers in the shared :class:`Dialogue` schema.

Seed 001 builds its tasks from real chats between people meeting for the first time:
2-speaker chats (初対面対話) and 3-speaker chats (3者雑談, no turn-taking control). One JSON
object per line::

    {"id": "cc2-01", "utterances": [{"speaker": "A", "text": "はじめまして！", "role": "human"},
                                    ...], "meta": {"speakers": 2, "topic": "料理"}}

``speaker`` identifies the person within the dialogue only; prompts never show it (the task
builder draws the shown labels per item, seed 001). Utterances are the chat messages in
order; consecutive messages of one speaker stay separate utterances and are grouped into
one *turn* (:func:`turns`), which is the unit seed 001's tasks count.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from taiwa.core import schema
from taiwa.core.errors import InputError
from taiwa.core.io import iter_records, shown, unique_ids
from taiwa.core.schema import Dialogue

MIN_SPEAKERS = 2
MAX_SPEAKERS = 3
"""Seed 001 uses 2-speaker and 3-speaker chats."""

MAX_ID_CHARS = schema.MAX_ID_CHARS - 32
"""The longest dialogue id: the builder's item ids add a suffix (``-cont-t12``), and an item id
is bounded like any id (:data:`taiwa.core.schema.MAX_ID_CHARS`)."""


@dataclass(frozen=True)
class SpeakerTurn:
    """Consecutive utterances of one speaker: ``lines`` are the message texts, one per line
    (a text holding line breaks gives several lines)."""

    speaker: str
    lines: tuple[str, ...]


def turns(dialogue: Dialogue) -> list[SpeakerTurn]:
    """The dialogue as speaker turns: consecutive utterances of one speaker grouped, as seed
    001 shows them (one label, several lines) and counts them (「5つの発話」 are 5 turns)."""
    out: list[SpeakerTurn] = []
    for utt in dialogue.utterances:
        lines = tuple(line.strip() for line in utt.text.splitlines() if line.strip())
        if out and out[-1].speaker == utt.speaker:
            out[-1] = SpeakerTurn(utt.speaker, out[-1].lines + lines)
        else:
            out.append(SpeakerTurn(utt.speaker, lines))
    return out


def speakers(dialogue: Dialogue) -> list[str]:
    """The distinct speakers in order of first appearance."""
    return list(dict.fromkeys(u.speaker for u in dialogue.utterances))


def check_dialogue(path: str | Path, line: int, dialogue: Dialogue) -> Dialogue:
    """``dialogue`` unless its id leaves no room for the item ids' suffix, a speaker is blank or
    it has fewer than 2 or more than 3 speakers (an :class:`InputError` naming file, line and
    field then)."""
    if len(dialogue.id) > MAX_ID_CHARS:
        expected = f"an id of at most {MAX_ID_CHARS:,} characters (item ids add a suffix)"
        raise InputError(str(path), line, "id", expected, f"{len(dialogue.id):,} characters")
    for i, utt in enumerate(dialogue.utterances):
        if not utt.speaker.strip():
            field = f"utterances[{i}].speaker"
            raise InputError(str(path), line, field, "a non-blank speaker", shown(utt.speaker))
    names = speakers(dialogue)
    if not MIN_SPEAKERS <= len(names) <= MAX_SPEAKERS:
        got = f"{len(names)} speaker(s): {', '.join(shown(n) for n in names)}"
        raise InputError(str(path), line, "utterances", "a chat of 2 or 3 speakers", got)
    return dialogue


def iter_corpus(path: str | Path) -> Iterator[Dialogue]:
    """Read and validate a corpus file (JSONL/CSV/Parquet) one dialogue at a time: the shared
    schema, non-blank speakers, 2 or 3 speakers per dialogue, unique ids. Errors name the
    file, line and field (e.g. ``utterances[3].speaker``)."""
    checked = ((n, check_dialogue(path, n, d)) for n, d in iter_records(path, Dialogue))
    return unique_ids(path, checked)


def load_corpus(path: str | Path) -> list[Dialogue]:
    """Every dialogue of ``path`` (see :func:`iter_corpus`)."""
    return list(iter_corpus(path))
