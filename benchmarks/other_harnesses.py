"""The same multiple-choice items through inspect-ai and lm-evaluation-harness, for
``runner_overhead.py --inspect PYTHON --lm-eval PYTHON`` (issue: intent's speed point).

Each harness runs in its own throwaway venv (it must not share taiwa's dependencies), e.g.

    python -m venv /tmp/inspect-venv && /tmp/inspect-venv/bin/pip install inspect-ai openai
    python -m venv /tmp/lmeval-venv && /tmp/lmeval-venv/bin/pip install torch==2.13.0 \\
        && /tmp/lmeval-venv/bin/pip install "lm-eval[api]"

and this file is run by that venv's interpreter as a driver (it imports no taiwa):

    PYTHON other_harnesses.py inspect|lm-eval ITEMS.jsonl BASE_URL CONCURRENCY REPEAT

ITEMS.jsonl holds ``{"id", "prompt", "target"}``: the exact user message taiwa sends for each
item (seed 004's question) and the gold option text. Each harness makes one warm-up run on 20
items (imports, first connections), then ``REPEAT`` timed runs of all items; only the
evaluation call is timed, as for taiwa's runner. ``REPEAT`` 0 makes one cold run (no warm-up)
and exits: ``runner_overhead.py`` times that whole process, exec to exit. Both answer with the
same chat completions from the same server, at temperature 0 and 16 tokens at most, scored by
exact match (the score is not compared: the minimal server answers every question alike). The
driver prints one JSON line: ``{"walls": [...], "samples": N, "errors": K}``.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _items(path: str) -> list[dict[str, str]]:
    return [json.loads(x) for x in Path(path).read_text("utf-8").splitlines() if x.strip()]


def run_inspect(
    items: list[dict[str, str]], url: str, concurrency: int, repeat: int
) -> dict[str, Any]:
    """inspect-ai: Task(dataset, generate(), match()) on its OpenAI-compatible provider."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import GenerateConfig
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    os.environ["STUB_BASE_URL"] = url
    os.environ["STUB_API_KEY"] = "unused"
    config = GenerateConfig(max_tokens=16, temperature=0.0, max_connections=concurrency)

    def once(rows: list[dict[str, str]], log_dir: str) -> tuple[float, int, int]:
        task = Task(
            dataset=[Sample(id=r["id"], input=r["prompt"], target=r["target"]) for r in rows],
            solver=generate(),
            scorer=match(),
            config=config,
        )
        t0 = time.perf_counter()
        [log] = inspect_eval(
            task,
            model="openai-api/stub/stub",
            log_dir=log_dir,
            display="none",
            max_connections=concurrency,
            max_retries=3,
            fail_on_error=False,
        )
        wall = time.perf_counter() - t0
        samples = log.samples or []
        return wall, len(samples), sum(1 for s in samples if s.error is not None)

    with tempfile.TemporaryDirectory() as tmp:
        if repeat:  # REPEAT 0: one cold run and exit, for timing the whole process
            once(items[:20], tmp)
        runs = [once(items, tmp) for _ in range(max(repeat, 1))]
    return {"walls": [w for w, _, _ in runs], "samples": runs[-1][1], "errors": runs[-1][2]}


def run_lm_eval(
    items: list[dict[str, str]], url: str, concurrency: int, repeat: int
) -> dict[str, Any]:
    """lm-evaluation-harness: a generate_until task from a local JSONL file, evaluated with its
    ``local-chat-completions`` API model (aiohttp, ``num_concurrent``)."""
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("OPENAI_API_KEY", "unused")
    import lm_eval
    from lm_eval.tasks import TaskManager

    def once(rows: list[dict[str, str]], tmp: Path, tag: str) -> tuple[float, int, int]:
        data = tmp / f"items-{tag}.jsonl"
        data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
        tasks = tmp / f"tasks-{tag}"
        tasks.mkdir()
        (tasks / "mcq.yaml").write_text(
            "\n".join(
                [
                    f"task: taiwa_mcq_{tag}",
                    "dataset_path: json",
                    f"dataset_kwargs: {{data_files: {{test: {json.dumps(str(data))}}}}}",
                    "test_split: test",
                    "output_type: generate_until",
                    'doc_to_text: "{{prompt}}"',
                    'doc_to_target: "{{target}}"',
                    "generation_kwargs: {until: [], max_gen_toks: 16, do_sample: false,"
                    " temperature: 0}",
                    "metric_list: [{metric: exact_match}]",
                    "",
                ]
            ),
            "utf-8",
        )
        args = (
            f"model=stub,base_url={url}/chat/completions,num_concurrent={concurrency},"
            "max_retries=3,tokenizer_backend=None,tokenized_requests=False"
        )
        t0 = time.perf_counter()
        out = lm_eval.simple_evaluate(
            model="local-chat-completions",
            model_args=args,
            tasks=[f"taiwa_mcq_{tag}"],
            apply_chat_template=True,
            task_manager=TaskManager(include_path=str(tasks)),
            log_samples=True,
        )
        wall = time.perf_counter() - t0
        samples = (out or {}).get("samples", {}).get(f"taiwa_mcq_{tag}", [])
        return wall, len(samples), 0

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if repeat:  # REPEAT 0: one cold run and exit, for timing the whole process
            once(items[:20], tmp, "warm")
        runs = [once(items, tmp, f"r{i}") for i in range(max(repeat, 1))]
    return {"walls": [w for w, _, _ in runs], "samples": runs[-1][1], "errors": runs[-1][2]}


DRIVERS = {"inspect": run_inspect, "lm-eval": run_lm_eval}


def main() -> None:
    which, path, url, concurrency, repeat = sys.argv[1:6]
    result = DRIVERS[which](_items(path), url, int(concurrency), int(repeat))
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
