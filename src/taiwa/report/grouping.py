"""Runs read for a report or a leaderboard, grouped by method (in the registry's order, handed
down by the CLI) and the note for a table that joins runs over different items."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import TaiwaError
from taiwa.harness.run_reader import RunData

if TYPE_CHECKING:
    from taiwa.harness.method import Method


def item_sets_note(runs: Sequence[RunData]) -> str:
    """One line for a table that joins ``runs`` when they were not on the same items (another
    dataset, another ``--limit``, another number of samples); ``""`` when they were."""
    if len({r.items[1:] for r in runs}) <= 1:
        return ""
    each = "; ".join(
        f"{r.path.name}: {r.items[3]} items of {r.items[0]}"
        + (f" (--limit {r.items[2]})" if r.items[2] is not None else "")
        for r in runs
    )
    return f"note: the runs were not on the same items ({each}); compare their rows with care"


def by_method(
    runs: Sequence[RunData], methods: Sequence[Method[Any]]
) -> list[tuple[Method[Any], list[RunData]]]:
    """The runs grouped by method, in the order of ``methods`` (the registry's, handed down by
    the CLI), each group in path order; a run of a method not among ``methods`` is an error."""
    known = {m.name: m for m in methods}
    groups: dict[str, list[RunData]] = {}
    for run in sorted(runs, key=lambda r: str(r.path)):
        if run.method not in known:
            names = ", ".join(known)
            raise TaiwaError(f"unknown method {run.method!r}: expected one of {names}")
        groups.setdefault(run.method, []).append(run)
    return [(m, groups[m.name]) for m in methods if m.name in groups]
