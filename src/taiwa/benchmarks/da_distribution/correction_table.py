"""DAE and DAMI corrected for the tagger's errors (:mod:`.corrected`) in the terminal tables:
their columns in seed 002 Table 2 (so the leaderboard, which shows each run's first table,
shows them too) and the captions naming the validation each went through (issues 26, 38)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from taiwa.display.tables import ci_cell, clip
from taiwa.metrics.flags import mark

CORRECTED_COLUMNS = {"dae": "DAE corr.", "dami": "DAMI corr."}


def validation_blocks(summary: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The validation sets the run corrected through: the human replies' (or every system's)
    and the systems' when it is another."""
    across = summary["across"]
    keys = ("tagger_validation", "tagger_validation_systems")
    return [across[k] for k in keys if isinstance(across.get(k), Mapping)]


def has_corrected(summary: Mapping[str, Any]) -> bool:
    return any("corrected" in b for b in summary["systems"].values())


def corrected_cells(block: Mapping[str, Any]) -> list[str]:
    """A system's corrected DAE and DAMI cells, each marked when flagged."""
    c = block.get("corrected", {})
    return [mark(ci_cell(c.get(k)), block, f"corrected.{k}") for k in CORRECTED_COLUMNS]


def corrected_caption_line(summary: Mapping[str, Any]) -> str:
    """Table 2's caption line on the corrected columns: which validation (n, the tagger's
    accuracy there) and how the value is corrected."""
    sets = []
    for v in validation_blocks(summary):
        accuracy = "" if v.get("accuracy") is None else f", accuracy {v['accuracy']:.2f}"
        sets.append(f"{clip(v['name'], 70)} (n={v['n']}{accuracy})")
    if not sets:
        return ""
    return (
        f"\ncorr.: through the tagger's confusion on {' and '.join(sets)}; bias-corrected, "
        "95 % CIs redraw the validation set with the replies (docs/correction.md)"
    )


def corrected_caption(summary: Mapping[str, Any]) -> str:
    """The act table's note on the corrected shares, when there are some."""
    if not has_corrected(summary):
        return ""
    return "; corr.: the share corrected for the tagger's errors"
