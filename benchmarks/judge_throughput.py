"""Judge throughput: pairwise comparisons judged in both orders through the real runner.

    python benchmarks/judge_throughput.py [--items 200] [--systems 5] [--latency 0.2]
                                          [--concurrency 64] [--fastchat PYTHON]

``--systems`` systems answer ``--items`` items (replay files: no requests), and
:class:`taiwa.judges.stages.PairwiseJudge` judges every pair of every item in both orders:
by default 200 x 10 pairs = 2,000 comparisons, 4,000 judge requests. The judge is
``openai:judge`` on a local server in its own process that answers every request with a
verdict after exactly ``--latency`` seconds: the minimal HTTP/1.1 responder of
``runner_overhead.py`` (imported, not copied), its reply changed to a judgement ending in
``[[C]]``. Everything else is the real path: runner, a fresh SQLite cache, taiwa's aiohttp
client, the stage's prompts and verdict parsing, the run directory.

Prints wall time / ideal, where ideal = requests x latency / concurrency, beside the timer
floor of the machine (``asyncio.sleep`` only). Target: <= 1.10.

``--fastchat PYTHON`` also times FastChat's ``llm_judge`` (``gen_judgment.py --mode
pairwise-all --parallel C``: both orders per pair, as ours) on the same pairs and server,
where PYTHON is the interpreter of a throwaway venv holding ``fschat`` (never a taiwa
dependency):

    python -m venv /tmp/fschat-venv && /tmp/fschat-venv/bin/pip install fschat==0.2.36 \\
        'openai<1' anthropic psutil accelerate torch==2.13.0 'transformers<5'

Its judge sees byte-identical prompts: our pairwise prompt written as FastChat judge prompts
(``pair-math-v1``, reference-guided, and the three others it loads). Its imports (torch,
transformers) happen before its clock starts; its wall time covers loading the questions and
answers, judging and writing its judgments, as ours covers the whole run. At the default
setting both clients are bound by the server's latency (the ideal is 12.5 s); a CPU-bound
setting (``--items 1000 --latency 0.05 --concurrency 256``) shows their own costs per request.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from taiwa.benchmarks.prompts import METHOD as PROMPTS
from taiwa.harness.config import RunConfig
from taiwa.harness.demo_spec import Demo
from taiwa.harness.method import Results, Role, Setup, Summary, Upstream
from taiwa.harness.runner import run
from taiwa.harness.stages import GenerateStage
from taiwa.judges.prompts import PAIRWISE_SYSTEM, PAIRWISE_TEMPLATE
from taiwa.judges.prompts import PROMPTS as JUDGE_PROMPTS
from taiwa.judges.stages import PairwiseJudge

_HERE = Path(__file__).resolve().parent

VERDICT = "どちらも楽しく自然で、文脈にも沿っています。同程度です。判定：[[C]]"
INSTRUCTION = "次の雑談に続けて、発話を1つ出力してください。"
REFERENCE = "山に行きました！"


def _overhead() -> ModuleType:
    """``runner_overhead.py`` (its minimal responder and timer floor: one implementation)."""
    spec = importlib.util.spec_from_file_location("runner_overhead", _HERE / "runner_overhead.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {_HERE / 'runner_overhead.py'}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _serve(latency: float) -> None:
    """The responder, answering with a verdict; prints its port once it listens."""
    overhead = _overhead()
    reply = {
        "object": "chat.completion",
        "model": "judge",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": VERDICT}}],
    }
    overhead._REPLY = json.dumps(reply, ensure_ascii=False).encode()  # type: ignore[attr-defined]

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: overhead._Responder(latency), "127.0.0.1", 0, backlog=1024
        )
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(main())


@contextmanager
def judge_server(latency: float) -> Iterator[str]:
    """The verdict server in its own process (so it does not share our GIL); its base URL."""
    cmd = [sys.executable, __file__, "--serve", "--latency", str(latency)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        port = int(proc.stdout.readline()) if proc.stdout else 0
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(10)


def _answer(up: Upstream) -> str | None:
    text = up["generate"]["text"]
    return None if text is None else str(text)


class PairwiseBench:
    """generate (replayed answers) → pairwise judge; the aggregate counts outcomes only."""

    name = "judge-throughput"
    seed = "001"
    title = "pairwise judge throughput"
    takes_systems = True
    roles = (Role("judge", "the LLM judge", required=True),)
    options = PROMPTS.options
    prompts: Mapping[str, str] = JUDGE_PROMPTS

    def default_data(self) -> Path:
        return PROMPTS.default_data()

    def load(self, path: Path, options: Any) -> Any:
        return PROMPTS.load(path, options)

    def reference(self, sample: Any) -> str | None:
        return str(sample.reference)

    def stages(self, setup: Setup) -> list[Any]:
        judge: PairwiseJudge[Any] = PairwiseJudge(
            lambda s: (INSTRUCTION, s.prompt), lambda s: s.reference, _answer
        )
        return [GenerateStage(lambda s: s.chat(), setup.params), judge]

    def aggregate(self, samples: Any, results: Results, setup: Setup) -> Summary:
        outcomes: dict[str, int] = {}
        for row in results.ok("pairwise_judge"):
            for pair in row["pairs"]:
                outcomes[pair["outcome"]] = outcomes.get(pair["outcome"], 0) + 1
        return Summary({s: {} for s in results.systems}, {"outcomes": outcomes})

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        return []

    def demo(self) -> Demo:
        """No demo."""
        return Demo()


def _context(i: int) -> str:
    return f"S1：週末は何をしていましたか？（{i}）"


def _reply(system: int, i: int) -> str:
    return f"システム{system}の返事です、{i}番目の話題について。"


def _jsonl(path: Path, records: Sequence[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def _inputs(tmp: Path, items: int, systems: int) -> tuple[Path, list[str]]:
    """The items and one replay file of answers per system (their SPECs)."""
    data = tmp / "items.jsonl"
    _jsonl(
        data, [{"id": f"i{i}", "prompt": _context(i), "reference": REFERENCE} for i in range(items)]
    )
    specs = []
    for k in range(systems):
        path = tmp / f"system{k}.jsonl"
        _jsonl(path, [{"id": f"i{i}", "text": _reply(k, i)} for i in range(items)])
        specs.append(f"replay:{path}")
    return data, specs


def _fastchat_inputs(root: Path, items: int, systems: int) -> list[str]:
    """The same items and answers as FastChat bench files (``data/judgebench``), with our
    pairwise prompt as its judge prompts; returns the model names."""
    template = PAIRWISE_TEMPLATE.replace("{instruction}\n\n[文脈]\n{context}", "{question}")
    template = template.replace("{reference}", "{ref_answer_1}")
    if "{instruction}" in template or "{context}" in template:
        raise SystemExit("the pairwise template changed: update _fastchat_inputs")
    names = ("pair-v2", "pair-math-v1", "pair-v2-multi-turn", "pair-math-v1-multi-turn")
    prompt = {"type": "pairwise", "system_prompt": PAIRWISE_SYSTEM, "output_format": "[[A]]"}
    _jsonl(
        root / "data" / "judge_prompts.jsonl",
        [{"name": n, **prompt, "prompt_template": template} for n in names],
    )
    bench = root / "data" / "judgebench"
    question = f"{INSTRUCTION}\n\n[文脈]\n{{}}"
    _jsonl(
        bench / "question.jsonl",
        [
            {"question_id": i, "category": "math", "turns": [question.format(_context(i))]}
            for i in range(items)
        ],
    )
    _jsonl(
        bench / "reference_answer" / "gpt-4.jsonl",
        [{"question_id": i, "choices": [{"index": 0, "turns": [REFERENCE]}]} for i in range(items)],
    )
    models = [f"system{k}" for k in range(systems)]
    for k, model in enumerate(models):
        _jsonl(
            bench / "model_answer" / f"{model}.jsonl",
            [
                {
                    "question_id": i,
                    "model_id": model,
                    "choices": [{"index": 0, "turns": [_reply(k, i)]}],
                }
                for i in range(items)
            ],
        )
    return models


_FASTCHAT_MAIN = """
import runpy, sys, time
import fastchat.llm_judge.common  # torch, transformers: imported before the clock starts
sys.argv = ["gen_judgment.py", *sys.argv[1:]]
t0 = time.perf_counter()
runpy.run_module("fastchat.llm_judge.gen_judgment", run_name="__main__")
print(f"FASTCHAT_WALL {time.perf_counter() - t0:.3f}", file=sys.stderr)
"""


def fastchat_wall(python: str, url: str, root: Path, models: list[str], parallel: int) -> float:
    """FastChat's pairwise-all judging of ``models`` against ``url``: its wall seconds."""
    args = ["--bench-name", "judgebench", "--judge-model", "gpt-4", "--mode", "pairwise-all"]
    args += ["--parallel", str(parallel), "--model-list", *models]
    env = {**os.environ, "OPENAI_API_BASE": url, "OPENAI_API_KEY": "local-stub"}
    proc = subprocess.run(
        [python, "-c", _FASTCHAT_MAIN, *args],
        input="\n",  # gen_judgment.py asks "Press Enter to confirm..."
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = [x for x in proc.stderr.splitlines() if x.startswith("FASTCHAT_WALL ")]
    if proc.returncode != 0 or not found:
        raise SystemExit(f"FastChat failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    judged = root / "data" / "judgebench" / "model_judgment" / "gpt-4_pair.jsonl"
    rows = [json.loads(x) for x in judged.read_text(encoding="utf-8").splitlines()]
    errors = sum("error" in (r["g1_winner"], r["g2_winner"]) for r in rows)
    print(f"FastChat: {len(rows)} pairs judged in both orders, {errors} with an unread verdict")
    return float(found[0].split()[1])


def _judge_calls(result: Any) -> dict[str, Any]:
    [calls] = [c for c in result.summary["calls"] if c["role"] == "judge"]
    return dict(calls)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--items", type=int, default=200)
    ap.add_argument("--systems", type=int, default=5)
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--fastchat", metavar="PYTHON", help="an interpreter with fschat installed")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        _serve(args.latency)
        return
    pairs = args.items * args.systems * (args.systems - 1) // 2
    requests = 2 * pairs
    fastchat = None
    with tempfile.TemporaryDirectory() as tmp, judge_server(args.latency) as url:
        t = Path(tmp)
        data, systems = _inputs(t, args.items, args.systems)
        cfg = RunConfig(
            method="judge-throughput",
            models=systems,
            roles={"judge": "openai:judge"},
            base_url=url,
            data=data,
            out=t / "run",
            cache_dir=t / "cache",
            concurrency=args.concurrency,
        )
        # Warm-up (imports, first connections) on a separate run, then the timed run.
        warm = {"limit": 10, "out": t / "warm", "cache_dir": t / "warm-cache"}
        run(cfg.model_copy(update=warm), method=PairwiseBench(), show_progress=False)
        t0 = time.perf_counter()
        result = run(cfg, method=PairwiseBench(), show_progress=False)
        wall = time.perf_counter() - t0
        t0 = time.perf_counter()  # the same run again: every verdict from the cache
        rerun_cfg = cfg.model_copy(update={"out": t / "rerun"})
        cached = run(rerun_cfg, method=PairwiseBench(), show_progress=False)
        rerun = time.perf_counter() - t0
        if args.fastchat:
            models = _fastchat_inputs(t / "fastchat", args.items, args.systems)
            fastchat = fastchat_wall(args.fastchat, url, t / "fastchat", models, args.concurrency)
    floor = asyncio.run(_overhead().sleeps_only(requests, args.latency, args.concurrency))
    ideal = requests * args.latency / args.concurrency
    judge = _judge_calls(result)
    seconds = result.summary["seconds"]
    print(
        f"{pairs} pairwise comparisons ({args.items} items x {args.systems} systems), "
        f"{requests} judge requests, latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}"
    )
    print(
        f"taiwa: judge requests sent {judge['calls']}, failed {judge['failures']}, invalid "
        f"{judge['invalid']}; outcomes {result.summary['across']['outcomes']}; seconds: judge "
        f"stage {seconds['pairwise_judge']:.2f}, aggregate {seconds['aggregate']:.2f}; "
        f"rerun: {_judge_calls(cached)['cache_hits']} cache hits"
    )
    rows = [
        ("ideal: requests x latency / concurrency", ideal),
        ("timers only: asyncio.sleep, no network", floor),
        ("taiwa PairwiseJudge (runner, cache, client, files)", wall),
        ("taiwa, the same run again (verdicts from the cache)", rerun),
    ]
    if fastchat is not None:
        rows.append((f"FastChat llm_judge (--parallel {args.concurrency})", fastchat))
    print(f"{'path':52s} {'wall s':>7s} {'wall/ideal':>10s}")
    for name, sec in rows:
        print(f"{name:52s} {sec:7.2f} {sec / ideal:10.3f}")
    print("target for taiwa: <= 1.10", end="")
    print(f"; taiwa / FastChat wall: {wall / fastchat:.2f} (goal <= 0.5)" if fastchat else "")


if __name__ == "__main__":
    main()
