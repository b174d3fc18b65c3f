"""What chitchat knows about each item (issue 43; seed 001): the chat so far and its real
continuation (the reference), the task; per system the raw output, the reply the seed's regex
post-processing cut out of it (or why it could not), ROUGE-1/2/L against the reference and
the single judge's rating with its judgment; over the systems, the pairwise judge's verdicts in
both orders (each order's raw verdict and whom it names), the outcome, and the pairs whose
verdict flipped when the order was swapped, marked."""

from __future__ import annotations

from typing import Any

from taiwa.display.evidence import Block, TableBlock, TextBlock, Turn, TurnsBlock, number
from taiwa.harness.evidence import ItemEvidence, ItemFlag, ItemMetric, ItemRows, ItemSplit

ROUGE = ("rougeL", "rouge1", "rouge2")


def record(item: Any) -> dict[str, Any]:
    """The item stage's row: the task item as the dataset has it (the chat, the reference,
    the task and its speakers), from which the systems' prompt is built; ``cut`` (where the
    chat was cut) as ``cut_turn``."""
    row: dict[str, Any] = item.model_dump(exclude={"id"}, exclude_none=True)
    if "cut" in row:  # where the chat was cut; a stage row's ``cut`` says a reply was cut
        row["cut_turn"] = row.pop("cut")
    return row


def _turns(turns: Any) -> list[tuple[str, str]]:
    return [(str(t["speaker"]), "\n".join(t["lines"])) for t in turns or []]


def _title(item: ItemRows) -> str:
    context = _turns(item.item.get("context"))
    return f"{context[-1][0]}: {context[-1][1]}".replace("\n", " ") if context else ""


def _item(item: ItemRows) -> list[Block]:
    from taiwa.benchmarks.chitchat.dataset import TASK_TITLES

    rec = item.item
    if not rec:
        return []
    task = str(rec.get("task", ""))
    target = f", as {rec['target']}" if rec.get("target") else ""
    what = f"{task} ({TASK_TITLES.get(task, '')}{target}, {rec.get('n_turns', 1)} turn(s))"
    return [
        TextBlock("task", what),
        TurnsBlock("the chat so far", [Turn(w, t) for w, t in _turns(rec.get("context"))]),
        TurnsBlock(
            "reference (the real continuation)",
            [Turn(w, t, "reference", mark="gold") for w, t in _turns(rec.get("reference"))],
        ),
    ]


def _system(item: ItemRows, system: str) -> list[Block]:
    out: list[Block] = []
    extract = item.ok("extract", system)
    if extract is not None:
        if extract.get("extracted"):
            cut = " (cut to the turns asked for)" if extract.get("cut") else ""
            title = f"reply as extracted: {extract.get('turns')} turn(s){cut}"
            reply = str(extract.get("reply", ""))
            raw = item.value("generate", system, "text")
            if reply == raw:
                title += ", the output as it stands"
            out.append(TextBlock(title, "" if reply == raw else reply))
        else:
            out.append(TextBlock("no reply extracted", str(extract.get("extraction_error"))))
    single = item.ok("single_judge", system)
    if single is not None:
        if single.get("missing"):
            text = "no reply to judge: the lowest rating, given without the judge"
        else:
            text = str(single.get("judgment") or "")
        out.append(TextBlock(f"single judge: rating {number(single.get('rating'))}", text))
    return out


def _named(verdict: Any, first: str, second: str) -> str:
    """Whom a verdict names, in an order where ``first`` was shown as A."""
    if verdict is None:
        return "–"
    return {"A": first, "B": second, "C": "tie"}.get(str(verdict), str(verdict))


def _pairs(item: ItemRows) -> list[Block]:
    row = item.ok("pairwise_judge")
    if row is None:
        return []
    head = ["A", "B", "A shown first", "B shown first", "outcome", "flipped", "basis"]
    rows, marks, reasons, reason_marks = [], [], [], []
    for p in row.get("pairs") or []:
        a, b = str(p["a"]), str(p["b"])
        v1, v2 = [*(p.get("verdicts") or []), None, None][:2]
        flipped = p.get("flipped")
        winner = p.get("winner") or ("tie" if p.get("outcome") == "tie" else p.get("outcome"))
        rows.append(
            [
                a,
                b,
                f"[[{v1}]] → {_named(v1, a, b)}" if v1 else "–",
                f"[[{v2}]] → {_named(v2, b, a)}" if v2 else "–",
                str(winner),
                "–" if flipped is None else ("flipped" if flipped else "no"),
                str(p.get("basis", "")),
            ]
        )
        marks.append("flip" if flipped else "")
        for shown, judgment in zip((a, b), p.get("judgments") or [], strict=False):
            if judgment:
                reasons.append([f"{a} vs {b}", f"{shown} first", str(judgment)])
                reason_marks.append("flip" if flipped else "")
    out: list[Block] = [
        TableBlock(
            "pairwise judge, both orders",
            head,
            rows,
            marks,
            "a flip: the verdict changed when the order was swapped (scored a tie)",
        )
    ]
    if reasons:
        out.append(
            TableBlock(
                "the judge's judgments", ["pair", "order", "judgment"], reasons, reason_marks
            )
        )
    return out


def _flipped(item: ItemRows, system: str) -> bool:
    row = item.ok("pairwise_judge")
    return row is not None and any(
        p.get("flipped") and system in (p.get("a"), p.get("b")) for p in row.get("pairs") or []
    )


def _prompt(item: ItemRows) -> list[Any]:
    from taiwa.benchmarks.chitchat.dataset import ChitchatItem
    from taiwa.benchmarks.chitchat.prompts import chat_messages

    rec = {k: v for k, v in item.item.items() if k != "cut_turn"}
    return chat_messages(ChitchatItem.model_validate({**rec, "id": item.id}))


def evidence() -> ItemEvidence:
    """The declaration (see the module's docstring)."""
    return ItemEvidence(
        title=_title,
        item=_item,
        metrics=[
            *(ItemMetric(k, k.replace("rouge", "ROUGE-"), "extract", k) for k in ROUGE),
            ItemMetric("rating", "judge 1-10", "single_judge", "rating"),
        ],
        splits=[ItemSplit("task", "task", lambda item, s: item.item.get("task"))],
        flags=[
            ItemFlag(
                "unextracted",
                "no reply could be cut out of the output (scored 0)",
                lambda item, s: item.value("extract", s, "extracted") is False,
            ),
            ItemFlag(
                "cut",
                "the reply ran past the turns asked for and was cut",
                lambda item, s: bool(item.value("extract", s, "cut")),
            ),
            ItemFlag("flip", "a pairwise verdict flipped with the order", _flipped),
        ],
        imputed=lambda item, s: bool(item.value("single_judge", s, "missing")),
        system=_system,
        across=_pairs,
        prompt=_prompt,
        notes=[
            "imputed: no reply to judge, so the single judge's lowest rating was given without "
            "it; a pair with such a reply is decided without the judge (basis: missing)"
        ],
    )
