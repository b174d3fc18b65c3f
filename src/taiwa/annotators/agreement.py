"""Agreement between two labellings of the same utterances: Cohen's κ (issue 38).

Two people labelling the same utterances with one act each never agree fully; their agreement
is the ceiling a tagger measured against either of them can reach. κ corrects the raw agreement
for the agreement expected by chance from each labeller's act shares:
``κ = (p_o − p_e) / (1 − p_e)``, ``p_o`` the share of utterances given the same act and
``p_e = Σ_a p₁(a) p₂(a)``. Nothing here knows a method: callers hand in the labels.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float:
    """Cohen's κ of two labellings of the same items (1.0 when both use one act throughout
    and agree; NaN for no items)."""
    if len(first) != len(second):
        raise ValueError("the two labellings differ in length")
    n = len(first)
    if not n:
        return float("nan")
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    one, two = Counter(first), Counter(second)
    expected = sum(one[a] * two[a] for a in one) / (n * n)
    if expected >= 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1.0 - expected)


def agreement(first: Mapping[str, str], second: Mapping[str, str]) -> dict[str, Any]:
    """κ, raw agreement and n over the ids both labellings have (``first``/``second``: id →
    act)."""
    ids = [i for i in first if i in second]
    a, b = [first[i] for i in ids], [second[i] for i in ids]
    same = sum(x == y for x, y in zip(a, b, strict=True))
    return {
        "n": len(ids),
        "kappa": cohen_kappa(a, b),
        "agreement": same / len(ids) if ids else float("nan"),
    }
