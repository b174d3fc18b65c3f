"""What cohesion knows about each dialogue (issue 43; seed 003 §2.3, §3.2): its utterances with
each agent utterance's verdict, the conditions that held and the human label where the data has
one; the cohesive word pairs that fired, each word marked in its utterance (the first word of a
pair in one colour, the second in another), and the dialogue's share of cohesive agent
utterances."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from taiwa.display.evidence import Block, Span, TableBlock, Turn, TurnsBlock, number
from taiwa.harness.evidence import ItemEvidence, ItemFlag, ItemMetric, ItemRows

AGENT_ROLES = ("agent", "system")


def record(dialogue: Any) -> dict[str, Any]:
    """The item stage's row: the dialogue's utterances as the data has them."""
    return {
        "utterances": [
            {"speaker": u.speaker, "text": u.text, "role": u.role} for u in dialogue.utterances
        ]
    }


def stems(word: str) -> list[str]:
    """``word`` (a lemma) and, for an inflecting word, its form without the last kana, which
    is how it appears in most conjugations."""
    return [word, word[:-1]] if len(word) >= 2 else [word]


def located(text: str, word: str) -> tuple[int, int] | None:
    """Where ``word`` (a lemma, or its stem) first appears in ``text``."""
    for s in stems(word):
        at = text.find(s)
        if at >= 0:
            return at, at + len(s)
    return None


def _pairs(scored: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every pair of a dialogue's rows once (each pair is listed under both utterances)."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for u in scored:
        for p in u.get("pairs") or []:
            key = (*p["between"], p["w1"], p["w2"])
            seen.setdefault(key, p)
    return sorted(seen.values(), key=lambda p: tuple(p["between"]))


def _scored(item: ItemRows) -> list[dict[str, Any]]:
    row = item.ok("score")
    return list(row.get("utterances") or []) if row else []


def _dialogue(item: ItemRows) -> list[Block]:
    utterances = list(item.item.get("utterances") or [])
    if not utterances:
        return []
    scored = {u["index"]: u for u in _scored(item)}
    marks: dict[int, list[Span]] = {}
    for p in _pairs(scored.values()):
        for k, word, mark in (
            (p["between"][0], p["w1"], "hit"),
            (p["between"][1], p["w2"], "hit2"),
        ):
            if 0 <= k < len(utterances):
                at = located(str(utterances[k]["text"]), str(word))
                if at is not None:
                    marks.setdefault(k, []).append((at[0], at[1], mark))
    turns = []
    for k, u in enumerate(utterances):
        v = scored.get(k, {})
        note = str(u.get("role", ""))
        if u.get("role") in AGENT_ROLES and v:
            verdict = "cohesive" if v.get("cohesive") else "not cohesive"
            conditions = ",".join(v.get("conditions") or [])
            note += f" · {verdict}" + (f" ({conditions})" if conditions else "")
            if "correct" in v:
                note += f" · human: {'cohesive' if v['correct'] else 'not cohesive'}"
        mark = "" if u.get("role") in AGENT_ROLES else "muted"
        turns.append(Turn(str(u.get("speaker", "")), str(u["text"]), note, marks.get(k, ()), mark))
    return [TurnsBlock("the dialogue (the words of each cohesive pair marked)", turns)]


def _pair_table(item: ItemRows, system: str) -> list[Block]:
    pairs = _pairs(_scored(item))
    if not pairs:
        return []
    rows = [
        [
            f"{p['between'][0]} ↔ {p['between'][1]}",
            str(p["w1"]),
            str(p["w2"]),
            str(p["kind"]),
            number(p.get("score")),
        ]
        for p in pairs
    ]
    return [
        TableBlock("cohesive word pairs", ["utterances", "word", "word", "kind", "score"], rows)
    ]


def _agents(item: ItemRows) -> list[dict[str, Any]]:
    return [u for u in _scored(item) if u.get("role") in AGENT_ROLES]


def _share(item: ItemRows, system: str) -> float | None:
    agents = _agents(item)
    return sum(bool(u.get("cohesive")) for u in agents) / len(agents) if agents else None


def _disagrees(item: ItemRows, system: str) -> bool:
    return any("correct" in u and bool(u["correct"]) != bool(u["cohesive"]) for u in _agents(item))


def evidence() -> ItemEvidence:
    """The declaration (see the module's docstring)."""
    return ItemEvidence(
        title=lambda item: str((item.item.get("utterances") or [{}])[0].get("text", "")),
        item=_dialogue,
        reply=None,
        metrics=[ItemMetric("share", "cohesive share", "score", "utterances", read=_share)],
        flags=[
            ItemFlag(
                "disagrees",
                "a verdict differs from the human label",
                _disagrees,
            ),
            ItemFlag("no_agent", "no agent utterance", lambda item, s: not _agents(item)),
        ],
        system=_pair_table,
    )
