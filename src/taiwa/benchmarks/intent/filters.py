"""Filter hooks of the intent builder (seed 004 §2.1–2.2): drop candidates whose intent is too
direct or whose exchange is unnatural Japanese.

A filter is any object with a ``name`` and an async ``__call__`` that takes candidates and
returns one :class:`Decision` each (:class:`CandidateFilter`). Three modes:

* ``none``: keep everything;
* ``llm``: ask the build's model (:func:`~.builder_prompts.filter_prompt`); a reply that never
  parses keeps the candidate (the annotators still see it) and is counted as unparseable;
* ``manual``: keep everything at build time and write ``review.csv`` (UTF-8 with BOM)::

      id, group, origin, context, core, intent, keep

  for a person to fill: ``keep`` 0 / no / n / drop drops the candidate's question when the
  sheets are imported; empty or 1 / yes / y / keep keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from taiwa.benchmarks.intent.build_records import Candidate
from taiwa.benchmarks.intent.build_settings import BuildSettings, ask_json, json_request
from taiwa.benchmarks.intent.builder_prompts import filter_prompt, parse_verdict
from taiwa.benchmarks.intent.sheets import read_csv_rows, write_bom_csv
from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io import shown
from taiwa.models.base import ChatModel
from taiwa.text.normalize import nfkc

MODES = ("none", "llm", "manual")

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "too_direct": {"type": "boolean"},
        "unnatural": {"type": "boolean"},
        "reason": {"type": "string"},
    },
    "required": ["too_direct", "unnatural"],
}

REVIEW_COLUMNS = ("id", "group", "origin", "context", "core", "intent", "keep")
KEEP = ("", "1", "yes", "y", "keep", "true")
DROP = ("0", "no", "n", "drop", "false")


@dataclass(frozen=True)
class Decision:
    """Keep or drop one candidate, with the reason for a drop."""

    keep: bool
    reason: str = ""
    unparseable: bool = False


class CandidateFilter(Protocol):
    """Decides on candidates, one :class:`Decision` per candidate, in order."""

    name: str

    async def __call__(self, candidates: Sequence[Candidate]) -> list[Decision]: ...


class KeepAll:
    """``none`` and ``manual`` at build time: every candidate is kept."""

    def __init__(self, name: str = "none") -> None:
        self.name = name

    async def __call__(self, candidates: Sequence[Candidate]) -> list[Decision]:
        return [Decision(True) for _ in candidates]


class LLMFilter:
    """``llm``: the model judges each candidate (too direct? unnatural?)."""

    name = "llm"

    def __init__(self, model: ChatModel, settings: BuildSettings) -> None:
        self.model, self.settings = model, settings

    async def __call__(self, candidates: Sequence[Candidate]) -> list[Decision]:
        requests = [
            json_request(
                f"filter:{c.id}",
                filter_prompt(c.context, c.core, c.intent),
                self.settings,
                VERDICT_SCHEMA,
            )
            for c in candidates
        ]
        outcomes = await ask_json(self.model, requests, parse_verdict, self.settings)
        out = []
        for outcome in outcomes:
            v = outcome.value
            if v is None:
                out.append(Decision(True, unparseable=True))
            elif v.too_direct or v.unnatural:
                words = [
                    w for w, on in (("too direct", v.too_direct), ("unnatural", v.unnatural)) if on
                ]
                out.append(Decision(False, "llm: " + " and ".join(words)))
            else:
                out.append(Decision(True))
        return out


def make_filter(mode: str, model: ChatModel, settings: BuildSettings) -> CandidateFilter:
    """The filter of ``mode`` (one of :data:`MODES`)."""
    if mode == "llm":
        return LLMFilter(model, settings)
    if mode in ("none", "manual"):
        return KeepAll(mode)
    raise TaiwaError(f"--filter must be one of {', '.join(MODES)}, got {shown(mode)}")


def write_review(path: Path, candidates: Sequence[Candidate]) -> None:
    """``manual``: the review sheet of every candidate that gives a question."""
    rows = [
        {**c.model_dump(include=set(REVIEW_COLUMNS)), "keep": ""}
        for c in candidates
        if c.dropped is None
    ]
    write_bom_csv(path, REVIEW_COLUMNS, rows)


def read_review(path: Path, ids: Sequence[str]) -> set[str]:
    """``manual``: the ids a person marked to drop in ``path``; an id that is not a question
    or a ``keep`` that is neither yes nor no is an :class:`InputError` (file, row, column)."""
    known = set(ids)
    dropped: set[str] = set()
    for row, cells in read_csv_rows(path, ("id", "keep")):
        cid = cells["id"].strip()
        if cid not in known:
            raise InputError(str(path), row, "id", "an id of questions.jsonl", shown(cid))
        mark = nfkc(cells["keep"]).strip().lower()
        if mark in DROP:
            dropped.add(cid)
        elif mark not in KEEP:
            expected = "keep: empty, 1 or yes; drop: 0 or no"
            raise InputError(str(path), row, "keep", expected, shown(cells["keep"]))
    return dropped
