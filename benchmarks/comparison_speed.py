"""What paired comparisons add to the aggregate phase: a 10,000-item run, 3 systems, 3 metrics.

    python benchmarks/comparison_speed.py [--items 10000] [--systems 3] [--repeat 3]

Aggregate: ``bootstrap_ci`` of every metric of every system, as the methods do (9 CIs).
Comparisons: :func:`taiwa.metrics.comparisons.build_comparisons` on the same per-item values (every
pair × every metric: sign-flip p and the interval that inverts it, or Tango's interval for 0/1
items, Holm, the MDD for the test and family; 9 comparisons), including aligning the pairs, run
right after the aggregate as the runner runs it. Both are timed on the same data in process CPU
seconds (best of ``--repeat``; BLAS pinned to one thread, so other processes on a shared machine
do not change the figures much), and the script prints both, the ratio (goal: ≤ 10 %) and where
the comparisons' time goes: the sign flips of every column (with their subset means), the MDDs
(McNemar's exact power for the 0/1 metric), and the rest.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import time  # noqa: E402

import numpy as np  # noqa: E402

from taiwa.metrics import resample_memo  # noqa: E402
from taiwa.metrics.comparisons import ComparedMetric, build_comparisons  # noqa: E402
from taiwa.metrics.detectable import _discordant_mdd  # noqa: E402
from taiwa.metrics.sign_flip import N_PERMUTATIONS, flip_interval, sign_flips  # noqa: E402
from taiwa.metrics.stats import N_RESAMPLES, bootstrap_ci  # noqa: E402

METRICS = (
    ComparedMetric("wed", "WED", "lower", "score", "wed"),
    ComparedMetric("ok", "parsed", "higher", "score", "ok"),
    ComparedMetric("judge", "judge 1-10", "higher", "judge", "score"),
)


def synthetic(items: int, systems: int, seed: int) -> dict[str, dict[str, dict[str, float]]]:
    """Per-item values with a shared item effect: WED in [0, 1], a 0/1 flag, a 1-10 score."""
    rng = np.random.default_rng(seed)
    ids = [f"item-{k:05d}" for k in range(items)]
    hard = rng.random(items)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for s in range(systems):
        wed = np.clip(hard * 0.8 + 0.05 * s + rng.normal(0, 0.1, items), 0, 1)
        ok = (rng.random(items) > 0.1 + 0.02 * s).astype(float)
        judge = np.clip(np.round(8 - 5 * hard + rng.normal(0, 1.5, items)), 1, 10)
        out[f"system-{s}"] = {
            m.key: dict(zip(ids, col.tolist(), strict=True))
            for m, col in zip(METRICS, (wed, ok, judge), strict=True)
        }
    return out


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The smallest process CPU time of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--systems", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    values = synthetic(args.items, args.systems, 0)

    def aggregate() -> None:
        for per_metric in values.values():
            for m in METRICS:
                bootstrap_ci(list(per_metric[m.key].values()), seed=0)

    def compare() -> None:
        _discordant_mdd.cache_clear()
        build_comparisons(values, METRICS, seed=0)

    n = args.items
    rng = np.random.default_rng(0)
    d = rng.normal(size=(n, len(METRICS) * args.systems * (args.systems - 1) // 2))

    def flips() -> None:
        f = sign_flips(d, N_PERMUTATIONS, 0)
        flip_interval(f, d.mean(axis=0))

    t_agg, t_cmp = float("inf"), float("inf")
    for _ in range(args.repeat):  # as a run does it: the aggregate, then the comparisons
        resample_memo._memo.clear()  # each aggregate draws its resamples afresh
        t_agg = min(t_agg, best_of(1, aggregate))
        t_cmp = min(t_cmp, best_of(1, compare))
    t_flip = best_of(args.repeat, flips)
    block = build_comparisons(values, METRICS, seed=0)
    pairs = args.systems * (args.systems - 1) // 2

    def mdds() -> None:
        _discordant_mdd.cache_clear()
        for r in block["rows"]:
            if r["metric"] == "ok":
                _discordant_mdd(n, max(1, round(0.15 * n)), 0.05 / block["family"], 0.8)

    t_mdd = best_of(args.repeat, mdds)
    cells = args.systems * len(METRICS)
    print(f"{n:,} items, {args.systems} systems, {len(METRICS)} metrics (CPU seconds)")
    print(f"aggregate:   {t_agg:6.3f} s  ({cells} bootstrap CIs, {N_RESAMPLES} resamples each)")
    print(f"comparisons: {t_cmp:6.3f} s  ({len(block['rows'])} pairs × metrics)")
    print(f"  of which   {t_flip:6.3f} s  {block['rows'][0]['test']}, intervals included")
    print(f"             {t_mdd:6.3f} s  the {pairs} MDDs of the 0/1 metric")
    print(f"comparisons / aggregate: {t_cmp / t_agg:.1%} (goal ≤ 10 %)")


if __name__ == "__main__":
    main()
