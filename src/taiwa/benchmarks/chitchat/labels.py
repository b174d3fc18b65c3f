"""Speaker labels shown in prompts, drawn at random per item (seed 001, 各タスクの詳細).

Seed 001 shows the speakers of a chat under labels chosen at random for every item:
「ASSISTANT, USERなどの部分はユーザ・アシスタント、名前、IDなどからランダムに選択」
(next utterance), 「SPK1、SPK2、SPK3はID、名前などからランダムに選択」 (next speaker),
「S1、S2、S3はID，名前などからランダムに選択」 (continuation). The families here are those
five: ``role`` (USER/ASSISTANT, the target speaker is ASSISTANT, only for the 2-speaker
next-utterance task), ``name`` (common Japanese surnames), ``id`` (``ID`` + 4 digits),
``spk`` (SPK1…) and ``s`` (S1…). Numbered labels follow the order in which the speakers
first speak.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

FAMILIES = ("role", "name", "id", "spk", "s")
"""The label families; ``role`` applies only where a 2-speaker item has a target speaker."""

NAMES = (
    "佐藤",
    "鈴木",
    "高橋",
    "田中",
    "伊藤",
    "渡辺",
    "山本",
    "中村",
    "小林",
    "加藤",
    "吉田",
    "山田",
    "松本",
    "井上",
    "木村",
    "清水",
)
"""Surnames for the ``name`` family (the most common ones: they name no one in particular)."""

USER, ASSISTANT = "USER", "ASSISTANT"


def families_for(n_speakers: int, *, has_target: bool) -> tuple[str, ...]:
    """The families an item may draw from: ``role`` needs 2 speakers and a target speaker."""
    if n_speakers == 2 and has_target:
        return FAMILIES
    return tuple(f for f in FAMILIES if f != "role")


def draw_labels(
    rng: random.Random, speakers: Sequence[str], *, target: str | None = None
) -> tuple[str, dict[str, str]]:
    """A family drawn with ``rng`` and the label of each speaker (``speakers`` in order of
    first appearance; ``target`` is the speaker to answer as, if any)."""
    family = rng.choice(families_for(len(speakers), has_target=target is not None))
    k = len(speakers)
    if family == "role":
        labels = [ASSISTANT if s == target else USER for s in speakers]
    elif family == "name":
        labels = rng.sample(NAMES, k)
    elif family == "id":
        labels = [f"ID{n}" for n in rng.sample(range(1000, 10000), k)]
    else:
        prefix = "SPK" if family == "spk" else "S"
        labels = [f"{prefix}{i}" for i in range(1, k + 1)]
    return family, dict(zip(speakers, labels, strict=True))
