"""Run a benchmark through a model: cache, resume, progress bar, run directory (DESIGN.md).

The run directory holds ``config.json`` (resolved config, version, git commit, seeds, prompt
hashes), ``responses.jsonl`` (one line per sample, errors with their reason), ``scores.jsonl``,
``summary.json`` and any benchmark-specific files. All are written atomically at the end; the
response cache is what makes an interrupted run resumable.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from taiwa import __version__
from taiwa.benchmarks import Benchmark, get_benchmark
from taiwa.io import write_json, write_jsonl
from taiwa.models import (
    CachingModel,
    ChatModel,
    ModelOptions,
    ResponseCache,
    default_cache_dir,
    load_model,
)
from taiwa.models.types import ChatResponse
from taiwa.run_config import RunConfig

log = logging.getLogger(__name__)


@dataclass
class RunResult:
    """What a run did: where it wrote, how many samples, model calls, cache hits and errors."""

    run_dir: Path
    n: int
    model_calls: int
    cache_hits: int
    errors: int
    summary: dict[str, Any]


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(__file__).parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def default_run_dir(config: RunConfig) -> Path:
    """``runs/<benchmark>/<model spec made file-safe>``: the same command writes the same place."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", config.model).strip("_") or "model"
    return Path("runs") / config.benchmark / slug[:80]


def _options(config: RunConfig) -> ModelOptions:
    return ModelOptions(
        base_url=config.base_url,
        concurrency=config.concurrency,
        rpm=config.rpm,
        timeout=config.timeout,
        max_retries=config.max_retries,
        cache_dir=config.cache_dir,
    )


async def _generate(
    model: ChatModel, requests: list[Any], show_progress: bool
) -> list[ChatResponse]:
    check = getattr(model, "check", None) or getattr(getattr(model, "inner", None), "check", None)
    if check is not None:
        await check()
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not show_progress,
        transient=False,
    ) as progress:
        task = progress.add_task(f"{model.backend}:{model.model_id}"[:50], total=len(requests))
        return await model.generate(requests, on_response=lambda _: progress.advance(task))


def run(
    config: RunConfig,
    *,
    model: ChatModel | None = None,
    benchmark: Benchmark | None = None,
    show_progress: bool = True,
) -> RunResult:
    """Run ``config.benchmark`` on ``config.model`` and write the run directory."""
    bench = benchmark or get_benchmark(config.benchmark)
    data_path = config.data or bench.default_data()
    samples = list(bench.load(data_path))[: config.limit]
    requests = bench.requests(samples, config.params)
    cache_dir = config.cache_dir or default_cache_dir()
    cache = None if config.no_cache else ResponseCache(cache_dir / "responses.sqlite")
    loaded: dict[str, ChatModel] = {}
    if model is not None:
        loaded[config.model] = model

    def loader(spec: str) -> ChatModel:
        """One (cached) instance per SPEC, shared by the system and the annotator."""
        if spec not in loaded:
            loaded[spec] = load_model(spec, _options(config))
        inner = loaded[spec]
        return inner if cache is None else CachingModel(inner, cache)

    annotator_spec = config.annotator or getattr(bench, "default_annotator", None)
    annotations = None
    try:
        runner_model = loader(config.model)
        responses = asyncio.run(_generate(runner_model, requests, show_progress))
        if annotator_spec is not None and hasattr(bench, "annotate"):
            from taiwa.annotators import load_annotator

            annotator = load_annotator(annotator_spec, loader)
            log.info("annotating %d replies with %s", len(responses), annotator.name)
            annotations = asyncio.run(bench.annotate(samples, responses, annotator))
    finally:
        if cache is not None:
            cache.close()
    calls = runner_model.calls if isinstance(runner_model, CachingModel) else len(requests)
    hits = runner_model.hits if isinstance(runner_model, CachingModel) else 0
    scored = bench.score(samples, responses, config.seed, annotations)
    inner = loaded[config.model]
    errors = sum(1 for r in responses if not r.ok)
    out = config.out or default_run_dir(config)
    summary = {
        "benchmark": bench.name,
        "model": config.model,
        "n": len(samples),
        "errors": errors,
        "model_calls": calls,
        "cache_hits": hits,
        **({"annotator": annotator_spec} if annotations is not None else {}),
        **scored.summary,
    }
    resolved = config.model_copy(update={"data": data_path, "out": out, "cache_dir": cache_dir})
    write_json(
        out / "config.json",
        {
            "config": resolved.model_dump(mode="json"),
            "taiwa_version": __version__,
            "git_commit": _git_commit(),
            "model": {"backend": inner.backend, "model_id": inner.model_id},
            "seeds": {"generation": config.seed, "bootstrap": config.seed},
            "prompt_sha256": {
                k: hashlib.sha256(v.encode()).hexdigest() for k, v in bench.prompts.items()
            },
        },
    )
    write_jsonl(out / "responses.jsonl", responses)
    write_jsonl(out / "scores.jsonl", scored.rows)
    if annotations is not None:
        write_jsonl(out / "annotations.jsonl", [a.as_row(str(annotator_spec)) for a in annotations])
    for name, rows in scored.extra_files.items():
        write_jsonl(out / name, rows)
    write_json(out / "summary.json", summary)
    return RunResult(out, len(samples), calls, hits, errors, summary)
