"""``taiwa run cohesion``: score dialogue files and write a run directory (no model involved)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taiwa import __version__
from taiwa.cohesion_eval import load_dialogues, score_dialogues, summarize
from taiwa.io import write_json, write_jsonl
from taiwa.resources.loading import load_resource
from taiwa.samples import sample_path


@dataclass
class CohesionRun:
    run_dir: Path
    rows: list[dict[str, Any]]
    summary: dict[str, Any]


def run_cohesion(
    dialogues: Path | None,
    *,
    resource: str = "default",
    d: int = 3,
    strict: bool = False,
    out: Path | None = None,
    seed: int = 0,
    show_progress: bool = True,
) -> CohesionRun:
    """Score every utterance, summarise per system, write config/scores/summary atomically."""
    path = dialogues or sample_path("cohesion/dialogues.jsonl")
    res = load_resource(resource)
    data = load_dialogues(path)
    start = time.perf_counter()
    rows = score_dialogues(data, res, d=d, strict=strict, show_progress=show_progress)
    summary = {
        "benchmark": "cohesion",
        "resource": res.name,
        "d": d,
        "strict": strict,
        "n_dialogues": len(data),
        "seconds": round(time.perf_counter() - start, 3),
        **summarize(rows, seed=seed),
    }
    run_dir = out or Path("runs") / "cohesion" / path.stem
    write_json(
        run_dir / "config.json",
        {
            "config": {
                "dialogues": str(path),
                "resource": resource,
                "d": d,
                "strict": strict,
                "seed": seed,
            },
            "resource": res.name,
            "taiwa_version": __version__,
        },
    )
    write_jsonl(run_dir / "scores.jsonl", rows)
    write_json(run_dir / "summary.json", summary)
    return CohesionRun(run_dir, rows, summary)
