"""What da-distribution knows about each item (issue 43; seed 002 §3, §5.2): the chat a system
answers (its history and the utterance replied to) with the previous act (from the test set's
labels or the tagger); per system the reply, the act the tagger gave it and, from a classifier,
the probability it gave that act (a low one is worth a look: the shares and DAE rest on these
tags), or why a reply stayed untagged."""

from __future__ import annotations

from typing import Any

from taiwa.display.evidence import Block, TextBlock, Turn, TurnsBlock, number
from taiwa.harness.evidence import ItemEvidence, ItemFlag, ItemMetric, ItemRows, ItemSplit


def record(item: Any) -> dict[str, Any]:
    """The item stage's row: the context as the test set has it (what the systems' prompt is
    built from) and its labels."""
    row: dict[str, Any] = item.model_dump(exclude={"id"}, exclude_none=True)
    return row


def _item(item: ItemRows) -> list[Block]:
    rec = item.item
    if not rec:
        return []
    tags = item.ok("tag") or {}
    prev = tags.get("prev_act") or rec.get("prev_act")
    source = {"labels": "test set label", "tagger": "tagged", "votes": "votes"}.get(
        str(tags.get("prev_from")), "label"
    )
    history = [str(t) for t in rec.get("history") or []]
    turns = [*history, str(rec.get("context", ""))]
    shown = [
        Turn(
            "them" if (len(turns) - 1 - k) % 2 == 0 else "replier",
            text,
            f"{prev} ({source})" if k == len(turns) - 1 and prev else "",
            mark="" if k == len(turns) - 1 else "muted",
        )
        for k, text in enumerate(turns)
    ]
    out: list[Block] = [TurnsBlock("the chat, up to the utterance replied to", shown)]
    if rec.get("reply"):
        label = f" (labelled {rec['reply_act']})" if rec.get("reply_act") else ""
        out.append(TextBlock(f"the human reply{label}", str(rec["reply"])))
    return out


def _prob(item: ItemRows, system: str) -> Any:
    probs = item.value("tag", system, "probs")
    return probs.get(system) if isinstance(probs, dict) else None


def _act(item: ItemRows, system: str) -> str | None:
    acts = item.value("tag", system, "acts")
    got = acts.get(system) if isinstance(acts, dict) else None
    return None if got is None else str(got)


def _untagged(item: ItemRows, system: str) -> str | None:
    untagged = item.value("tag", system, "untagged")
    got = untagged.get(system) if isinstance(untagged, dict) else None
    return None if got is None else str(got)


def _system(item: ItemRows, system: str) -> list[Block]:
    act, why = _act(item, system), _untagged(item, system)
    if act is not None:
        p = _prob(item, system)
        prob = f", probability {number(p)}" if p is not None else ""
        return [TextBlock("act tagged", f"{act}{prob}")]
    if why is not None:
        return [TextBlock("act tagged", f"none: {why}")]
    return []


def _prompt(item: ItemRows) -> list[Any]:
    from taiwa.benchmarks.da_distribution.prompts import context_messages

    rec = item.item
    return context_messages([str(t) for t in rec.get("history") or []], str(rec["context"]))


def evidence() -> ItemEvidence:
    """The declaration (see the module's docstring)."""
    return ItemEvidence(
        title=lambda item: str(item.item.get("context", "")),
        item=_item,
        metrics=[ItemMetric("prob", "tagger's probability", "tag", "probs", read=_prob)],
        splits=[
            ItemSplit("act", "act", _act),
            ItemSplit(
                "prev_act",
                "previous act",
                lambda item, s: item.value("tag", s, "prev_act") or item.item.get("prev_act"),
            ),
        ],
        flags=[
            ItemFlag(
                "untagged",
                "the reply has no act (no votes, or none reached 2)",
                lambda item, s: _untagged(item, s) is not None,
            )
        ],
        system=_system,
        prompt=_prompt,
    )
