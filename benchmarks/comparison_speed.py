"""What paired comparisons add to the aggregate phase: a 10,000-item run, 3 systems, 3 metrics.

    python benchmarks/comparison_speed.py [--items 10000] [--systems 3] [--repeat 3]

Aggregate: ``bootstrap_ci`` of every metric of every system, as the methods do (9 CIs).
Comparisons: :func:`taiwa.metrics.comparisons.build_comparisons` on the same per-item values (every
pair × every metric: paired bootstrap CI, sign-flip p, Holm, MDD; 9 comparisons), including
aligning the pairs, run right after the aggregate as the runner runs it: the comparisons reuse
the resampled means the aggregate's ``bootstrap_ci`` drew (:mod:`taiwa.metrics.resample_memo`;
the same resamples, so ``mean(a − b)`` per resample is ``mean(a) − mean(b)``). Both are timed
on the same data in process CPU seconds (best of ``--repeat``, each repeat an aggregate then
the comparisons; BLAS pinned to one thread, so other processes on a shared machine do not
change the figures much), and the script prints both, the ratio (goal: ≤ 10 %), the
comparisons without the aggregate's resamples at hand ("cold": one resample pass of their own),
that both give the same numbers, and where the cold comparisons' time goes: drawing
``bootstrap_ci``'s resamples once, the sign flips, and the rest.
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
from taiwa.metrics.paired import N_PERMUTATIONS, _sign_flip_p, resampled_means  # noqa: E402
from taiwa.metrics.stats import N_RESAMPLES, bootstrap_ci, percentile_estimate  # noqa: E402

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
        build_comparisons(values, METRICS, seed=0)

    n = args.items
    rng = np.random.default_rng(0)
    step = max(1, 100_000 // n)
    d = rng.normal(size=(n, len(METRICS) * args.systems * (args.systems - 1) // 2))

    def draws() -> None:
        r = np.random.default_rng(0)
        for start in range(0, N_RESAMPLES, step):
            r.integers(0, n, size=(min(step, N_RESAMPLES - start), n))

    columns = np.column_stack(
        [np.fromiter(per[m.key].values(), float) for per in values.values() for m in METRICS]
    )

    def one_pass() -> list[tuple[float, float]]:
        stats = resampled_means(columns, N_RESAMPLES, 0)
        means = columns.mean(axis=0)
        return [
            (e.low, e.high)
            for e in (percentile_estimate(means[j], stats[:, j], n) for j in range(len(means)))
        ]

    t_agg, t_cmp = float("inf"), float("inf")
    for _ in range(args.repeat):  # as a run does it: the aggregate, then the comparisons
        resample_memo._memo.clear()
        t_agg = min(t_agg, best_of(1, aggregate))
        t_cmp = min(t_cmp, best_of(1, compare))
    warm = build_comparisons(values, METRICS, seed=0)
    resample_memo._memo.clear()
    t_cold = best_of(args.repeat, compare)
    cold = build_comparisons(values, METRICS, seed=0)
    same = max(
        abs(w["difference"][k] - c["difference"][k])
        for w, c in zip(warm["rows"], cold["rows"], strict=True)
        for k in ("value", "ci_low", "ci_high")
    )
    same_p = all(
        (w["p_holm"], w["mdd"]) == (c["p_holm"], c["mdd"])
        for w, c in zip(warm["rows"], cold["rows"], strict=True)
    )
    t_one = best_of(args.repeat, one_pass)
    ref = [
        (e.low, e.high)
        for e in (
            bootstrap_ci(list(per[m.key].values())) for per in values.values() for m in METRICS
        )
    ]
    gap = float(np.max(np.abs(np.array(one_pass()) - np.array(ref))))
    t_draw = best_of(args.repeat, draws)
    t_flip = best_of(args.repeat, lambda: _sign_flip_p(d, N_PERMUTATIONS, 0))
    block = build_comparisons(values, METRICS, seed=0)
    cells = args.systems * len(METRICS)
    print(f"{n:,} items, {args.systems} systems, {len(METRICS)} metrics (CPU seconds)")
    print(f"aggregate:   {t_agg:6.3f} s  ({cells} bootstrap CIs, {N_RESAMPLES} resamples each)")
    print(
        f"comparisons: {t_cmp:6.3f} s  ({len(block['rows'])} pairs × metrics, after the "
        "aggregate: its resamples reused)"
    )
    print(
        f"  cold:      {t_cold:6.3f} s  (no aggregate before; same CIs to {same:.1e}, "
        f"same p and MDD: {same_p})"
    )
    print(f"  of which   {t_draw:6.3f} s  drawing bootstrap_ci's resamples once")
    print(f"             {t_flip:6.3f} s  {block['rows'][0]['test']}")
    print(
        f"comparisons / aggregate: {t_cmp / t_agg:.1%} (goal ≤ 10 %; cold {t_cold / t_agg:.1%}, "
        f"the one draw alone: {t_draw / t_agg:.1%})"
    )
    print(
        f"the same {cells} CIs from one shared resample pass (resampled_means): {t_one:.3f} s "
        f"({t_one / t_agg:.1%} of the aggregate; CI bounds differ by at most {gap:.1e})"
    )


if __name__ == "__main__":
    main()
