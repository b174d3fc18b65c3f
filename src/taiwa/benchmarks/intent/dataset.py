"""The intent benchmark item (seed 004 §2): speaker B's context sentence, speaker A's core
sentence, the implied-intent options and the gold label.

One JSON object per line (JSONL, or CSV / Parquet with the same columns)::

    {"id": "it-001", "group": "g18", "context": "こちらのお部屋、いかがでしょうか？",
     "core": "ここ、日当たりがいいですね",
     "options": ["この部屋を気に入った", "夏は暑くて大変そうだ", "鉢植えはここに置くとよい",
                 "該当なし"],
     "gold": 0, "votes": [0, 0, 0], "source": "taiwa-original"}

``group`` names the core sentence: the items of one group share ``core`` and ``options`` (the
intents written for each of its contexts, seed 004 §2.2, then 「該当なし」). ``gold`` indexes
``options`` (adopted when 2 of the 3 annotators agree, §2.3); ``votes`` are the annotators'
choices (indices). An item is context-dependent when its group has 2 or more distinct gold
labels (§3.1).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from taiwa.core.io import InputError, check_id, iter_records
from taiwa.core.schema import Id, NonBlank

NONE_OF_THESE = "該当なし"
"""The last option of every question (seed 004 §2.3)."""


class QuestionBase(BaseModel):
    """What every question has, before and after annotation: B's context sentence, A's core
    sentence and the options (unique) of its group."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Id
    group: NonBlank
    context: NonBlank
    core: NonBlank
    options: list[NonBlank] = Field(min_length=2, max_length=26)
    source: str = ""

    @model_validator(mode="after")
    def _distinct_options(self) -> QuestionBase:
        if len(set(self.options)) != len(self.options):
            raise ValueError("options repeat")
        return self

    def _check_index(self, name: str, value: int) -> None:
        if value >= len(self.options):
            raise ValueError(f"{name} {value} is not an index of the {len(self.options)} options")


class IntentItem(QuestionBase):
    """One question of the benchmark (see the module docstring)."""

    gold: int = Field(ge=0)
    votes: list[int] = Field(default_factory=list)

    __slots__ = ("_dependent",)
    # A slot set by the read, not a pydantic PrivateAttr: a private attribute is initialised
    # on every validation, 15 ms of the 10,000-item pass before the first request (issue 29).
    # A copy of the item (model_copy, pickle) does not carry it: it belongs to the read.

    @property
    def dependent(self) -> bool | None:
        """Whether the item's group is context-dependent in the whole file it was read from
        (set by :func:`read_with_dependence`; ``None`` when read otherwise)."""
        return getattr(self, "_dependent", None)

    @model_validator(mode="after")
    def _indices_in_options(self) -> IntentItem:
        self._check_index("gold", self.gold)
        bad = [v for v in self.votes if not 0 <= v < len(self.options)]
        if bad:
            raise ValueError(f"votes {bad} are not indices of the {len(self.options)} options")
        return self


def iter_items(path: str | Path) -> Iterator[IntentItem]:
    """The items of ``path``, streamed; ids unique; the items of one group share its core
    sentence (only each group's core and first line are kept)."""
    seen: dict[str, int] = {}
    cores: dict[str, tuple[str, int]] = {}
    for line, item in iter_records(path, IntentItem):
        check_id(path, line, item.id, seen)
        core, first = cores.setdefault(item.group, (item.core, line))
        if core != item.core:
            raise InputError(
                str(path),
                line,
                "core",
                f"the core sentence of group {item.group!r} (line {first})",
                item.core[:60],
            )
        yield item


KEPT_ITEMS = 10_000
"""Items the dependence pass keeps (about 2 KB each) so that they are not read and validated
again: a benchmark of this size costs one pass before the first request, not two."""


def read_with_dependence(path: str | Path) -> list[IntentItem] | Iterator[IntentItem]:
    """The items of ``path``, each knowing whether its group is context-dependent in the
    whole file (a first pass reads every group's gold labels), so that a run on the first
    items (``--limit``) splits them as the full benchmark does (seed 004 §3.1). Up to
    :data:`KEPT_ITEMS` items the first pass's items are returned, as a list (the runner keeps
    it and reads the file no more); a larger file is read again, streamed, so memory stays
    bounded."""
    kept: list[IntentItem] | None = []
    golds: dict[str, set[str]] = {}
    for it in iter_items(path):  # one loop, no layer per item: this pass is on the way to
        # the first request (issue 29)
        golds.setdefault(it.group, set()).add(it.options[it.gold])
        if kept is not None:
            kept.append(it)
            if len(kept) > KEPT_ITEMS:
                kept = None
    dependent = _dependent(golds)
    if kept is not None:
        for item in kept:
            _mark(item, item.group in dependent)
        return kept
    return _marked(iter_items(path), dependent)


def _marked(items: Iterable[IntentItem], dependent: set[str]) -> Iterator[IntentItem]:
    for item in items:
        _mark(item, item.group in dependent)
        yield item


def _mark(item: IntentItem, dependent: bool) -> None:
    """Set the item's :attr:`~IntentItem.dependent` (its slot: the model is frozen)."""
    object.__setattr__(item, "_dependent", dependent)


def dependent_groups(items: Iterable[IntentItem]) -> set[str]:
    """Groups whose items have 2 or more distinct gold labels (seed 004 §3.1: 文脈依存事例)."""
    golds: dict[str, set[str]] = {}
    for it in items:
        golds.setdefault(it.group, set()).add(it.options[it.gold])
    return _dependent(golds)


def _dependent(golds: dict[str, set[str]]) -> set[str]:
    """The groups of ``golds`` (each group's distinct gold labels) with 2 or more."""
    return {g for g, labels in golds.items() if len(labels) >= 2}
