"""Human rankings of the systems' replies per item, and their mean rank (seed 001, 人手評価).

Seed 001's human evaluation lists every system's output for one input and has an annotator
rank them (楽しさ, 自然さ, 文脈に沿っているか; 同率なし: ties are broken by preference); the
table reports each system's mean rank, median and variance. One ranking per line::

    {"id": "cc2-01-next-t06", "annotator": "a1", "ranks": {"gpt-4": 1, "human": 2, "eliza": 3}}

or, in CSV, one column per system: ``id,annotator,gpt-4,human,eliza``. ``id`` is a task
item, ``annotator`` who ranked, ``ranks`` system → rank, 1 the best. A ranking must be
complete and without ties: the ranks are exactly 1 … k for the k systems. Every line ranks
the same systems (those given, else those of the first line); one ranking per item and
annotator. Errors name the file, line and field.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from taiwa.core.errors import InputError
from taiwa.core.io import iter_records, shown
from taiwa.core.schema import Id, NonBlank


def _not_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("a whole-number rank, 1 the best")
    return value


Rank = Annotated[int, BeforeValidator(_not_bool), Field(ge=1)]


class Ranking(BaseModel):
    """One annotator's ranking of every system's reply to one item."""

    model_config = ConfigDict(extra="forbid")

    id: Id
    annotator: NonBlank
    ranks: dict[NonBlank, Rank] = Field(min_length=2)

    @model_validator(mode="before")
    @classmethod
    def _wide(cls, data: Any) -> Any:
        """A CSV row with one column per system becomes ``ranks``."""
        if isinstance(data, dict) and "ranks" not in data:
            ranks = {k: v for k, v in data.items() if k not in ("id", "annotator")}
            keys = {k: data[k] for k in ("id", "annotator") if k in data}
            return {**keys, "ranks": ranks}
        return data

    @field_validator("ranks")
    @classmethod
    def _permutation(cls, ranks: dict[str, int]) -> dict[str, int]:
        holders: dict[int, str] = {}
        for system, rank in ranks.items():
            if rank in holders:
                raise ValueError(
                    f"distinct ranks (no ties): rank {rank} given to {holders[rank]!r} and "
                    f"{system!r}"
                )
            holders[rank] = system
        if max(ranks.values()) != len(ranks):
            raise ValueError(f"the ranks 1 to {len(ranks)}, one per system (no gaps)")
        return ranks


def iter_rankings(
    path: str | Path,
    *,
    systems: Collection[str] | None = None,
    items: Collection[str] | None = None,
    within: Collection[str] | None = None,
) -> Iterator[Ranking]:
    """Read and check a rankings file one line at a time (see the module docstring).

    ``systems``: the systems every ranking must rank (default: those of the first line);
    ``items``: the known item ids (default: any); ``within``: the systems of a run, which
    every ranked system must be one of (the run may evaluate more)."""
    expected = set(systems) if systems is not None else None
    source = "the systems of the run" if systems is not None else ""
    seen: dict[tuple[str, str], int] = {}
    for line, rec in iter_records(path, Ranking):
        if items is not None and rec.id not in items:
            raise InputError(str(path), line, "id", "the id of a task item", shown(rec.id))
        foreign = sorted(set(rec.ranks) - set(within)) if within is not None else []
        if foreign:
            raise InputError(
                str(path),
                line,
                f"ranks.{foreign[0]}",
                f"a system of this run: {_names(within or ())}",
                shown(foreign[0]),
            )
        if expected is None:
            expected, source = set(rec.ranks), f"the systems ranked on line {line}"
        unknown = sorted(set(rec.ranks) - expected)
        if unknown:
            raise InputError(
                str(path), line, f"ranks.{unknown[0]}", f"one of {source}: {_names(expected)}"
            )
        missing = sorted(expected - set(rec.ranks))
        if missing:
            raise InputError(
                str(path),
                line,
                "ranks",
                f"a complete ranking of {source}",
                f"no rank for {_names(missing)}",
            )
        key = (rec.id, rec.annotator)
        if key in seen:
            got = f"{shown(rec.annotator)} ranked {shown(rec.id)} already on line {seen[key]}"
            raise InputError(
                str(path), line, "annotator", "one ranking per item and annotator", got
            )
        seen[key] = line
        yield rec


def _names(systems: Iterable[str], limit: int = 8) -> str:
    names = sorted(systems)
    head = ", ".join(shown(s) for s in names[:limit])
    return head + (f" … ({len(names)} systems)" if len(names) > limit else "")


def mean_ranks(rankings: Iterable[Ranking], *, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per system, best first (seed 001's 平均順位 table): ``mean_rank`` (value, 95 % bootstrap
    CI over rankings, n), ``median``, ``variance`` (sample variance, n − 1; the seed does not
    say which) and ``n`` (rankings). One pass over ``rankings``."""
    from taiwa.metrics.stats import bootstrap_ci

    ranks: dict[str, list[int]] = {}
    for rec in rankings:
        for system, rank in rec.ranks.items():
            ranks.setdefault(system, []).append(rank)
    table: dict[str, dict[str, Any]] = {
        system: {
            "mean_rank": bootstrap_ci(values, seed=seed).as_dict(),
            "median": float(statistics.median(values)),
            "variance": statistics.variance(values) if len(values) > 1 else 0.0,
            "n": len(values),
        }
        for system, values in ranks.items()
    }
    return dict(sorted(table.items(), key=lambda kv: (kv[1]["mean_rank"]["value"], kv[0])))
