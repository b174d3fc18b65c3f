"""The terminal table of DAE and DAMI corrected for the tagger's errors (:mod:`.correction`),
each beside the raw value (seed 002 Table 2's metrics; issue 26)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from taiwa.display.tables import ci_cell, clip
from taiwa.metrics.flags import mark


def corrected_tables(summary: Mapping[str, Any]) -> list[Table]:
    """Raw and corrected DAE and DAMI per system, the validation set named (none without
    one)."""
    v = summary["across"].get("tagger_validation")
    if not v:
        return []
    accuracy = "" if v.get("accuracy") is None else f", tagger accuracy {v['accuracy']:.2f}"
    t = Table(
        title="DAE and DAMI corrected for the tagger's errors",
        title_justify="left",
        caption=f"corrected through the tagger's confusion on {clip(v['name'], 70)} "
        f"(n={v['n']}{accuracy}); 95 % CIs resample the validation set with the replies; "
        "DAMI corrected is also bias-corrected by the bootstrap (DAMI raw is the plug-in)",
    )
    t.add_column("system", no_wrap=True, max_width=18, overflow="ellipsis")
    t.add_column("n", justify="right", no_wrap=True)
    for head in ("DAE raw", "DAE corrected", "DAMI raw", "DAMI corrected"):
        t.add_column(head, justify="right")
    for system, b in summary["systems"].items():
        c = b.get("corrected", {})
        t.add_row(
            clip(system),
            str(b.get("tagged", 0)),
            mark(ci_cell(b.get("dae")), b, "dae"),  # the raw values' flags, as in Table 2
            ci_cell(c.get("dae")),
            mark(ci_cell(b.get("dami")), b, "dami"),
            ci_cell(c.get("dami")),
        )
    return [t]


def corrected_caption(summary: Mapping[str, Any]) -> str:
    """The act table's note on the corrected shares, when there are some."""
    if "tagger_validation" not in summary["across"]:
        return ""
    return "; corr.: the share corrected for the tagger's errors"
