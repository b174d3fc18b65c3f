"""Annotation sheets of the intent benchmark: export (step 4) and import with the 2-of-3 rule
(step 5, seed 004 §2.3).

Every annotator gets one CSV file, ``annotator1.csv`` …, UTF-8 with a BOM (so that Excel shows
the Japanese), one row per question::

    id, question, option1, …, option4, answer

``question`` is the seed's question text, the one the models get
(:func:`~taiwa.benchmarks.intent.prompts.question_text`: §2.3, 以下の対話文を読んで…
【対話文】 B: … A: … 【質問】 … 【選択肢】 with the options numbered); ``answer`` is left
empty for the number of the chosen option (1 … k). The annotators work independently (§2.3:
3 per item).

On import every sheet must answer every question exactly once with an option number; anything
else is an :class:`~taiwa.core.errors.InputError` naming the file, the row (as a spreadsheet shows
it: the header is row 1) and the column. The gold label is the option chosen by 2 or more of
the 3 annotators (:func:`aggregate`); items whose annotators all differ are excluded, counted.
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from taiwa.benchmarks.intent.build_records import MAX_OPTIONS, Question
from taiwa.benchmarks.intent.dataset import IntentItem
from taiwa.benchmarks.intent.prompts import question_text
from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io import CSV_FIELD_CHARS, atomic_open, decoded_lines, require_file, shown
from taiwa.text.normalize import nfkc

ANNOTATORS = 3
"""Annotators per item (seed 004 §2.3)."""


def sheet_name(k: int) -> str:
    """The file of annotator ``k`` (1-based)."""
    return f"annotator{k}.csv"


def write_bom_csv(path: Path, header: Sequence[str], rows: Sequence[Mapping[str, object]]) -> None:
    """``rows`` as CSV with a UTF-8 BOM, atomically (Excel reads such files as UTF-8)."""
    with atomic_open(path) as fh:
        fh.write("\ufeff")
        writer = csv.DictWriter(fh, fieldnames=list(header))
        writer.writeheader()
        writer.writerows(rows)


def read_csv_rows(path: Path, required: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """``(spreadsheet row, cells)`` of a CSV file (BOM or not; the header is row 1); a missing
    ``required`` column is an :class:`InputError` naming it."""
    require_file(path)
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_CHARS))
    reader = csv.reader(decoded_lines(path))
    try:
        header = [h.strip() for h in next(reader, [])]
        for column in required:
            if column not in header:
                raise InputError(str(path), 1, column, f"a column {column!r} in the header")
        for number, cells in enumerate(reader, start=2):
            if any(c.strip() for c in cells):
                yield (
                    number,
                    {h: (cells[i] if i < len(cells) else "") for i, h in enumerate(header)},
                )
    except csv.Error as exc:
        raise InputError(str(path), reader.line_num, None, "valid CSV", str(exc)) from None


def write_sheets(directory: Path, questions: Sequence[Question], annotators: int) -> list[Path]:
    """Step 4: one sheet per annotator in ``directory`` (every sheet holds every question)."""
    width = max((len(q.options) for q in questions), default=MAX_OPTIONS)
    header = ["id", "question", *(f"option{k}" for k in range(1, width + 1)), "answer"]
    rows = [
        {
            "id": q.id,
            "question": question_text(q.context, q.core, q.options),
            **{f"option{k}": o for k, o in enumerate(q.options, start=1)},
            "answer": "",
        }
        for q in questions
    ]
    paths = [directory / sheet_name(k) for k in range(1, annotators + 1)]
    for path in paths:
        write_bom_csv(path, header, rows)
    return paths


def read_sheets(
    directory: Path, questions: Sequence[Question], annotators: int
) -> dict[str, list[int]]:
    """Step 5: every question's votes (option indices, 0-based, in annotator order) from the
    ``annotators`` filled sheets in ``directory``."""
    found = sorted(p.name for p in directory.glob("annotator*.csv")) if directory.is_dir() else []
    wanted = [sheet_name(k) for k in range(1, annotators + 1)]
    if sorted(found) != sorted(wanted):
        raise TaiwaError(
            f"{directory}: expected the {annotators} sheets {', '.join(wanted)}, found "
            + (", ".join(found) if found else "none")
        )
    votes: dict[str, list[int]] = {q.id: [] for q in questions}
    for name in wanted:
        for qid, vote in read_sheet(directory / name, questions).items():
            votes[qid].append(vote)
    return votes


def read_sheet(path: Path, questions: Sequence[Question]) -> dict[str, int]:
    """One filled sheet: question id → the chosen option's index (0-based)."""
    by_id = {q.id: q for q in questions}
    rows: dict[str, tuple[int, int]] = {}
    for row, cells in read_csv_rows(path, ("id", "answer")):
        qid = cells["id"].strip()
        if qid not in by_id:
            raise InputError(str(path), row, "id", "an id of questions.jsonl", shown(qid))
        if qid in rows:
            got = f"{shown(qid)} again (first in row {rows[qid][0]})"
            raise InputError(str(path), row, "id", "each question once", got)
        rows[qid] = (row, _answer(path, row, cells["answer"], len(by_id[qid].options)))
    missing = [q for q in by_id if q not in rows]
    if missing:
        got = (
            f"{len(missing)} missing: "
            + ", ".join(missing[:3])
            + (" …" if len(missing) > 3 else "")
        )
        raise InputError(str(path), None, "id", "a row for every question", got)
    return {qid: vote for qid, (_, vote) in rows.items()}


def _answer(path: Path, row: int, cell: str, k: int) -> int:
    text = nfkc(cell).strip()
    expected = f"the number of the chosen option, 1 to {k}"
    if not text:
        raise InputError(str(path), row, "answer", expected, "an empty cell")
    if not text.isdigit() or not 1 <= int(text) <= k:
        raise InputError(str(path), row, "answer", expected, shown(cell))
    return int(text) - 1


def aggregate(votes: Sequence[int]) -> int | None:
    """The gold label of one item (seed 004 §2.3): the choice made by 2 or more annotators,
    ``None`` when all differ. With more than 3 annotators the most frequent choice wins when
    2 or more made it and no other choice was made as often (a tie is ``None``)."""
    ranked = Counter(votes).most_common(2)
    if not ranked or ranked[0][1] < 2:
        return None
    if len(ranked) == 2 and ranked[1][1] == ranked[0][1]:
        return None
    return ranked[0][0]


@dataclass
class Aggregated:
    """The benchmark items (not yet shuffled) and the ids of the excluded questions."""

    items: list[IntentItem] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)


def aggregate_items(
    questions: Sequence[Question], votes: Mapping[str, Sequence[int]]
) -> Aggregated:
    """Step 5: an :class:`IntentItem` with its gold label and votes for every question the
    annotators agree on (:func:`aggregate`); the others are excluded (their ids listed)."""
    out = Aggregated()
    for q in questions:
        gold = aggregate(votes[q.id])
        if gold is None:
            out.excluded.append(q.id)
            continue
        out.items.append(
            IntentItem(
                id=q.id,
                group=q.group,
                context=q.context,
                core=q.core,
                options=q.options,
                gold=gold,
                votes=list(votes[q.id]),
                source=q.source,
            )
        )
    return out
