"""Runs read for a report or a leaderboard, grouped by method (in the registry's order, handed
down by the CLI) and the notes for a table that joins runs over different items or made with
different settings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import TaiwaError
from taiwa.harness.run_reader import RunData

if TYPE_CHECKING:
    from taiwa.harness.method import Method


def items_text(run: RunData) -> str:
    """Which items ``run`` was on, for a message: ``20 items of items.jsonl (--limit 20)``, or
    without the parenthesis when no ``--limit`` was given."""
    name, _, limit, n = run.items
    return f"{n} items of {name}" + (f" (--limit {limit})" if limit is not None else "")


def item_sets_note(runs: Sequence[RunData]) -> str:
    """One line for a table that joins ``runs`` when they were not on the same items (another
    dataset, another ``--limit``, another number of samples); ``""`` when they were."""
    if len({r.items[1:] for r in runs}) <= 1:
        return ""
    each = "; ".join(f"{r.path.name}: {items_text(r)}" for r in runs)
    return f"note: the runs were not on the same items ({each}); compare their rows with care"


def settings_note(runs: Sequence[RunData]) -> str:
    """One line for a table that joins ``runs`` made with different settings (``--seed``,
    ``--temperature``, ``--max-tokens``, method options, helper roles): what each run used;
    ``""`` when they agree (the items are :func:`item_sets_note`'s)."""
    shown = [_settings(r) for r in runs]
    keys = [
        k for k in dict.fromkeys(k for s in shown for k in s) if len({s.get(k) for s in shown}) > 1
    ]
    if not keys:
        return ""
    each = "; ".join(
        f"{r.path.name}: " + ", ".join(s.get(k, f"{k} (unset)") for k in keys)
        for r, s in zip(runs, shown, strict=True)
    )
    return f"note: the runs differ in their settings ({each})"


def _settings(run: RunData) -> dict[str, str]:
    """The settings of ``run`` that change its numbers, as flags (key → ``--seed 1``)."""
    cfg = run.config.config
    out = {
        flag: f"{flag} {getattr(cfg, key)}"
        for key, flag in (("seed", "--seed"), ("temperature", "--temperature"),
                          ("max_tokens", "--max-tokens"))
        if getattr(cfg, key) is not None
    }  # fmt: skip
    for name, value in sorted(run.config.options.items()):
        out[f"-o {name}"] = f"-o {name}={value}"
    for name, value in sorted(run.config.roles.items()):
        out[f"--role {name}"] = f"--role {name}={value}"
    return out


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
