"""The cohesion dataset: dialogues in the shared schema (seed 003 §3.1), one per line:
``{"id", "utterances": [{"speaker", "text", "role": "human"|"agent", "correct"?}],
"meta": {"system": NAME}}``. The agent's utterances are evaluated; ``correct`` is the optional
human label."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from taiwa.errors import InputError
from taiwa.io import index_by_id, read_records, shown
from taiwa.schema import Dialogue

AGENT_ROLES = frozenset({"agent", "system"})


def load_dialogues(path: str | Path) -> list[Dialogue]:
    """Dialogue JSONL in the shared schema; ids must be unique, ``meta.system`` (when given)
    a non-blank name."""
    records = read_records(path, Dialogue)
    index_by_id(path, records)
    for line, d in records:
        system = d.meta.get("system", "agent")
        if not isinstance(system, str) or not system.strip():
            raise InputError(
                str(path), line, "meta.system", "a non-blank system name", shown(system)
            )
    return [d for _, d in records]


def system_of(dialogue: Dialogue) -> str:
    """The system a dialogue evaluates: ``meta.system``, else ``agent``."""
    return str(dialogue.meta.get("system", "agent"))


def without_agent(path: str | Path, dialogues: Sequence[Dialogue]) -> list[str]:
    """Ids of dialogues with no agent utterance; none at all in the file is an error (a wrong
    role mapping would otherwise give an empty table and exit 0)."""
    missing = [d.id for d in dialogues if not any(u.role in AGENT_ROLES for u in d.utterances)]
    if dialogues and len(missing) == len(dialogues):
        raise InputError(
            str(path),
            None,
            "utterances[].role",
            "some utterances with role 'agent' (or 'system'): those are the ones evaluated",
            "no agent utterance in any dialogue",
        )
    return missing
