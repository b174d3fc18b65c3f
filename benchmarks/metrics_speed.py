"""WED throughput: taiwa's batched numpy DP vs a plain pure-Python DP, side by side in one run.

    python benchmarks/metrics_speed.py [--pairs 100000] [--seed 0]

Both compute seed 000 eq. (7) on the same random pairs (1-6 acts each, importances summing
to 1); the script checks they agree and prints pairs/s and the ratio.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from taiwa.metrics import wed
from taiwa.metrics.da_sequence import wed_batch

ACTS = ["Question", "Check-Question", "Answer", "Inform", "Request", "Suggestion", "Commissive"]


def random_sequence(rng: random.Random) -> list[tuple[str, float]]:
    n = rng.randint(1, 6)
    w = [rng.random() + 0.01 for _ in range(n)]
    total = sum(w)
    return [(rng.choice(ACTS), x / total) for x in w]


def plain_wed(p: list[tuple[str, float]], r: list[tuple[str, float]]) -> float:
    """The textbook weighted edit distance DP, pure Python, no breakdown."""
    n, m = len(p), len(r)
    d = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        d[i][0] = d[i - 1][0] + p[i - 1][1]
    for j in range(1, m + 1):
        d[0][j] = d[0][j - 1] + r[j - 1][1]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sub = 0.0 if p[i - 1][0] == r[j - 1][0] else (p[i - 1][1] + r[j - 1][1]) / 2
            dele, ins = d[i - 1][j] + p[i - 1][1], d[i][j - 1] + r[j - 1][1]
            d[i][j] = min(d[i - 1][j - 1] + sub, dele, ins)
    return d[n][m]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    preds = [random_sequence(rng) for _ in range(args.pairs)]
    golds = [random_sequence(rng) for _ in range(args.pairs)]

    t0 = time.perf_counter()
    baseline = np.array([plain_wed(p, r) for p, r in zip(preds, golds, strict=True)])
    t_plain = time.perf_counter() - t0

    t0 = time.perf_counter()
    ours = wed_batch(preds, golds)
    t_batch = time.perf_counter() - t0

    k = min(args.pairs, 10_000)
    t0 = time.perf_counter()
    singles = [wed(p, r).total for p, r in zip(preds[:k], golds[:k], strict=True)]
    t_single = (time.perf_counter() - t0) * args.pairs / k

    if not np.allclose(ours[:, 0], baseline, atol=1e-9) or not np.allclose(singles, baseline[:k]):
        raise SystemExit("mismatch between implementations")
    print(f"WED on {args.pairs:,} random pairs (1-6 acts each); all implementations agree")
    print(f"{'implementation':45s} {'pairs/s':>12s} {'vs plain DP':>12s}")
    rows = [
        ("plain pure-Python DP (baseline)", t_plain),
        ("taiwa wed() per pair, with alignment", t_single),
        ("taiwa wed_batch() numpy, with breakdown", t_batch),
    ]
    for name, t in rows:
        print(f"{name:45s} {args.pairs / t:12,.0f} {t_plain / t:11.2f}x")


if __name__ == "__main__":
    main()
