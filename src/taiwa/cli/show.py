"""``taiwa show RUN_DIR [ITEM_ID] [--filter ...]``: the report's item view in the terminal
(issue 43), for a run on a remote machine. Without an item: the list of the run's items,
filtered and sorted (:mod:`taiwa.harness.item_filter`), with each system's value of the metric
and its states; with one: everything the run knows of it (:mod:`taiwa.harness.item_records`),
its blocks printed by :mod:`taiwa.display.item_console` and every table fitted to the terminal
(80 columns: nothing cut, no word broken)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from taiwa.harness.evidence import ItemEvidence, ItemMetric
    from taiwa.harness.item_records import Call, ItemRecord, SystemItem

MARKS = (("failed", "✗"), ("repaired", "↻"), ("imputed", "≈"), ("flagged", "⚑"))
"""The states a list cell marks, as on the page."""

TEXT_MIN = 16
"""The narrowest the list's text column is made: with long system names (a replay's path) the
list is stacked in parts rather than the text wrapped every two characters."""


def _calls(calls: Sequence[Call]) -> list[str]:
    out = []
    for c in calls:
        tokens = "not counted" if c.tokens_in is None else f"{c.tokens_in} in / {c.tokens_out} out"
        out.append(
            f"{c.stage}: {'cached' if c.cached else 'called'}, {c.attempts} attempt(s), "
            f"tokens {tokens}, {c.retries} retries"
        )
    return out


def _value(value: float | None, binary: bool) -> str:
    """A metric's value as the list shows it (right or wrong as ✓ or ✗)."""
    from taiwa.display.evidence import number

    if binary and value is not None:
        return "✓" if value >= 1 else "✗"
    return number(value)


def _cell(s: SystemItem | None, metric: ItemMetric | None) -> str:
    if s is None:
        return ""
    value = s.metrics.get(metric.name) if metric else None
    shown = "" if metric is None else _value(value, metric.binary)
    marks = "".join(sign for state, sign in MARKS if getattr(s, state))
    return f"{shown} {marks}".strip()


def print_list(
    console: Console,
    records: Sequence[ItemRecord],
    shown: Sequence[ItemRecord],
    systems: Sequence[str],
    metric: ItemMetric | None,
    limit: int,
    pair: tuple[str, str] | None = None,
) -> None:
    """The items ``shown`` (of ``records``) as a table: id, text, each system's value."""
    from rich.table import Table

    from taiwa.display.evidence import number
    from taiwa.display.ja_wrap import Wrapped, has_wide

    what = f"{metric.label} and states" if metric else "states"
    table = Table(
        title=f"{len(shown)} of {len(records)} items: {what} (✗ failed, ↻ repaired, ≈ imputed, "
        "⚑ flagged)",
        title_justify="left",
    )
    table.add_column("item", no_wrap=True)
    table.add_column("text", min_width=TEXT_MIN)
    for s in systems:
        table.add_column(s, justify="right")
    if pair is not None and metric is not None:
        table.add_column(f"{pair[0]} − {pair[1]}", justify="right")
    for rec in shown[:limit]:
        cells = [_cell(rec.systems.get(s), metric) for s in systems]
        if pair is not None and metric is not None:
            a, b = (rec.systems.get(x) for x in pair)
            x = a.metrics.get(metric.name) if a else None
            y = b.metrics.get(metric.name) if b else None
            d = None if x is None or y is None else x - y
            cells.append(number(d))
        title = rec.title if len(rec.title) <= 60 else rec.title[:59] + "…"
        table.add_row(rec.id, Wrapped(title) if has_wide(title) else title, *cells)
    if len(shown) > limit:
        table.caption = f"the first {limit} shown (--limit)"
    console.print(table)


def print_item(
    console: Console, run: Any, rec: ItemRecord, evidence: ItemEvidence, note: str
) -> None:
    """One item: its blocks, the prompt, each system's part, the evidence across systems."""
    from rich.rule import Rule
    from rich.text import Text

    from taiwa.display.item_console import block_renderables
    from taiwa.display.ja_wrap import Wrapped

    console.print(Wrapped(f"{run.method} · {run.path} · item {rec.id}", style="bold"))
    for b in rec.blocks:
        for r in block_renderables(b):
            console.print(r)
    if rec.prompt:
        console.print(Text(f"prompt ({note})" if note else "prompt", style="bold dim"))
        for role, text in rec.prompt:
            console.print(Wrapped(Text.assemble((f"{role}: ", "bold"), text)))
    labels = {m.name: m.label for m in evidence.metrics}
    binary = {m.name for m in evidence.metrics if m.binary}
    splits = {sp.name: sp.label for sp in evidence.splits}
    texts = {f.code: f.text for f in evidence.flags}
    for name, s in rec.systems.items():
        states = [
            x for x in ("failed", "skipped", "repaired", "imputed", "flagged") if getattr(s, x)
        ]
        console.print(
            Rule(Text(name + (f" ({', '.join(states)})" if states else "")), align="left")
        )
        values = [f"{labels[k]} {_value(v, k in binary)}" for k, v in s.metrics.items()]
        values += [f"{splits[k]}: {v}" for k, v in s.splits.items() if v is not None]
        if values:
            console.print(Wrapped(" · ".join(values), style="dim"))
        if s.reply is not None:
            console.print(Wrapped(Text.assemble(("reply: ", "bold"), s.reply)))
        if s.error:
            console.print(Wrapped(f"error: {s.error}", style="red"))
        for code in s.flags:
            console.print(Wrapped(f"⚑ {texts.get(code, code)}", style="yellow"))
        for b in s.blocks:
            for r in block_renderables(b):
                console.print(r)
        for line in _calls(s.calls):
            console.print(Text(line, style="dim"))
    if rec.across or rec.across_calls:
        console.print(Rule(Text("across systems"), align="left"))
    for b in rec.across:
        for r in block_renderables(b):
            console.print(r)
    for line in _calls(rec.across_calls):
        console.print(Text(line, style="dim"))


def register(app: typer.Typer, console: Console) -> None:
    @app.command()
    def show(
        run_dir: Annotated[Path, typer.Argument(help="A finished run directory.")],
        item: Annotated[
            str | None, typer.Argument(help="An item id: everything the run knows of it.")
        ] = None,
        filters: Annotated[
            list[str] | None,
            typer.Option(
                "--filter",
                help="failed, skipped, repaired, imputed, flagged, a flag's code, METRIC>=X, "
                "SPLIT=VALUE, wrong=SYSTEM, right=SYSTEM, better=A,B (repeat: all must hold).",
            ),
        ] = None,
        system: Annotated[
            str | None, typer.Option(help="Apply the filters and the score sort to this system.")
        ] = None,
        metric: Annotated[
            str | None, typer.Option(help="The metric listed, filtered and sorted on.")
        ] = None,
        sort: Annotated[
            str, typer.Option(help="order, score or diff=A,B; :asc for lowest first.")
        ] = "order",
        limit: Annotated[
            int, typer.Option(min=1, max=1_000_000, help="Items listed at most.")
        ] = 40,
    ) -> None:
        """The items of a finished run: a filtered list, or one item with its input, replies,
        gold, the method's evidence and the model calls (the report's item view)."""
        from taiwa.benchmarks import get_method
        from taiwa.core.errors import TaiwaError
        from taiwa.harness.evidence import item_evidence
        from taiwa.harness.item_filter import selected, selection, sort_direction
        from taiwa.harness.item_records import item_records, prompt_note
        from taiwa.harness.run_reader import load_run

        run = load_run(run_dir)
        method = get_method(run.method)
        evidence = item_evidence(method)
        records = list(item_records(run, evidence))
        systems = list(run.systems)
        if item is not None:
            found = next((r for r in records if r.id == item), None)
            if found is None:
                raise TaiwaError(
                    f"{run_dir}: no item {item[:60]!r} in this run ({len(records)} items)"
                )
            note = prompt_note(run, method) if evidence.prompt is not None else ""
            print_item(console, run, found, evidence, note)
            return
        chosen = selection(
            evidence, systems, filters or [], system=system, metric=metric, sort=sort
        )
        pair = None
        word = sort_direction(sort)[0]
        if word.startswith("diff="):
            a, b = word.removeprefix("diff=").split(",")
            pair = (a, b)
        for line in evidence.notes:
            console.print(line, style="dim", highlight=False, markup=False)
        print_list(console, records, selected(records, chosen), systems, chosen.metric, limit, pair)
