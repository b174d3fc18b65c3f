"""Labelled examples of the dialogue-act classifier (seed 002 §5.2): one utterance with its
previous utterance and act, the reader of labelled JSONL files and the seeded held-out split of
the tidy set."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

SEED = 12
HELD_OUT = 0.2
DATA_PATH = "data/samples/da_distribution/labelled.jsonl"


@dataclass(frozen=True)
class Example:
    """One labelled utterance; ``index``/``count``: its sentence position in the turn (count 0:
    not split into sentences); ``group``: its dialogue (examples of one dialogue are kept in
    one cross-fitting fold; empty: its own); ``prev``: the previous utterance's act
    probabilities, for a model with the previous-act block (:mod:`.previous_act`)."""

    id: str
    context: str
    reply: str
    act: str
    index: int = 0
    count: int = 0
    weight: float = 1.0
    group: str = ""
    prev: tuple[float, ...] = ()

    @property
    def position(self) -> tuple[int, int]:
        return (self.index, self.count)


def load_examples(path: Path | None = None) -> tuple[list[Example], str]:
    """The labelled examples and the SHA-256 of the file's bytes (the bundled set by default)."""
    raw = (
        path.read_bytes()
        if path is not None
        else resources.files("taiwa").joinpath(DATA_PATH).read_bytes()
    )
    rows = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    examples = [
        Example(r["id"], r["context"], r["reply"], r["act"], group=str(r.get("dialogue") or ""))
        for r in rows
    ]
    return examples, hashlib.sha256(raw).hexdigest()


def held_out_split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    """``(development, held_out)``: the seeded stratified 80/20 split the metrics use."""
    from taiwa.annotators.da_classifier.training import stratified_split

    dev, test = stratified_split([e.act for e in examples], HELD_OUT, SEED)
    return [examples[i] for i in dev], [examples[i] for i in test]
