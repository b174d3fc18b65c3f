"""Which items ``taiwa show`` lists and in what order (issue 43): the filters and sorts of the
report's item view, as words on the command line.

Filters (``--filter``, repeatable; an item must pass all of them):

- ``failed``, ``skipped``, ``repaired``, ``imputed``, ``flagged``, or a flag's code (``flip``);
- ``METRIC>=X`` (also ``>``, ``<=``, ``<``, ``=``), e.g. ``wed>=0.5``, ``correct=0``;
- ``SPLIT=VALUE``, e.g. ``task=continuation``;
- ``wrong=SYSTEM``, ``right=SYSTEM`` (the metric is right or wrong: 0 or 1): ``wrong=A`` with
  ``right=B`` lists the items A gets wrong and B right;
- ``better=A,B``: A's value beats B's (by the metric's direction).

The conditions on states, metrics, splits and flags hold for one system (``--system``), or for
some system when none is named; ``wrong``, ``right`` and ``better`` name theirs. ``--metric``
picks the metric of those and of the sorting (default: the method's first). Sorting
(``--sort``): ``order`` (as in the run), ``score`` (the system's value, highest first) or
``diff=A,B`` (the paired difference, A's advantage first); ``:asc`` reverses."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from taiwa.core.errors import TaiwaError
from taiwa.harness.evidence import ItemEvidence, ItemMetric
from taiwa.harness.item_records import ItemRecord, SystemItem

STATES = ("failed", "skipped", "repaired", "imputed", "flagged")
_COMPARISON = re.compile(r"^([\w.-]+)\s*(>=|<=|>|<|=)\s*(-?[0-9]+(?:\.[0-9]+)?)$")
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    "=": lambda a, b: a == b,
}

Test = Callable[[ItemRecord], bool]
PerSystem = Callable[[SystemItem], bool]


@dataclass(frozen=True)
class Selection:
    """What to list: the conditions, the metric and the order."""

    tests: Sequence[Test]
    metric: ItemMetric | None
    key: Callable[[ItemRecord], float | None] | None = None
    ascending: bool = False


def _metric(evidence: ItemEvidence, name: str | None) -> ItemMetric | None:
    if name is None:
        return evidence.metrics[0] if evidence.metrics else None
    for m in evidence.metrics:
        if m.name == name:
            return m
    known = ", ".join(m.name for m in evidence.metrics) or "none"
    raise TaiwaError(f"--metric {name[:60]!r}: not a per-item metric of this method ({known})")


def _system(systems: Sequence[str], name: str, what: str) -> str:
    if name not in systems:
        raise TaiwaError(
            f"{what[:80]}: {name[:60]!r} is not a system of the run ({', '.join(systems)})"
        )
    return name


def _value(rec: ItemRecord, system: str, metric: ItemMetric) -> float | None:
    s = rec.systems.get(system)
    return None if s is None else s.metrics.get(metric.name)


def _signed(metric: ItemMetric, a: float, b: float) -> float:
    return (a - b) if metric.direction == "higher" else (b - a)


def _needs(metric: ItemMetric | None, word: str) -> ItemMetric:
    if metric is None:
        raise TaiwaError(f"{word[:80]}: this method declares no per-item metric")
    return metric


def _per_system(word: str, evidence: ItemEvidence) -> PerSystem | None:
    """A condition on one system's part of an item, or ``None`` when ``word`` is none."""
    if word in STATES:
        return lambda s: bool(getattr(s, word))
    if word in {f.code for f in evidence.flags}:
        return lambda s: word in s.flags
    found = _COMPARISON.match(word)
    if found and found.group(1) in {m.name for m in evidence.metrics}:
        name, op, bound = found.group(1), found.group(2), float(found.group(3))

        def holds(s: SystemItem) -> bool:
            v = s.metrics.get(name)
            return v is not None and _OPS[op](v, bound)

        return holds
    if "=" in word:
        name, _, value = word.partition("=")
        if name in {s.name for s in evidence.splits}:
            return lambda s: s.splits.get(name) == value
    return None


def selection(
    evidence: ItemEvidence,
    systems: Sequence[str],
    filters: Sequence[str],
    *,
    system: str | None = None,
    metric: str | None = None,
    sort: str = "order",
) -> Selection:
    """The filters, metric and order of ``taiwa show`` (see the module's docstring); a word
    it cannot read is a one-line error saying what it can."""
    chosen = _metric(evidence, metric)
    lanes = [_system(systems, system, "--system")] if system is not None else list(systems)
    tests: list[Test] = []
    for word in filters:
        cond = _per_system(word, evidence)
        if cond is not None:
            tests.append(
                lambda r, c=cond: any(c(r.systems[s]) for s in lanes if s in r.systems)  # type: ignore[misc]
            )
            continue
        name, _, arg = word.partition("=")
        if name in ("wrong", "right") and arg:
            m = _needs(chosen, f"--filter {word}")
            if not m.binary:
                raise TaiwaError(
                    f"--filter {word[:60]!r}: {m.name} is not right or wrong; use {m.name}<X"
                )
            want = 0.0 if name == "wrong" else 1.0
            who = _system(systems, arg, f"--filter {word}")
            tests.append(lambda r, w=who, v=want, m=m: _value(r, w, m) == v)  # type: ignore[misc]
            continue
        if name == "better" and arg.count(",") == 1:
            m = _needs(chosen, f"--filter {word}")
            a, b = (_system(systems, x, f"--filter {word}") for x in arg.split(","))
            tests.append(lambda r, a=a, b=b, m=m: _better(r, m, a, b))  # type: ignore[misc]
            continue
        splits = ", ".join(s.name for s in evidence.splits) or "none"
        flags = ", ".join(f.code for f in evidence.flags) or "none"
        raise TaiwaError(
            f"--filter {word[:60]!r}: expected one of {', '.join(STATES)}, a flag ({flags}), "
            f"METRIC>=X, SPLIT=VALUE (splits: {splits}), wrong=SYSTEM, right=SYSTEM or better=A,B"
        )
    return Selection(tests, chosen, *_order(sort, chosen, systems, lanes))


def _better(rec: ItemRecord, metric: ItemMetric, a: str, b: str) -> bool:
    x, y = _value(rec, a, metric), _value(rec, b, metric)
    return x is not None and y is not None and _signed(metric, x, y) > 0


def sort_direction(sort: str) -> tuple[str, str]:
    """``--sort``'s words: ``diff=A,B:asc`` → (``diff=A,B``, ``asc``); system names may hold
    colons (``builtin:parrot``), so only a last ``:asc`` or ``:desc`` is a direction."""
    for direction in ("asc", "desc"):
        if sort.endswith(":" + direction):
            return sort[: -len(direction) - 1], direction
    return sort, "desc"


def _order(
    sort: str, metric: ItemMetric | None, systems: Sequence[str], lanes: Sequence[str]
) -> tuple[Callable[[ItemRecord], float | None] | None, bool]:
    word, direction = sort_direction(sort)
    ascending = direction == "asc"
    if word == "order":
        return None, False
    m = _needs(metric, f"--sort {sort}")
    if word == "score":
        first = lanes[0]
        return (lambda r: _value(r, first, m)), ascending
    name, _, arg = word.partition("=")
    if name == "diff" and arg.count(",") == 1:
        a, b = (_system(systems, x, f"--sort {sort}") for x in arg.split(","))

        def key(r: ItemRecord) -> float | None:
            x, y = _value(r, a, m), _value(r, b, m)
            return None if x is None or y is None else _signed(m, x, y)

        return key, ascending
    raise TaiwaError(
        f"--sort {sort[:60]!r}: expected order, score or diff=A,B (then :asc or :desc)"
    )


def selected(records: Sequence[ItemRecord], chosen: Selection) -> list[ItemRecord]:
    """The records that pass every condition, in the chosen order (items without a value
    last, in the run's order)."""
    kept = [r for r in records if all(t(r) for t in chosen.tests)]
    if chosen.key is None:
        return kept
    key = chosen.key
    valued = [r for r in kept if key(r) is not None]
    valued.sort(key=lambda r: key(r) or 0.0, reverse=not chosen.ascending)
    return valued + [r for r in kept if key(r) is None]
