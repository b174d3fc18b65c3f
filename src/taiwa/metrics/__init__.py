"""Pure metric functions: no I/O, no models (DESIGN.md, "Public API").

The names load on first use (PEP 562): importing one submodule, e.g. ``taiwa.metrics.stats``,
does not import what the others need (ROUGE's tokenizer, fugashi and its dictionary), which a
run that scores no overlap never needs (issue 29, point 1).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taiwa.metrics.da_distribution import dae, dami, distinct, transition_lift
    from taiwa.metrics.da_sequence import WEDResult, wed, wed_batch, wlcs
    from taiwa.metrics.overlap import rouge_ja

_HOME = {
    "dae": "da_distribution",
    "dami": "da_distribution",
    "distinct": "da_distribution",
    "transition_lift": "da_distribution",
    "WEDResult": "da_sequence",
    "wed": "da_sequence",
    "wed_batch": "da_sequence",
    "wlcs": "da_sequence",
    "rouge_ja": "overlap",
}

__all__ = [
    "WEDResult",
    "dae",
    "dami",
    "distinct",
    "rouge_ja",
    "transition_lift",
    "wed",
    "wed_batch",
    "wlcs",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'taiwa.metrics' has no attribute {name!r}")
    return getattr(importlib.import_module(f"taiwa.metrics.{home}"), name)
