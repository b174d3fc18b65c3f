"""The cohesion dataset: dialogues in the shared schema (seed 003 §3.1), one per line:
``{"id", "utterances": [{"speaker", "text", "role": "human"|"agent", "correct"?}],
"meta": {"system": NAME}}``. The agent's utterances are evaluated; ``correct`` is the optional
human label."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from taiwa.core.errors import InputError
from taiwa.core.io import iter_records, shown, unique_ids
from taiwa.core.schema import Dialogue

AGENT_ROLES = frozenset({"agent", "system"})


def iter_dialogues(path: str | Path) -> Iterator[Dialogue]:
    """Dialogue JSONL in the shared schema, one dialogue at a time; ids must be unique,
    ``meta.system`` (when given) a non-blank name."""
    return unique_ids(path, _with_system(path))


def _with_system(path: str | Path) -> Iterator[tuple[int, Dialogue]]:
    for line, d in iter_records(path, Dialogue):
        system = d.meta.get("system", "agent")
        if not isinstance(system, str) or not system.strip():
            raise InputError(
                str(path), line, "meta.system", "a non-blank system name", shown(system)
            )
        yield line, d


def load_dialogues(path: str | Path) -> list[Dialogue]:
    """Every dialogue of ``path`` (see :func:`iter_dialogues`)."""
    return list(iter_dialogues(path))


def system_of(dialogue: Dialogue) -> str:
    """The system a dialogue evaluates: ``meta.system``, else ``agent``."""
    return str(dialogue.meta.get("system", "agent"))


def with_agents(path: str | Path, dialogues: Iterable[Dialogue]) -> Iterator[Dialogue]:
    """The dialogues, streamed; when none at all has an agent utterance, an error at the end (a
    wrong role mapping would otherwise give an empty table and exit 0)."""
    seen = agents = False
    for d in dialogues:
        seen = True
        agents = agents or any(u.role in AGENT_ROLES for u in d.utterances)
        yield d
    if seen and not agents:
        raise InputError(
            str(path),
            None,
            "utterances[].role",
            "some utterances with role 'agent' (or 'system'): those are the ones evaluated",
            "no agent utterance in any dialogue",
        )
