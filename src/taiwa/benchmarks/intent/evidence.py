"""What intent knows about each item (issue 43; seed 004 §2.3, §3.1): B's context sentence and
A's core sentence, the options with the gold label and the annotators' votes, each system's
answer, the option read from it and how it was read (:data:`~.parsing.HOW`), and whether the
item is context-dependent."""

from __future__ import annotations

from typing import Any

from taiwa.display.evidence import Block, TableBlock, TextBlock, Turn, TurnsBlock
from taiwa.harness.evidence import ItemEvidence, ItemMetric, ItemRows, ItemSplit

SPLIT = {True: "context-dependent", False: "context-independent"}


def record(item: Any) -> dict[str, Any]:
    """The item stage's row: the question as the dataset has it, and its context dependence
    in the whole file."""
    return {
        "group": item.group,
        "context": item.context,
        "core": item.core,
        "options": list(item.options),
        "gold": item.gold,
        "votes": list(item.votes),
        "dependent": item.dependent,
    }


def _title(item: ItemRows) -> str:
    return str(item.item.get("core", ""))


def _question(item: ItemRows) -> list[Block]:
    rec = item.item
    if not rec:
        return []
    dependent = rec.get("dependent")
    votes = ", ".join(str(v + 1) for v in rec.get("votes") or []) or "none recorded"
    where = f"group {rec.get('group')}" + (
        f", {SPLIT[dependent]}" if isinstance(dependent, bool) else ""
    )
    return [
        TurnsBlock(
            f"dialogue ({where})",
            [
                Turn("B", str(rec.get("context", "")), "context"),
                Turn("A", str(rec["core"]), "core"),
            ],
        ),
        TextBlock("annotators' votes (option numbers)", votes),
    ]


def _answers(item: ItemRows, systems: list[str]) -> list[Block]:
    options = item.item.get("options")
    if not isinstance(options, list):
        return []
    gold = item.item.get("gold")
    head = ["#", "option", "gold", *systems]
    rows, marks = [], []
    for k, option in enumerate(options):
        chosen = [s for s in systems if item.value("score", s, "choice") == k]
        cells = ["✓" if s in chosen else "" for s in systems]
        rows.append([str(k + 1), str(option), "✓" if k == gold else "", *cells])
        marks.append("gold" if k == gold else ("chosen" if chosen else ""))
    return [TableBlock("options, gold and each system's answer", head, rows, marks)]


def _parsed(item: ItemRows, system: str) -> list[Block]:
    from taiwa.benchmarks.intent.parsing import HOW

    row = item.ok("score", system)
    if row is None:
        return []
    how = str(row.get("parsed", ""))
    choice = row.get("choice")
    read = f"option {choice + 1}" if isinstance(choice, int) else "no single option (wrong)"
    return [TextBlock("answer read as", f"{read}: {HOW.get(how, how or 'not recorded')}")]


def _dependence(item: ItemRows, system: str) -> str | None:
    dependent = item.item.get("dependent", item.value("score", system, "dependent"))
    return SPLIT.get(dependent) if isinstance(dependent, bool) else None


def _across(item: ItemRows) -> list[Block]:
    return _answers(item, list(item.rows.get("score", {})))


def _imputed(item: ItemRows, system: str) -> bool:
    """An answer naming no single option, scored wrong without a choice."""
    return item.ok("score", system) is not None and item.value("score", system, "choice") is None


def _prompt(item: ItemRows) -> list[Any]:
    """The question the systems were asked: the generate stage's own messages of the item as
    recorded."""
    from taiwa.benchmarks.intent.dataset import IntentItem
    from taiwa.benchmarks.intent.prompts import messages

    rec = {k: v for k, v in item.item.items() if k != "dependent"}
    return messages(IntentItem.model_validate({**rec, "id": item.id}))


def evidence() -> ItemEvidence:
    """The declaration (see the module's docstring)."""
    return ItemEvidence(
        title=_title,
        item=_question,
        metrics=[ItemMetric("correct", "correct", "score", "correct", "higher", binary=True)],
        splits=[ItemSplit("context", "context", _dependence)],
        imputed=_imputed,
        system=_parsed,
        across=_across,
        prompt=_prompt,
        notes=[
            "imputed: the answer named no single option and is scored wrong (seed 004); "
            "'answer read as' says which reading rule decided"
        ],
    )
