"""Human dialogue-act labels from crowd votes, aggregated as seed 002 §3.3.

Seed 002 §3.3 shows each dialogue to 5 crowd workers, who select *every* act that applies to
its last utterance; an act is adopted when it has at least 2 votes and the most votes, and
when several acts qualify one of them is chosen at random (App. A does the same for the
opinion sub-types). :func:`load_votes` reads the votes, :func:`aggregate_votes` applies the
rule.

Vote files are JSONL (or CSV / Parquet with the same fields; CSV cells holding JSON), one
object per line, in either of two forms, which may be mixed across utterances:

- one annotator's ballot: ``{"id": "u1", "annotator": "w3", "acts": ["意見", "質問"]}``;
  an utterance has one line per annotator. ``acts`` is a non-empty list, each act once.
- an utterance's tally: ``{"id": "u1", "votes": {"意見": 3, "質問": 2}}``; counts are
  whole numbers >= 0 (at least one above 0), one line per utterance.

Acts are validated against a taxonomy (``chitchat11`` or a custom one, see
:func:`taiwa.core.taxonomies.load_taxonomy`) and may be written as the act's name, ``ja`` or ``en``
alias; they are stored under the canonical name. Anything else (a line that is not JSON, a
missing or extra field, an unknown act, an empty vote list, an annotator voting twice on one
utterance, an utterance given both as ballots and as a tally) is one :class:`InputError`
naming the file, the line and the field.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taiwa.core.io import InputError, iter_rows, shown
from taiwa.core.schema import Taxonomy
from taiwa.core.taxonomies import load_taxonomy

MIN_VOTES = 2
"""Votes an act needs to be adopted (seed 002 §3.3: 2 of 5 annotators)."""


@dataclass
class UtteranceVotes:
    """The votes cast on one utterance: act (canonical name) → number of annotators."""

    id: str
    line: int
    """The line the utterance first appears on."""
    counts: dict[str, int] = field(default_factory=dict)
    annotators: set[str] | None = None
    """Who voted (ballot form); ``None`` for a tally line."""


def load_votes(path: str | Path, taxonomy: Taxonomy | str = "chitchat11") -> list[UtteranceVotes]:
    """Every utterance's votes in ``path`` (format: the module docstring), in order of first
    appearance, acts validated against ``taxonomy`` (a :class:`Taxonomy`, a built-in name or a
    YAML path)."""
    tax = taxonomy if isinstance(taxonomy, Taxonomy) else load_taxonomy(taxonomy)
    src = str(path)
    items: dict[str, UtteranceVotes] = {}
    for number, raw in iter_rows(path):
        uid = _key(src, number, raw, "id")
        if "votes" in raw and "acts" in raw:
            raise InputError(src, number, "votes", "either 'acts' (a ballot) or 'votes' (a tally)")
        if "votes" in raw:
            _check_keys(src, number, raw, {"id", "votes"})
            if uid in items:
                raise InputError(
                    src, number, "id", "one tally line per utterance, not mixed with ballots",
                    f"{shown(uid)} already on line {items[uid].line}",
                )  # fmt: skip
            items[uid] = UtteranceVotes(uid, number, _tally(src, number, raw["votes"], tax))
        elif "acts" in raw:
            _check_keys(src, number, raw, {"id", "annotator", "acts"})
            annotator = _key(src, number, raw, "annotator")
            acts = _ballot(src, number, raw["acts"], tax)
            item = items.setdefault(uid, UtteranceVotes(uid, number, annotators=set()))
            if item.annotators is None:
                raise InputError(
                    src, number, "id", "one tally line per utterance, not mixed with ballots",
                    f"{shown(uid)} has a tally on line {item.line}",
                )  # fmt: skip
            if annotator in item.annotators:
                got = f"{shown(annotator)} already voted on {shown(uid)}"
                raise InputError(src, number, "annotator", "one ballot per annotator", got)
            item.annotators.add(annotator)
            for act in acts:
                item.counts[act] = item.counts.get(act, 0) + 1
        else:
            raise InputError(src, number, "acts", "this field (or a 'votes' tally) to be present")
    order = {name: k for k, name in enumerate(tax.names)}
    for item in items.values():
        item.counts = dict(sorted(item.counts.items(), key=lambda kv: order[kv[0]]))
    return list(items.values())


def _key(src: str, number: int, raw: dict[str, Any], name: str) -> str:
    """Field ``name`` (an id or annotator): a non-empty string (a number is read as one)."""
    if name not in raw:
        raise InputError(src, number, name, "this field to be present")
    value = raw[name]
    if isinstance(value, bool) or not isinstance(value, str | int) or not str(value).strip():
        raise InputError(src, number, name, "a non-empty string", shown(value))
    return str(value)


def _check_keys(src: str, number: int, raw: dict[str, Any], allowed: set[str]) -> None:
    for key in raw:
        if key not in allowed:
            raise InputError(src, number, key, "no such field", f"fields {sorted(allowed)}")


def _act(src: str, number: int, where: str, value: Any, tax: Taxonomy) -> str:
    name = tax.canonical(value) if isinstance(value, str) else None
    if name is None:
        expected = f"an act of taxonomy '{tax.name}' ({', '.join(tax.names)})"
        raise InputError(src, number, where, expected, shown(value))
    return name


def _ballot(src: str, number: int, acts: Any, tax: Taxonomy) -> list[str]:
    if not isinstance(acts, list):
        raise InputError(src, number, "acts", "a list of acts", shown(acts))
    if not acts:
        raise InputError(src, number, "acts", "at least one act", "[]")
    names: list[str] = []
    for k, value in enumerate(acts):
        name = _act(src, number, f"acts[{k}]", value, tax)
        if name in names:
            raise InputError(src, number, f"acts[{k}]", "each act once per ballot", shown(value))
        names.append(name)
    return names


def _tally(src: str, number: int, votes: Any, tax: Taxonomy) -> dict[str, int]:
    if not isinstance(votes, dict):
        raise InputError(src, number, "votes", "an object act → count", shown(votes))
    counts: dict[str, int] = {}
    for key, count in votes.items():
        name = _act(src, number, f"votes.{key}", key, tax)
        if name in counts:
            raise InputError(src, number, f"votes.{key}", "each act once", "a repeated alias")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InputError(src, number, f"votes.{key}", "a whole number >= 0", shown(count))
        counts[name] = count
    if not any(counts.values()):
        raise InputError(src, number, "votes", "at least one vote", shown(votes))
    return {a: c for a, c in counts.items() if c}


@dataclass(frozen=True)
class Aggregation:
    """Seed 002 §3.3's labels: the adopted act per utterance and what could not be labelled."""

    labels: dict[str, str]
    """Utterance id → adopted act, in input order."""
    tied: dict[str, tuple[str, ...]]
    """Utterances whose act was drawn among several with the most votes → those acts."""
    unlabelled: tuple[str, ...]
    """Utterances where no act reached ``min_votes`` (reported, not labelled)."""

    @property
    def n_unlabelled(self) -> int:
        return len(self.unlabelled)

    def act_counts(self, taxonomy: Taxonomy | str = "chitchat11") -> dict[str, int]:
        """Adopted acts counted per act of ``taxonomy``, in its order (seed 002 Table 1)."""
        tax = taxonomy if isinstance(taxonomy, Taxonomy) else load_taxonomy(taxonomy)
        counts = dict.fromkeys(tax.names, 0)
        for act in self.labels.values():
            counts[act] += 1
        return counts


def aggregate_votes(
    items: Iterable[UtteranceVotes], *, min_votes: int = MIN_VOTES, seed: int = 0
) -> Aggregation:
    """Seed 002 §3.3: adopt the act with at least ``min_votes`` votes and the most votes.

    Acts tied for the most votes are drawn from with an RNG seeded by ``seed`` and the
    utterance's id, so an utterance's label depends on neither the file's order nor the other
    utterances. Utterances with no act reaching ``min_votes`` go to ``unlabelled``.
    """
    if min_votes < 1:
        raise ValueError(f"min_votes must be >= 1, got {min_votes}")
    labels: dict[str, str] = {}
    tied: dict[str, tuple[str, ...]] = {}
    unlabelled: list[str] = []
    for item in items:
        top = max(item.counts.values(), default=0)
        if top < min_votes:
            unlabelled.append(item.id)
            continue
        winners = tuple(a for a, c in item.counts.items() if c == top)  # taxonomy order
        if len(winners) > 1:
            tied[item.id] = winners
            labels[item.id] = random.Random(f"{seed}\x00{item.id}").choice(winners)
        else:
            labels[item.id] = winners[0]
    return Aggregation(labels, tied, tuple(unlabelled))


OPINION = "意見"
"""The chitchat11 act seed 002 App. A divides into six sub-types (``opinion6``)."""


def refine(coarse: Aggregation, sub: Aggregation, parent: str = OPINION) -> Aggregation:
    """Seed 002 App. A's two rounds as one labelling in the finer taxonomy (``chitchat16``).

    Utterances the first round (``coarse``, chitchat11) labelled ``parent`` take the sub-type
    the second round (``sub``, opinion6: 5 annotators pick one of six) adopted by the same
    §3.3 rule; those it could not label (no sub-type with 2 votes, or not asked) become
    unlabelled, and are reported as such. Every other label is kept."""
    labels: dict[str, str] = {}
    tied = {k: v for k, v in coarse.tied.items() if coarse.labels.get(k) != parent}
    unlabelled = list(coarse.unlabelled)
    for uid, act in coarse.labels.items():
        if act != parent:
            labels[uid] = act
        elif uid in sub.labels:
            labels[uid] = sub.labels[uid]
            if uid in sub.tied:
                tied[uid] = sub.tied[uid]
        else:
            unlabelled.append(uid)
    return Aggregation(labels, tied, tuple(unlabelled))
