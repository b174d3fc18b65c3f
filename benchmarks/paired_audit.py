"""The simulation audit of the paired comparisons (issue 39): the figures of docs/statistics.md.

    python benchmarks/paired_audit.py [--draws 2000] [--only coverage,power,...]

Every dataset is drawn with a fixed seed; each figure is the share of ``--draws`` datasets
(fewer for the bootstrap statistics, ``--stat-draws``). Sections:

- ``null``: the sign-flip p < 0.05 with no true difference (0/1 items with independent or
  item-correlated errors, continuous items), and Holm's family-wise error over 12 tests;
- ``coverage``: the 95 % interval's coverage of the true difference, 0/1 items in five settings
  and continuous items (normal, normal − exponential, exponential) at 6–300 items, and how often
  interval and p disagree (never);
- ``power``: the power of the Holm-corrected decision at a true difference equal to the printed
  MDD, for 0/1 items (differing on 20, 40, 60 % of items) and continuous ones, in families of 1,
  3 and 12 tests (the other tests null);
- ``entropy``: DAE differences between systems with 11 and 3 acts, 11 and 1, equal ones, and
  DAMI differences under the null and between 11 acts that follow the previous act and 3 that
  do not, at 100 and 300 items.
"""

from __future__ import annotations

import argparse
import time
from statistics import NormalDist

import numpy as np

from taiwa.metrics.detectable import discordant_mdd, mean_mdd
from taiwa.metrics.paired import (
    ActEntropy,
    ActMutualInformation,
    difference_tests,
    holm,
    paired_statistic_difference,
)

Z = NormalDist()
ALPHA = 0.05


def tests(d: np.ndarray, seed: int, n_permutations: int = 2000) -> list:
    out: list = []
    for start in range(0, d.shape[1], 400):
        out += difference_tests(d[:, start : start + 400], seed=seed, n_permutations=n_permutations)
    return out


def zero_one(rng, n, draws, pa, pb, rho=0.5):
    item = rng.normal(size=(n, draws))
    la = np.sqrt(rho) * item + np.sqrt(1 - rho) * rng.normal(size=(n, draws))
    lb = np.sqrt(rho) * item + np.sqrt(1 - rho) * rng.normal(size=(n, draws))
    return (la < Z.inv_cdf(pa)).astype(float) - (lb < Z.inv_cdf(pb)).astype(float)


def continuous(rng, n, draws, delta, kind):
    if kind == "normal":
        return delta + rng.normal(size=(n, draws))
    if kind == "normal-exp":
        return delta + rng.normal(size=(n, draws)) - rng.exponential(size=(n, draws)) + 1
    return delta + rng.exponential(size=(n, draws)) - 1  # skewness 2


def null(draws: int) -> None:
    print("## type-I error: share of p < 0.05 with no true difference")
    rng = np.random.default_rng(1)
    for n in (30, 100, 300):
        cells = []
        alike = rng.exponential(size=(n, draws)) - rng.exponential(size=(n, draws))
        for name, d in (
            ("0/1 independent", zero_one(rng, n, draws, 0.7, 0.7, rho=0.0)),
            ("0/1 item-correlated", zero_one(rng, n, draws, 0.7, 0.7)),
            ("continuous, systems alike", alike),
            ("same mean, skewed difference", continuous(rng, n, draws, 0.0, "normal-exp")),
        ):
            p = np.array([r.p for r in tests(d, seed=n)])
            cells.append(f"{name} {np.mean(p < ALPHA):.3f}")
        print(f"n={n}: " + ", ".join(cells))
    fam = draws // 2
    d = np.concatenate(
        [zero_one(rng, 100, fam * 6, 0.7, 0.7), continuous(rng, 100, fam * 6, 0, "normal")], axis=1
    )
    p = np.array([r.p for r in tests(d, seed=9)])
    p = np.concatenate([p[: fam * 6].reshape(fam, 6), p[fam * 6 :].reshape(fam, 6)], axis=1)
    fwer = np.mean([min(holm(row.tolist())) < ALPHA for row in p])
    print(f"Holm over 12 tests (6 of 0/1 items, 6 continuous, n=100): family-wise error {fwer:.3f}")


ZERO_ONE = ((0.5, 0.5), (0.7, 0.6), (0.8, 0.5), (0.9, 0.7), (0.6, 0.55))


def coverage(draws: int) -> None:
    print("## coverage of the 95 % interval (share of datasets covering the true difference)")
    rng = np.random.default_rng(2)
    for n in (6, 8, 10, 15, 20, 30, 100, 300):
        cells, agree = [], []
        for pa, pb in ZERO_ONE:
            res = tests(zero_one(rng, n, draws, pa, pb), seed=n)
            cov = np.mean([r.difference.low <= pa - pb <= r.difference.high for r in res])
            agree += [(r.p >= ALPHA) == (r.difference.low <= 0 <= r.difference.high) for r in res]
            cells.append(f"{pa}/{pb} {cov:.3f}")
        for kind in ("normal", "normal-exp", "exp"):
            res = tests(continuous(rng, n, draws, 0.3, kind), seed=n)
            cov = np.mean([r.difference.low <= 0.3 <= r.difference.high for r in res])
            cells.append(f"{kind} {cov:.3f}")
        print(f"n={n}: " + ", ".join(cells) + f"; interval and p agree {np.mean(agree):.3f}")


def _holm_power(p: np.ndarray, family: int, rng) -> float:
    return float(
        np.mean([holm([float(x), *rng.random(family - 1).tolist()])[0] < ALPHA for x in p])
    )


def power(draws: int) -> None:
    print("## power of the Holm-significant decision at a true difference of one MDD")
    rng = np.random.default_rng(3)
    for n in (30, 100, 300):
        cells = []
        for family in (1, 3, 12):
            for psi in (0.2, 0.4, 0.6):
                delta = discordant_mdd(n, round(psi * n), family)
                if delta != delta:
                    cells.append(f"0/1 ψ={psi} k={family} –")
                    continue
                u = rng.random((n, draws))
                d = np.where(u < (psi + delta) / 2, 1.0, np.where(u < psi, -1.0, 0.0))
                pw = _holm_power(np.array([r.p for r in tests(d, seed=family)]), family, rng)
                cells.append(f"0/1 ψ={psi} k={family} {pw:.3f}")
            delta = mean_mdd(1.0, n, family)
            d = delta + rng.normal(size=(n, draws))
            pw = _holm_power(np.array([r.p for r in tests(d, family, 5000)]), family, rng)
            cells.append(f"continuous k={family} {pw:.3f}")
        print(f"n={n}: " + ", ".join(cells))


def _entropy(p):
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def _cat(p, u):
    return np.minimum(np.searchsorted(np.cumsum(p), u), len(p) - 1)


def entropy(draws: int) -> None:
    print("## DAE and DAMI differences (bias-corrected)")
    rng = np.random.default_rng(4)
    p11 = 1 / np.arange(1, 12)
    p11 /= p11.sum()
    for n in (100, 300):
        cells = []
        for name, pb in (
            ("11 vs 3", np.array([0.6, 0.3, 0.1])),
            ("11 vs 1", np.array([1.0])),
            ("11 vs 11", p11),
        ):
            truth = _entropy(p11) - _entropy(pb)
            hits = false = 0
            for k in range(draws):
                u = rng.random(n)
                v = np.where(rng.random(n) < 0.5, u, rng.random(n))
                a, b = [f"a{x}" for x in _cat(p11, u)], [f"b{x}" for x in _cat(pb, v)]
                r = paired_statistic_difference(a, b, ActEntropy(), seed=k, n_resamples=1000)
                hits += r.difference.low <= truth <= r.difference.high
                false += r.p < ALPHA
            cells.append(f"DAE {name} coverage {hits / draws:.3f}")
        shift = np.array([0.5, 0.2, 0.1, 0.1, 0.1])
        reply = sum(w * np.roll(p11, s) for s, w in enumerate(shift))
        truth_a = _entropy(reply) - _entropy(shift)
        false = hits = 0
        for k in range(draws):
            prev = _cat(p11, rng.random(n))
            ra = (prev + _cat(shift, rng.random(n))) % 11
            rb = (prev + _cat(shift, rng.random(n))) % 11
            rc = _cat(np.array([0.6, 0.3, 0.1]), rng.random(n))
            a = [(f"p{x}", f"r{y}") for x, y in zip(prev, ra, strict=True)]
            b = [(f"p{x}", f"r{y}") for x, y in zip(prev, rb, strict=True)]
            c = [(f"p{x}", f"r{y}") for x, y in zip(prev, rc, strict=True)]
            false += (
                paired_statistic_difference(
                    a, b, ActMutualInformation(), seed=k, n_resamples=1000
                ).p
                < ALPHA
            )
            r = paired_statistic_difference(a, c, ActMutualInformation(), seed=k, n_resamples=1000)
            hits += r.difference.low <= truth_a <= r.difference.high
        cells.append(f"DAMI null p<0.05 {false / draws:.3f}")
        cells.append(f"DAMI 11 (following) vs 3 (not) coverage {hits / draws:.3f}")
        print(f"n={n}: " + ", ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--draws", type=int, default=2000)
    ap.add_argument("--stat-draws", type=int, default=500)
    ap.add_argument("--only", default="null,coverage,power,entropy")
    args = ap.parse_args()
    for part in args.only.split(","):
        t0 = time.perf_counter()
        {"null": null, "coverage": coverage, "power": power}.get(part, lambda d: None)(args.draws)
        if part == "entropy":
            entropy(args.stat_draws)
        print(f"({part}: {time.perf_counter() - t0:.0f} s)\n", flush=True)


if __name__ == "__main__":
    main()
