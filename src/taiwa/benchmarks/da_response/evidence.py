"""What da-response knows about each item (issue 43; seed 000 §4.1–§4.3): the situation, the
user's request and the optimal reply with its gold acts and importances; per system the reply,
the acts the annotator gave it (with the sentence or rationale behind each), WLCS, and WED's
alignment drawn position by position (match, substitution, deletion: redundant, insertion:
missing) beside the breakdown the score stage recorded; in audio mode the ASR transcript and
its character error rate."""

from __future__ import annotations

from typing import Any

from taiwa.display.evidence import (
    Aligned,
    AlignmentBlock,
    Block,
    TableBlock,
    TextBlock,
    Turn,
    TurnsBlock,
    number,
)
from taiwa.harness.evidence import ItemEvidence, ItemFlag, ItemMetric, ItemRows, ItemSplit

PARTS = ("deletion", "insertion", "substitution")


def record(item: Any, mode: str = "text") -> dict[str, Any]:
    """The item stage's row: what the item view shows of the item and what the systems' prompt
    is built from (the utterance, and its audio file in audio mode)."""
    row: dict[str, Any] = {
        "background": item.scenario_context.background,
        "input": item.input.text,
        "gold_text": item.output.text,
        "gold_steps": [s.model_dump(exclude_none=True) for s in item.gold.steps],
        "mode": mode,
    }
    if item.audio is not None:
        row["audio"] = item.audio
    return row


def _steps_table(title: str, steps: list[dict[str, Any]], third: str) -> TableBlock:
    rows = [
        [str(k), str(s.get("act", "")), number(s.get("importance")), str(s.get("rationale", ""))]
        for k, s in enumerate(steps, start=1)
    ]
    return TableBlock(title, ["#", "act", "importance", third], rows)


def _item(item: ItemRows) -> list[Block]:
    rec = item.item
    if not rec:
        return []
    return [
        TextBlock("situation", str(rec.get("background", ""))),
        TurnsBlock(
            "request and optimal reply",
            [
                Turn("USER", str(rec.get("input", "")), "heard as " + str(rec.get("mode"))),
                Turn("ASSISTANT", str(rec.get("gold_text", "")), "optimal (gold)", mark="gold"),
            ],
        ),
        _steps_table("gold acts", list(rec.get("gold_steps") or []), "rationale"),
    ]


def _alignment(row: dict[str, Any]) -> AlignmentBlock | None:
    ops = row.get("alignment")
    if not isinstance(ops, list):
        return None
    pred, gold = row.get("pred_steps") or [], row.get("gold_steps") or []

    def step(steps: list[dict[str, Any]], k: Any) -> str:
        if not isinstance(k, int) or not 0 <= k < len(steps):
            return ""
        return f"{steps[k]['act']} {number(steps[k]['importance'], 2)}"

    columns = [Aligned(op, step(pred, p), step(gold, g), float(c)) for op, p, g, c in ops]
    return AlignmentBlock(
        f"WED alignment: WED {number(row.get('wed'))}, WLCS {number(row.get('wlcs'))}",
        "reply act",
        "gold act",
        columns,
        [(k, float(row.get(k) or 0.0)) for k in PARTS],
    )


def _system(item: ItemRows, system: str) -> list[Block]:
    out: list[Block] = []
    score = item.ok("score", system)
    if score is not None and score.get("transcript") is not None:
        out.append(
            TextBlock(
                f"what the system heard (ASR transcript, CER {number(score.get('cer'))})",
                str(score["transcript"]),
            )
        )
    annotated = item.ok("annotate", system)
    if annotated is not None:
        out.append(_steps_table("the reply's acts", list(annotated.get("steps") or []), "from"))
    if score is not None:
        block = _alignment(dict(score))
        if block is not None:
            out.append(block)
    return out


def _top_act(steps: Any) -> str | None:
    """The act of the heaviest step (the first of equals)."""
    if not isinstance(steps, list) or not steps:
        return None
    return str(max(steps, key=lambda s: s.get("importance", 0)).get("act"))


def _prompt(item: ItemRows) -> list[Any]:
    from taiwa.benchmarks.da_response.prompts import heard_messages

    rec = item.item
    return heard_messages(str(rec["input"]), rec.get("audio"), str(rec.get("mode", "text")))


def evidence() -> ItemEvidence:
    """The declaration (see the module's docstring)."""
    return ItemEvidence(
        title=lambda item: str(item.item.get("input", "")),
        item=_item,
        metrics=[
            ItemMetric("wed", "WED", "score", "wed", "lower"),
            ItemMetric("wlcs", "WLCS", "score", "wlcs", "higher"),
            *(ItemMetric(p, p, "score", p, "lower") for p in PARTS),
        ],
        splits=[
            ItemSplit(
                "gold_act", "gold act", lambda item, s: _top_act(item.item.get("gold_steps"))
            ),
            ItemSplit(
                "reply_act",
                "reply act",
                lambda item, s: _top_act(item.value("annotate", s, "steps")),
            ),
        ],
        flags=[
            ItemFlag(
                "no_gold_act",
                "no gold act in the reply (WLCS 0)",
                lambda item, s: item.value("score", s, "wlcs") == 0,
            )
        ],
        system=_system,
        prompt=_prompt,
        notes=[
            "WED's alignment: deletion = an act of the reply only (redundant), insertion = a "
            "gold act missing, substitution = acts of similar weight that differ (seed 000 §4.3)"
        ],
    )
