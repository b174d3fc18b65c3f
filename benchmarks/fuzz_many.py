"""The fuzzer at scale (issue 25): N seeded random mutations (tests/fuzz/fuzz_random.py) over
the run-directory readers, the loaders, run.yaml and special files, through ``taiwa.cli.app.main``
in worker processes, counting tracebacks, hangs and deaths by signal.

    python benchmarks/fuzz_many.py [-n 10000] [--workers 2] [--seed 25]

Each worker is its own process running its share in-process (a hang is an alarm after
30 s; a worker killed by a signal is counted and its remaining variants rerun in a new one).
Exit status 1 when any variant had a problem (the first ones are printed). Outside the default
``make test``: 10,000 variants take some 10 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

_FUZZ = Path(__file__).resolve().parents[1] / "tests" / "fuzz"


def _work(args: tuple[int, int, int, str]) -> list[tuple[int, str, list[str]]]:
    """Variants ``start..stop`` of the run: (number, outcome class, problems) each."""
    start, stop, seed, root = args
    sys.path.insert(0, str(_FUZZ))
    from fuzz_core import problems, run_in_process, workdir
    from fuzz_random import random_variants

    variants = random_variants(stop, seed)[start:stop]
    out = []
    for v in variants:
        w = workdir(Path(root), v.id)
        try:
            built = v.build(w)
        except Exception as exc:  # the fuzzer's own fault, not taiwa's: reported apart
            out.append((v.number, "not built", [f"{v.id}: building it failed: {exc!r}"]))
            continue
        before = os.getcwd()
        os.chdir(w)
        try:
            outcome = run_in_process(built.argv)
        finally:
            os.chdir(before)
        found = problems(outcome, built.expect)
        if outcome.crash is not None:
            kind = "hang" if outcome.crash.startswith("hang") else "traceback"
        else:
            kind = f"exit {outcome.code}"
        out.append((v.number, kind, [f"{v.id}: {p[:600]}" for p in found]))
        if not found:
            import shutil

            shutil.rmtree(w, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-n", type=int, default=10_000, help="variants to run")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--chunk", type=int, default=500, help="variants per task")
    args = ap.parse_args()
    started = time.perf_counter()
    kinds: Counter[str] = Counter()
    found: list[str] = []
    signals = 0
    with tempfile.TemporaryDirectory(prefix="taiwa-fuzz-") as root:
        tasks = [
            (a, min(a + args.chunk, args.n), args.seed, root) for a in range(0, args.n, args.chunk)
        ]
        ctx = mp.get_context("spawn")
        while tasks:
            with ctx.Pool(args.workers) as pool:
                pending = [(t, pool.apply_async(_work, (t,))) for t in tasks]
                tasks = []
                for task, result in pending:
                    try:
                        rows = result.get(timeout=3600)
                    except Exception as exc:  # a worker that died (a signal) or broke
                        signals += 1
                        found.append(f"variants {task[0]}..{task[1]}: worker died: {exc!r}")
                        continue
                    for _, kind, problems in rows:
                        kinds[kind] += 1
                        found += problems
                    done = sum(kinds.values())
                    print(f"{done:,} variants, {time.perf_counter() - started:.0f} s", flush=True)
    seconds = time.perf_counter() - started
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = sum(kinds.values())
    print(
        f"CPU seconds of the workers: {cpu.ru_utime + cpu.ru_stime:.0f} (a loaded machine "
        "stretches the wall time, not this)"
    )
    print(
        f"{total:,} variants in {seconds:.0f} s on {args.workers} worker(s): "
        + ", ".join(f"{k} {n:,}" for k, n in sorted(kinds.items()))
    )
    print(
        f"tracebacks {kinds['traceback']}, hangs {kinds['hang']}, deaths by signal {signals}, "
        f"variants with any problem {len(found)}"
    )
    for line in found[:20]:
        print("  " + line)
    sys.exit(1 if found or signals else 0)


if __name__ == "__main__":
    main()
