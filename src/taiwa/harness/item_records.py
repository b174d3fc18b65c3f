"""Each item of a finished run as the item view shows it (issue 43): its rows, read through the
run reader (:meth:`~taiwa.harness.run_reader.RunData.rows_by_item`), turned by the method's
declaration (:class:`~taiwa.harness.evidence.ItemEvidence`) into an :class:`ItemRecord`: the
item's blocks and prompt, and per system its reply, metric values, splits, states (failed,
skipped, repaired, imputed, flagged), model calls and evidence blocks. The report
(:mod:`taiwa.report.item_data`) and ``taiwa show`` (:mod:`taiwa.cli.show`) both read these.

The shared states are read from the rows alike for every method: a row with ``error`` failed
(``skipped``: because an earlier stage did), a row with ``repairs`` or more than one attempt
was repaired, and every row with ``attempts`` is a model call (attempts, cached or not,
tokens in and out, the backend's retries). A row of a stage across systems (a pairwise judge)
counts for every system of the item."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from taiwa.core.errors import TaiwaError
from taiwa.display.evidence import Block
from taiwa.harness.evidence import ITEM_STAGE, ItemEvidence, ItemRows, prompt_record
from taiwa.harness.method import REPAIRS
from taiwa.harness.run_reader import RunData


@dataclass(frozen=True)
class Call:
    """One stage's model call for an item (as its row records it)."""

    stage: str
    attempts: int
    cached: bool
    tokens_in: int | None = None
    tokens_out: int | None = None
    retries: int = 0


@dataclass
class SystemItem:
    """One system's part of an item."""

    system: str
    reply: str | None = None
    error: str | None = None
    skipped: bool = False
    repaired: bool = False
    imputed: bool = False
    flags: list[str] = field(default_factory=list)
    metrics: dict[str, float | None] = field(default_factory=dict)
    splits: dict[str, str | None] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    blocks: Sequence[Block] = ()

    @property
    def failed(self) -> bool:
        """A row of the item failed for this system (in its own stage or an earlier one)."""
        return self.error is not None

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


@dataclass
class ItemRecord:
    """One item of a run, everything the run knows of it."""

    id: str
    title: str
    blocks: Sequence[Block]
    prompt: list[tuple[str, str]]
    systems: dict[str, SystemItem]
    across: Sequence[Block] = ()
    across_calls: list[Call] = field(default_factory=list)


def _call(stage: str, row: Mapping[str, Any]) -> Call | None:
    if "attempts" not in row:
        return None
    tokens_in, tokens_out = row.get("tokens_in"), row.get("tokens_out")
    return Call(
        stage,
        int(row["attempts"]),
        bool(row.get("cached")),
        tokens_in if isinstance(tokens_in, int) else None,
        tokens_out if isinstance(tokens_out, int) else None,
        int(row.get("retries") or 0),
    )


def _repaired(row: Mapping[str, Any]) -> bool:
    return bool(row.get(REPAIRS)) or int(row.get("attempts") or 1) > 1


def _systems_of(run: RunData, rows: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[str]:
    """The systems an item has rows of, in the run's order (a method whose systems come from
    the data names each row's system in its rows)."""
    present: set[str] = set()
    for lanes in rows.values():
        for lane, row in lanes.items():
            if lane:
                present.add(lane)
            elif isinstance(row.get("system"), str) and row["system"]:
                present.add(row["system"])
    ordered = [s for s in run.systems if s in present]
    return ordered + sorted(present - set(ordered))


def _system_item(
    evidence: ItemEvidence, item: ItemRows, system: str, stages: Sequence[str]
) -> SystemItem:
    out = SystemItem(system)
    for stage in stages:
        lanes = item.rows.get(stage, {})
        row = lanes.get(system)
        if row is None:
            row = lanes.get("")
            if row is None or row.get("system", system) != system:
                continue
        if "error" in row and out.error is None:
            out.error = f"{stage}: {row['error']}" if not row.get("skipped") else str(row["error"])
            out.skipped = bool(row.get("skipped"))
        out.repaired = out.repaired or _repaired(row)
        call = _call(stage, row)
        if call is not None and system in lanes:
            out.calls.append(call)
    if evidence.reply is not None:
        stage, key = evidence.reply
        got = item.row(stage, system)
        reply = None if got is None else got.get(key)
        out.reply = None if reply is None else str(reply)
    out.metrics = {m.name: m.value(item, system) for m in evidence.metrics}
    out.splits = {s.name: s.read(item, system) for s in evidence.splits}
    out.flags = [f.code for f in evidence.flags if f.read(item, system)]
    out.imputed = bool(evidence.imputed and evidence.imputed(item, system))
    out.blocks = list(evidence.system(item, system))
    return out


def _prompt(evidence: ItemEvidence, item: ItemRows) -> list[tuple[str, str]]:
    if evidence.prompt is None or not item.item:
        return []
    return prompt_record(evidence.prompt(item))


def prompt_note(run: RunData, method: Any) -> str:
    """How the item view's prompts relate to the run's: rebuilt from each item's record with
    this taiwa's templates, which are the run's when their SHA-256 match ``config.json``'s."""
    import hashlib

    ours = {k: hashlib.sha256(v.encode()).hexdigest() for k, v in method.prompts.items()}
    theirs = dict(run.config.prompt_sha256)
    if ours == theirs:
        return "the prompt as sent: rebuilt from the item's record with the run's templates"
    changed = sorted(k for k in ours.keys() | theirs.keys() if ours.get(k) != theirs.get(k))
    return (
        "the prompt as this taiwa builds it: the run's templates differ from this version's "
        f"({', '.join(changed)}: SHA-256 in config.json)"
    )


def item_records(run: RunData, evidence: ItemEvidence) -> Iterator[ItemRecord]:
    """Every item of ``run``, in the order of its first stage file. A row the method's
    declaration cannot read (a hand-edited file) is one line naming the run's files and the
    item, never a traceback."""
    stages = [s for s in run.stages if s != ITEM_STAGE]
    for ident, rows in run.rows_by_item().items():
        recorded = rows.get(ITEM_STAGE, {}).get("", {})
        item = ItemRows(ident, recorded, {k: v for k, v in rows.items() if k != ITEM_STAGE})
        try:
            yield _record(run, evidence, item, stages)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            files = ", ".join(s.file for s in run.stages.values())
            raise TaiwaError(
                f"{run.path}: {files[:200]}: the rows of item {ident[:60]!r} are not as taiwa "
                f"wrote them ({type(exc).__name__}: {str(exc)[:120]})"
            ) from None


def _record(
    run: RunData, evidence: ItemEvidence, item: ItemRows, stages: Sequence[str]
) -> ItemRecord:
    systems = {s: _system_item(evidence, item, s, stages) for s in _systems_of(run, item.rows)}
    across_calls = [
        c
        for stage in stages
        if (row := item.rows.get(stage, {}).get("")) is not None
        and (c := _call(stage, row)) is not None
    ]
    return ItemRecord(
        item.id,
        evidence.title(item),
        list(evidence.item(item)),
        _prompt(evidence, item),
        systems,
        list(evidence.across(item)),
        across_calls,
    )
