"""The report of a large run: time and size of ``taiwa report`` beside the time to just read
the run directory's JSON, measured side by side in one run.

    python benchmarks/report_speed.py [--dialogues 10000] [--repeats 3]

Builds a cohesion run of ``--dialogues`` scored dialogues (seeded prefixes of the bundled
labelled dialogues under new ids, so the report draws every chart: shares, precision/recall and
the per-dialogue scatter, where dialogues at the same place share a point) in a temporary
directory, then, ``--repeats`` times in turn, (1) reads ``config.json``, ``summary.json`` and
every line of every stage file with ``json.loads`` (the floor: any report must read them) and
(2) writes the report with :func:`taiwa.report.page.write_report` (matplotlib is imported by
the first round). Prints the best time of each, the ratio, and the report's size (targets:
under 5 s and under 10 MB).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

from taiwa.benchmarks import all_methods, get_method
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.report.page import write_report


def build(root: Path, n: int) -> Path:
    """A cohesion run of ``n`` dialogues."""
    lines = sample_path("cohesion/dialogues.jsonl").read_text("utf-8").splitlines()
    base = [json.loads(line) for line in lines]
    rng = random.Random(0)
    data = root / "dialogues.jsonl"
    with data.open("w", encoding="utf-8") as fh:
        for k in range(n):
            d = dict(base[k % len(base)])
            d["id"] = f"{d['id']}-{k}"
            # a seeded prefix of 4 or more utterances, so that the dialogues' shares differ
            d["utterances"] = d["utterances"][: rng.randint(4, len(d["utterances"]))]
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    out = root / "run"
    run(
        RunConfig(method="cohesion", data=data, out=out),
        get_method("cohesion"),
        show_progress=False,
    )
    return out


def read_only(run_dir: Path) -> int:
    """Parse every JSON document and line of the run directory; the number of rows."""
    rows = 0
    for name in ("config.json", "summary.json"):
        json.loads((run_dir / name).read_text("utf-8"))
    for p in run_dir.glob("*.jsonl"):
        with p.open(encoding="utf-8") as fh:
            for line in fh:
                json.loads(line)
                rows += 1
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dialogues", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        run_dir = build(Path(tmp), args.dialogues)
        took = time.perf_counter() - t0
        print(f"cohesion run of {args.dialogues:,} dialogues built in {took:.1f} s")
        best_read = best_report = float("inf")
        rows = 0
        out = Path(tmp) / "report.html"
        for _ in range(args.repeats):
            t = time.perf_counter()
            rows = read_only(run_dir)
            best_read = min(best_read, time.perf_counter() - t)
            t = time.perf_counter()
            write_report([run_dir], out, methods=all_methods())
            best_report = min(best_report, time.perf_counter() - t)
        size = out.stat().st_size
        print(f"read the run directory's JSON ({rows:,} rows): {best_read:.2f} s")
        print(
            f"taiwa report (HTML, every chart):        {best_report:.2f} s "
            f"({best_report / best_read:.1f}x the read), {size / 1e6:.2f} MB"
        )
        print(
            f"targets: under 5 s ({'ok' if best_report < 5 else 'MISSED'}), "
            f"under 10 MB ({'ok' if size < 10e6 else 'MISSED'})"
        )


if __name__ == "__main__":
    main()
