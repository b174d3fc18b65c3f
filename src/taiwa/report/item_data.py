"""The items of a report's runs, embedded compactly for the item view (issue 43): JSON,
gzip-compressed and base64-encoded in ``<script>`` elements, decoded by the browser's own
``DecompressionStream`` (no library, no network).

Per run, what the list filters and sorts on is held in columns, one array per system (a metric's
values, the state bits, the flags and splits as indices), decoded when the page opens; what an
item shows when opened (its blocks, prompt, replies, calls, evidence) lies in compressed blocks
of :data:`CHUNK` items, each decoded only when one of its items is opened: a page of 10,000
items × 3 systems opens without decompressing or parsing any item's details.

State bits (:data:`STATE_BITS`): the system has rows for the item, failed, skipped after an
earlier failure, repaired, imputed, flagged."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from taiwa.display.evidence import block_json
from taiwa.harness.evidence import ItemEvidence
from taiwa.harness.item_records import Call, ItemRecord, SystemItem, item_records
from taiwa.harness.run_reader import RunData

STATE_BITS = {"present": 1, "failed": 2, "skipped": 4, "repaired": 8, "imputed": 16, "flagged": 32}


CHUNK = 256
"""Items per compressed block of details: opening an item decompresses and parses only its
block (about a megabyte of JSON at most), never every item's."""


@dataclass(frozen=True)
class RunItems:
    """One run's items for the page: its key in deep links (``report.html#KEY/ITEM``), the
    columns the list reads (``data``) and the items' details, :data:`CHUNK` items per block
    (each a JSON array)."""

    key: str
    data: dict[str, Any]
    chunks: list[str]


def _calls(calls: Sequence[Call]) -> list[list[Any]]:
    return [[c.stage, c.attempts, c.cached, c.tokens_in, c.tokens_out, c.retries] for c in calls]


def _state(s: SystemItem | None) -> int:
    if s is None:
        return 0
    bits = STATE_BITS["present"]
    for name in ("failed", "skipped", "repaired", "imputed", "flagged"):
        if getattr(s, name):
            bits |= STATE_BITS[name]
    return bits


def _detail(rec: ItemRecord) -> dict[str, Any]:
    systems = {
        name: {
            "reply": s.reply,
            "error": s.error,
            "calls": _calls(s.calls),
            "blocks": [block_json(b) for b in s.blocks],
        }
        for name, s in rec.systems.items()
    }
    doc = {
        "item": [block_json(b) for b in rec.blocks],
        "prompt": [list(m) for m in rec.prompt],
        "sys": systems,
        "across": [block_json(b) for b in rec.across],
        "calls": _calls(rec.across_calls),
    }
    return doc


def _dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def _packed(text: str) -> str:
    """``text`` gzip-compressed and base64-encoded (what the page's script decodes)."""
    raw = gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)
    return base64.b64encode(raw).decode("ascii")


def run_items(run: RunData, evidence: ItemEvidence, key: str, prompt_note: str = "") -> RunItems:
    """The item data of one run (see the module's docstring); ``prompt_note`` says how the
    prompts shown relate to the run's (:func:`~taiwa.harness.item_records.prompt_note`)."""
    systems = list(run.systems)
    lanes = range(len(systems))
    metrics: dict[str, list[list[float | None]]] = {
        m.name: [[] for _ in lanes] for m in evidence.metrics
    }
    splits: dict[str, list[list[int]]] = {s.name: [[] for _ in lanes] for s in evidence.splits}
    values: dict[str, dict[str, int]] = {s.name: {} for s in evidence.splits}
    codes = [f.code for f in evidence.flags]
    states: list[list[int]] = [[] for _ in lanes]
    flags: list[list[int]] = [[] for _ in lanes]
    ids: list[str] = []
    titles: list[str] = []
    details: list[dict[str, Any]] = []
    for rec in item_records(run, evidence):
        ids.append(rec.id)
        titles.append(rec.title)
        details.append(_detail(rec))
        for k, name in enumerate(systems):
            s = rec.systems.get(name)
            states[k].append(_state(s))
            flags[k].append(
                0 if s is None else sum(1 << b for b, c in enumerate(codes) if c in s.flags)
            )
            for m in evidence.metrics:
                value = None if s is None else s.metrics.get(m.name)
                metrics[m.name][k].append(None if value is None else round(value, 6))
            for sp in evidence.splits:
                group = None if s is None else s.splits.get(sp.name)
                known = values[sp.name]
                splits[sp.name][k].append(
                    -1 if group is None else known.setdefault(group, len(known))
                )
    data = {
        "key": key,
        "method": run.method,
        "path": str(run.path),
        "systems": systems,
        "metrics": [
            {"name": m.name, "label": m.label, "dir": m.direction, "binary": m.binary}
            for m in evidence.metrics
        ],
        "splits": [
            {"name": s.name, "label": s.label, "values": list(values[s.name])}
            for s in evidence.splits
        ],
        "flags": [{"code": f.code, "text": f.text} for f in evidence.flags],
        "notes": list(evidence.notes),
        "prompt_note": prompt_note,
        "ids": ids,
        "titles": titles,
        "m": metrics,
        "sp": splits,
        "st": states,
        "fl": flags,
        "chunk": CHUNK,
    }
    chunks = [_dumps(details[k : k + CHUNK]) for k in range(0, len(details), CHUNK)]
    return RunItems(key, data, chunks)


def encoded(runs: Sequence[RunItems]) -> str:
    """Every run's columns as one compressed document (by key)."""
    return _packed(_dumps({r.key: r.data for r in runs}))


def encoded_chunks(items: RunItems) -> list[str]:
    """A run's blocks of details, each compressed on its own."""
    return [_packed(c) for c in items.chunks]


def run_keys(runs: Sequence[RunData]) -> list[str]:
    """A short key per run for deep links: its directory's name, or with its parent's name
    when two runs share it (a number added if that is not enough)."""
    keys: list[str] = []
    for run in runs:
        key = run.path.name or "run"
        if key in keys:
            key = f"{run.path.parent.name}-{key}"
        base, n = key, 2
        while key in keys:
            key, n = f"{base}-{n}", n + 1
        keys.append(key.replace("/", "-").replace("#", "-"))
    return keys
