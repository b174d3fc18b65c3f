"""Per-item evidence as data (DESIGN.md, "Per-item evidence is data"; issue 43): what a method
knows about each item, declared once (``Method.evidence()`` returns an :class:`ItemEvidence`),
which the report's item view and ``taiwa show`` render through shared code
(:mod:`taiwa.harness.item_records`, :mod:`taiwa.report.item_view`,
:mod:`taiwa.display.item_console`).

Everything is read from what the run wrote: the stage rows of each item (one per system, or one
for a stage across systems) and the row of the :class:`~taiwa.harness.stages.ItemStage`
(``items.jsonl``: the item's input, context and gold as the method records them, and the
prompt the systems were asked), so a run replayed from the cache shows the same evidence. A
declaration says

- ``title``: one line naming the item in the list (its utterance, its question);
- ``item``: the blocks of the item itself (input, context, reference or gold);
- ``reply``: the stage and field of a system's reply;
- ``metrics``: the per-item numbers to filter and sort by, each with its direction (and
  ``binary`` when it is right or wrong);
- ``splits``: the method's own ways to split items (task type, context dependence, act);
- ``flags``: per-item conditions worth a look (a cut reply, an unparseable answer, a flip);
- ``imputed``: whether a system's value was given without the instrument (a forfeit);
- ``system`` and ``across``: the method's evidence blocks, per system and over all systems;
- ``prompt``: the messages the systems were asked, rebuilt from the item's record.

What is the same for every method (failed, skipped or repaired rows, the model calls: attempts,
cached or not, tokens, retries) the shared code reads itself. Blocks are
:mod:`taiwa.display.evidence`'s."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from taiwa.display.evidence import Block

Row = Mapping[str, Any]
"""A stage's row for an item, as written."""

ITEM_STAGE = "item"
"""The name of the stage that records each item (:class:`~taiwa.harness.stages.ItemStage`)."""


@dataclass(frozen=True)
class ItemRows:
    """What a run wrote about one item: the item stage's row (``item``; empty without one)
    and every other stage's rows, by stage and system (``""``: a stage across systems)."""

    id: str
    item: Mapping[str, Any]
    rows: Mapping[str, Mapping[str, Row]]

    def row(self, stage: str, system: str = "") -> Row | None:
        """The row of ``stage`` for ``system`` (or the stage's one row across systems)."""
        lanes = self.rows.get(stage)
        if not lanes:
            return None
        got = lanes.get(system)
        return got if got is not None else lanes.get("")

    def ok(self, stage: str, system: str = "") -> Row | None:
        """The row of ``stage`` for ``system`` unless it failed or was skipped."""
        got = self.row(stage, system)
        return None if got is None or "error" in got else got

    def value(self, stage: str, system: str, key: str) -> Any:
        """A field of a row that did not fail (``None``: no such row or field)."""
        got = self.ok(stage, system)
        return None if got is None else got.get(key)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    return None


@dataclass(frozen=True)
class ItemMetric:
    """A number per item and system, read from ``stage``'s ``field`` (a boolean counts 1 or 0;
    ``read``: from the item's rows otherwise, e.g. a stage across systems), with its direction;
    ``binary``: the value is right (1) or wrong (0)."""

    name: str
    label: str
    stage: str
    field: str
    direction: Literal["higher", "lower"] = "higher"
    binary: bool = False
    read: Callable[[ItemRows, str], Any] | None = None

    def value(self, item: ItemRows, system: str) -> float | None:
        if self.read is not None:
            return _number(self.read(item, system))
        return _number(item.value(self.stage, system, self.field))


@dataclass(frozen=True)
class ItemSplit:
    """A way to split items: ``read`` gives the group of an item for a system (``None``:
    none), e.g. the task type (the same for every system) or the act a reply was tagged with."""

    name: str
    label: str
    read: Callable[[ItemRows, str], str | None]


@dataclass(frozen=True)
class ItemFlag:
    """A per-item condition worth a look: ``code`` names it in filters, ``text`` says what it
    means, ``read`` whether it holds for an item and system."""

    code: str
    text: str
    read: Callable[[ItemRows, str], bool]


def _nothing(*args: Any) -> Sequence[Block]:
    return ()


def _no_title(item: ItemRows) -> str:
    return ""


@dataclass(frozen=True)
class ItemEvidence:
    """A method's per-item evidence (see the module's docstring)."""

    title: Callable[[ItemRows], str] = _no_title
    item: Callable[[ItemRows], Sequence[Block]] = _nothing
    reply: tuple[str, str] | None = ("generate", "text")
    metrics: Sequence[ItemMetric] = ()
    splits: Sequence[ItemSplit] = ()
    flags: Sequence[ItemFlag] = ()
    imputed: Callable[[ItemRows, str], bool] | None = None
    system: Callable[[ItemRows, str], Sequence[Block]] = _nothing
    across: Callable[[ItemRows], Sequence[Block]] = _nothing
    prompt: Callable[[ItemRows], Sequence[Any]] | None = None
    """The chat messages the systems were asked, rebuilt from the item's record by the
    method's own prompt code (the run's prompt templates are checked against this taiwa's by
    their SHA-256 in ``config.json``)."""
    notes: Sequence[str] = field(default_factory=tuple)
    """Lines said once above the items (how to read them)."""


def item_evidence(method: Any) -> ItemEvidence:
    """What ``method`` declares about each item (``Method.evidence()``); a method without a
    declaration shows its systems' replies and the shared states only."""
    declare = getattr(method, "evidence", None)
    return declare() if callable(declare) else ItemEvidence()


def prompt_record(messages: Sequence[Any]) -> list[tuple[str, str]]:
    """Chat messages as the item view shows them: role and text (an audio part named by its
    file, never embedded)."""
    out = []
    for m in messages:
        content = m.content
        if isinstance(content, str):
            text = content
        else:
            text = "\n".join(
                (p.text or "") if p.type == "text" else f"[{p.type}: {p.audio_path or 'inline'}]"
                for p in content
            )
        out.append((str(m.role), text))
    return out
