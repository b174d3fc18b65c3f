"""Seed 001's three tasks built from a chat corpus (``taiwa build chitchat``).

Every dialogue gives items at distinct cut points (a cut falls between two speaker turns):
``per_dialogue`` single-turn items (次発話生成 for 2-speaker chats, 次話者発話生成 for
3-speaker chats: the context up to the cut, the next turn of its speaker as the reference)
and ``continuations`` continuation items (後続対話生成: the next N turns, N drawn per item
between ``min_turns`` and ``max_turns``; the seed's example asks for 5). The context is the
chat from its first message (the seed's contexts start at the greeting) and holds at least
``min_context`` turns, so that no item is cut inside the greetings. Speaker labels are drawn
per item (:mod:`.labels`).

Reproducible: each dialogue draws from its own generator seeded by ``seed`` and the dialogue
id, so a dialogue's items do not depend on the others or on their order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from taiwa.benchmarks.chitchat.corpus import SpeakerTurn, speakers, turns
from taiwa.benchmarks.chitchat.dataset import ChitchatItem, TaskType, Turn
from taiwa.benchmarks.chitchat.labels import draw_labels
from taiwa.core.schema import Dialogue

_SHORT = {"next_utterance": "next", "next_speaker": "spk", "continuation": "cont"}


@dataclass(frozen=True)
class BuildSettings:
    """How many items per dialogue and where to cut (see the module docstring)."""

    seed: int = 0
    per_dialogue: int = 2
    continuations: int = 1
    min_context: int = 6
    min_turns: int = 2
    max_turns: int = 5

    def __post_init__(self) -> None:
        if self.per_dialogue < 0 or self.continuations < 0:
            raise ValueError("items per dialogue must be 0 or more")
        if self.min_context < 1:
            raise ValueError("min_context must be at least 1 turn")
        if not 1 <= self.min_turns <= self.max_turns:
            raise ValueError(
                f"expected 1 <= min_turns <= max_turns, got {self.min_turns} and {self.max_turns}"
            )


@dataclass
class BuildResult:
    """The items, and the ids of dialogues too short for every item asked for."""

    items: list[ChitchatItem] = field(default_factory=list)
    short: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for item in self.items:
            out[item.task] = out.get(item.task, 0) + 1
        return out


def build_tasks(dialogues: Iterable[Dialogue], settings: BuildSettings) -> BuildResult:
    """The task items of every dialogue, in corpus order and by cut point within one."""
    result = BuildResult()
    for dialogue in dialogues:
        items = dialogue_items(dialogue, settings)
        if len(items) < settings.per_dialogue + settings.continuations:
            result.short.append(dialogue.id)
        result.items.extend(items)
    return result


def dialogue_items(dialogue: Dialogue, settings: BuildSettings) -> list[ChitchatItem]:
    """The items of one dialogue (fewer than asked when it has too few turns to cut)."""
    rng = random.Random(f"chitchat:{settings.seed}:{dialogue.id}")
    chat = turns(dialogue)
    people = speakers(dialogue)
    single: TaskType = "next_utterance" if len(people) == 2 else "next_speaker"
    used: set[int] = set()
    items = []
    for _ in range(settings.continuations):
        n = rng.randint(settings.min_turns, settings.max_turns)
        cuts = [c for c in range(settings.min_context, len(chat) - n + 1) if c not in used]
        if cuts:
            cut = rng.choice(cuts)
            used.add(cut)
            items.append(_item(dialogue.id, chat, people, cut, n, "continuation", rng))
    for _ in range(settings.per_dialogue):
        cuts = [c for c in range(settings.min_context, len(chat)) if c not in used]
        if cuts:
            cut = rng.choice(cuts)
            used.add(cut)
            items.append(_item(dialogue.id, chat, people, cut, 1, single, rng))
    return sorted(items, key=lambda it: it.cut or 0)


def _item(
    dialogue: str,
    chat: list[SpeakerTurn],
    people: list[str],
    cut: int,
    n: int,
    task: TaskType,
    rng: random.Random,
) -> ChitchatItem:
    target = None if task == "continuation" else chat[cut].speaker
    family, label = draw_labels(rng, people, target=target)

    def shown(part: list[SpeakerTurn]) -> list[Turn]:
        return [Turn(speaker=label[t.speaker], lines=list(t.lines)) for t in part]

    return ChitchatItem(
        id=f"{dialogue}-{_SHORT[task]}-t{cut:02d}",
        task=task,
        labels=[label[p] for p in people],
        target=None if target is None else label[target],
        n_turns=n,
        context=shown(chat[:cut]),
        reference=shown(chat[cut : cut + n]),
        dialogue=dialogue,
        cut=cut,
        family=family,
    )
