"""Pure metric functions: no I/O, no models (DESIGN.md, "Public API")."""

from taiwa.metrics.da_distribution import dae, dami, distinct, transition_lift
from taiwa.metrics.da_sequence import WEDResult, wed, wed_batch, wlcs
from taiwa.metrics.overlap import rouge_ja

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
