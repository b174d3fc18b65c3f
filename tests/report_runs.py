"""Small, fast run directories of every method for the report tests (built-in models and the
bundled samples; a few seconds in all): the shape ``taiwa demo`` writes, without the demo LLM."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from taiwa.benchmarks import get_method
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run


def _run(out: Path, method: str, **cfg: Any) -> Path:
    run(RunConfig(method=method, out=out, **cfg), get_method(method), show_progress=False)
    return out


def _human_ranks(path: Path, systems: list[str]) -> Path:
    """Two annotators ranking the systems of the first items of each chitchat task the same
    way (the order of ``systems``)."""
    from taiwa.benchmarks.chitchat.dataset import load_tasks

    seen: set[str] = set()
    rows = []
    for it in load_tasks(sample_path("chitchat/tasks.jsonl")):
        if it.task not in seen:
            seen.add(it.task)
            for a in ("a1", "a2"):
                ranks = {s: k + 1 for k, s in enumerate(systems)}
                rows.append({"id": it.id, "annotator": a, "ranks": ranks})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def failing_chitchat(root: Path) -> Path:
    """chitchat judged by ``builtin:fixed``, whose answers are no verdicts: every judgment
    fails (a run with failures)."""
    return _run(
        root / "chitchat-failing",
        "chitchat",
        models=["human", "builtin:eliza"],
        roles={"judge": "builtin:fixed"},
        options={"per_task": 1, "judge_attempts": 1},
        cache_dir=root / ".cache",
    )


def build_runs(root: Path) -> dict[str, Path]:
    """One run directory per method below ``root`` (da-response twice); chitchat's systems and
    judge are the scripted models of the stub server (:mod:`test_chitchat_run`)."""
    from test_chitchat_run import SYSTEMS, _server

    out: dict[str, Path] = {}
    cache = {"cache_dir": root / ".cache"}
    out["da-response"] = _run(
        root / "da-response" / "fixed", "da-response", models=["builtin:fixed"], limit=8, **cache
    )
    out["da-response-2"] = _run(
        root / "da-response" / "human", "da-response", models=["human"], limit=8, **cache
    )
    ranks = _human_ranks(root / "ranks.jsonl", SYSTEMS)
    with _server() as url:
        out["chitchat"] = _run(
            root / "chitchat",
            "chitchat",
            models=SYSTEMS,
            roles={"judge": "openai:judge"},
            base_url=url,
            options={"per_task": 2, "human_ranks": str(ranks)},
            **cache,
        )
    out["da-distribution"] = _run(
        root / "da-distribution",
        "da-distribution",
        models=["builtin:parrot", "builtin:eliza", "human"],
        limit=24,
        options={"consistency_repetitions": 200},
        **cache,
    )
    out["cohesion"] = _run(root / "cohesion", "cohesion")
    out["intent"] = _run(root / "intent", "intent", models=["builtin:random", "human"], **cache)
    out["prompts"] = _run(root / "prompts", "prompts", models=["builtin:parrot", "human"], **cache)
    return out
