"""Which items a paired comparison may use, and what it found (issues 27 and 39).

Two systems are compared only on items both *measured*: an item one side has no value for (a
failed call) is counted as scored by the other side only; an item where either side's value is
a stand-in (:data:`~taiwa.metrics.imputed.IMPUTED`: a forfeit, an extraction failure given
the lowest rating by rule, an unreadable answer scored wrong) is counted as imputed and left out
too. The test runs on what remains, and not at all below :data:`TEST_FLOOR` items.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from taiwa.metrics.detectable import ALPHA, discordant_mdd, mean_mdd, minimum_detectable
from taiwa.metrics.imputed import IMPUTED
from taiwa.metrics.stats import Estimate

TEST_FLOOR = 6
"""Measured items below which no paired test runs: with 5 items every one of them for one
system, an exact paired test says p = 2/2⁵ = 0.0625 at best, so no difference could be found."""

SMALL_N = 10
"""Measured items below which a tested row is marked small-n: from 6 to 9 items the intervals'
coverage is not established (simulated from 10 items on, docs/statistics.md)."""

SMALL_N_MEANS = 30
"""The same for a difference of item means (continuous scores): below 30 items the interval
that inverts the sign-flip test covers a difference as skewed as an exponential's only 0.90 to
0.92 (0.93 to 0.94 from 30 to 80 items, 0.95 from 100; docs/statistics.md)."""


@dataclass(frozen=True)
class PairCounts:
    """Items both systems measured (``shared``), items only one of them has a value for, and
    items left out because a side's value is imputed (``imputed_a``: a's, ``imputed_b``: b's
    and not a's)."""

    shared: int
    only_a: int
    only_b: int
    imputed_a: int = 0
    imputed_b: int = 0

    @property
    def imputed(self) -> int:
        return self.imputed_a + self.imputed_b


def _usable(v: Any) -> bool:
    return v is not None and v is not IMPUTED and not (isinstance(v, float) and math.isnan(v))


def _present(v: Any) -> bool:
    return v is IMPUTED or _usable(v)


def align(
    a: Mapping[Any, Any] | Sequence[Any], b: Mapping[Any, Any] | Sequence[Any]
) -> tuple[list[Any], list[Any], list[Any], PairCounts]:
    """The shared measured item ids (in ``a``'s order), each side's values on them, and the
    counts.

    ``a`` and ``b`` map item id → value, or are aligned sequences (the position is the id, so
    they must be equally long). ``None`` or NaN is no value: that item counts as scored by the
    other side only (a failed reply is left out of the pair, never silently); :data:`IMPUTED`
    is a stand-in: the item counts as imputed."""
    if not isinstance(a, Mapping) or not isinstance(b, Mapping):
        if isinstance(a, Mapping) or isinstance(b, Mapping) or len(a) != len(b):
            raise ValueError("align: give two mappings, or two sequences of the same length")
        a, b = dict(enumerate(a)), dict(enumerate(b))
    ids = [k for k, v in a.items() if _usable(v) and _usable(b.get(k))]
    imputed_a = sum(1 for k, v in a.items() if v is IMPUTED and _present(b.get(k)))
    imputed_b = sum(1 for k, v in b.items() if v is IMPUTED and _usable(a.get(k)))
    n_a = sum(1 for v in a.values() if _present(v))
    n_b = sum(1 for v in b.values() if _present(v))
    both = len(ids) + imputed_a + imputed_b
    counts = PairCounts(len(ids), n_a - both, n_b - both, imputed_a, imputed_b)
    return ids, [a[k] for k in ids], [b[k] for k in ids], counts


Scale = Literal["mean", "ternary", "statistic"]
"""What the MDD is computed from: an item mean's SD, a −1/0/1 difference's discordant items,
or a statistic's bootstrap standard error."""


@dataclass(frozen=True)
class PairedDifference:
    """``a − b`` over the measured shared items: the estimate (value, CI, n), the two-sided
    p-value and how it was computed (``test``, ``interval``), the minimum detectable difference
    (for a family of ``family`` tests, :meth:`for_family`), the spread it rests on (``sd``: of
    the per-item differences, or the bootstrap SE of a statistic; ``discordant``: the items
    the systems differ on, for −1/0/1 differences) and, when no test ran, why (``no_test``)."""

    difference: Estimate
    p: float
    test: str
    mdd: float
    sd: float
    counts: PairCounts
    interval: str = ""
    scale: Scale = "mean"
    discordant: int = 0
    no_test: str | None = None
    family: int = 1

    @property
    def small_n(self) -> bool:
        """A tested difference over fewer than :data:`SMALL_N` items (:data:`SMALL_N_MEANS`
        for a difference of item means)."""
        floor = SMALL_N_MEANS if self.scale == "mean" else SMALL_N
        return self.no_test is None and self.difference.n < floor

    def for_family(self, family: int, alpha: float = ALPHA) -> PairedDifference:
        """This result with its MDD for a Holm family of ``family`` tests at ``alpha``."""
        n = self.difference.n
        if self.no_test is not None:
            mdd = float("nan")
        elif self.scale == "ternary":
            mdd = discordant_mdd(n, self.discordant, family, alpha)
        elif self.scale == "mean":
            mdd = mean_mdd(self.sd, n, family, alpha)
        else:
            mdd = minimum_detectable(self.sd, alpha / max(1, family))
        return replace(self, mdd=mdd, family=family)

    def as_dict(self) -> dict[str, Any]:
        return {
            "difference": self.difference.as_dict(),
            "p": self.p,
            "test": self.test,
            "interval": self.interval,
            "mdd": self.mdd,
            "sd": self.sd,
            "shared": self.counts.shared,
            "only_a": self.counts.only_a,
            "only_b": self.counts.only_b,
            "imputed_a": self.counts.imputed_a,
            "imputed_b": self.counts.imputed_b,
            "no_test": self.no_test,
            "small_n": self.small_n,
            "discordant": self.discordant if self.scale == "ternary" else None,
        }


def untested(value: float, n: int, counts: PairCounts, scale: Scale) -> PairedDifference:
    """The result of a pair with fewer than :data:`TEST_FLOOR` measured items: the difference
    over them (NaN for none), no interval, no p, and why."""
    nan = float("nan")
    if n == 0:
        why = "no item measured on both sides"
    else:
        why = f"{n} item(s) measured on both sides, below the floor of {TEST_FLOOR}"
    if counts.imputed:
        why += f" ({counts.imputed} left out as imputed)"
    return PairedDifference(
        Estimate(value, nan, nan, n), nan, "no test", nan, nan, counts, scale=scale, no_test=why
    )
