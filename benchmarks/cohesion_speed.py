"""Cohesion scoring throughput with the default resource (seed 003 §2.3).

    python benchmarks/cohesion_speed.py [--dialogues 10000] [--length 30]

Builds dialogues by drawing utterances from the bundled sample dialogues (seeded), scores them
all with the default resource, and prints utterances/s and the wall time against the budget
of 60 s for 10,000 dialogues of 30 utterances (ratio in the same run).
"""

from __future__ import annotations

import argparse
import random
import time

from taiwa.cohesion_eval import load_dialogues, score_dialogues
from taiwa.resources.loading import load_resource
from taiwa.samples import sample_path
from taiwa.schema import Dialogue, Utterance


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--dialogues", type=int, default=10_000)
    ap.add_argument("--length", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    pool = [
        u for d in load_dialogues(sample_path("cohesion/dialogues.jsonl")) for u in d.utterances
    ]
    humans = [u for u in pool if u.role == "human"]
    agents = [u for u in pool if u.role == "agent"]
    rng = random.Random(args.seed)
    dialogues = [
        Dialogue(
            id=f"d{k}",
            utterances=[
                Utterance(speaker=u.speaker, text=u.text, role=u.role)
                for u in (rng.choice(humans if i % 2 == 0 else agents) for i in range(args.length))
            ],
        )
        for k in range(args.dialogues)
    ]
    t0 = time.perf_counter()
    resource = load_resource("default")
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = score_dialogues(dialogues, resource)
    wall = time.perf_counter() - t0
    budget = 60.0 * (args.dialogues * args.length) / (10_000 * 30)
    print(f"{args.dialogues} dialogues x {args.length} utterances = {len(rows):,} utterances")
    print(
        f"resource load {load_s:.2f} s; scoring {wall:.1f} s = {len(rows) / wall:,.0f} utterances/s"
    )
    print(f"budget {budget:.1f} s; wall/budget {wall / budget:.2f} (target <= 1.00)")


if __name__ == "__main__":
    main()
