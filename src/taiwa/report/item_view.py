"""The item view of the report (issue 43): under each run, the list of its items with filters
(system, metric range, failed, repaired, imputed, flagged, the method's splits), sorting (by a
system's score, by the paired difference between two systems: "A wrong, B right") and, for
the item opened, everything the run knows of it (:mod:`taiwa.harness.item_records`).

The page stays one self-contained file: the items are embedded once, compactly
(:mod:`taiwa.report.item_data`), and drawn on demand by a few hundred lines of plain JavaScript
(``data/report/items.js``, styles in ``items.css``); ``report.html#RUN/ITEM`` opens one item."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from taiwa.display.section import Html
from taiwa.harness.evidence import item_evidence
from taiwa.harness.item_records import prompt_note
from taiwa.harness.run_reader import RunData
from taiwa.report.html import esc
from taiwa.report.item_data import RunItems, encoded, encoded_chunks, run_items


@cache
def _asset(name: str) -> str:
    return resources.files("taiwa").joinpath(f"data/report/{name}").read_text("utf-8")


def items_css() -> str:
    """The item view's styles (added to the page's)."""
    return _asset("items.css")


def run_items_of(run: RunData, method: Any, key: str) -> RunItems:
    """One run's items, read through the method's declaration (a row it cannot read is one
    line naming the run's files and the item: :func:`~taiwa.harness.item_records.item_records`)."""
    evidence = item_evidence(method)
    note = prompt_note(run, method) if evidence.prompt is not None else ""
    return run_items(run, evidence, key, note)


def items_placeholder(items: RunItems) -> Html:
    """Where a run's item view is drawn (filled by the script once the data is decoded)."""
    n = len(items.data["ids"])
    return Html(
        f'<h4 id="items-{esc(items.key)}">items ({n})</h4>'
        f'<div class="items" data-run="{esc(items.key)}">'
        '<p class="muted">the item view needs JavaScript (and a browser from 2023 or later: '
        "it decompresses the embedded items with DecompressionStream)</p></div>"
    )


def items_scripts(runs: Sequence[RunItems]) -> Html:
    """The embedded items of every run (one compressed document) and the script that draws
    them; nothing when the page has no items."""
    if not runs:
        return Html("")
    blocks = [
        f'<script type="application/octet-stream" class="taiwa-item-chunk" '
        f'data-run="{esc(r.key)}" data-chunk="{k}">{chunk}</script>'
        for r in runs
        for k, chunk in enumerate(encoded_chunks(r))
    ]
    return Html(
        f'<script type="application/octet-stream" id="taiwa-items">{encoded(runs)}</script>'
        f"{''.join(blocks)}<script>{_asset('items.js')}</script>"
    )
