"""The statistics a summary needs are loaded during the requests, not before the first one
(issue 29: exec to first request) nor after the last one (last reply to exit)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cli import after_a_run
from taiwa.harness import warm_up
from taiwa.harness.stage_run import BUILD_SLICE, FIRST_WAVE_ROUNDS


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module not yet imported, which records the thread importing it, as the one module
    the warm-up imports."""
    name = f"taiwa_warm_probe_{tmp_path.name}"
    (tmp_path / f"{name}.py").write_text(
        "import threading\nTHREAD = threading.current_thread().name\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(warm_up, "SUMMARY_MODULES", (name,))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_summary_modules_are_imported_in_a_thread_once_requests_are_out(probe: str) -> None:
    async def run() -> bool:
        wait = warm_up.warm_up_soon(asyncio.get_running_loop())
        before = probe in sys.modules
        await asyncio.sleep(warm_up.WARM_AFTER * 3)
        wait()
        return before

    assert asyncio.run(run()) is False  # not at once: the first requests go first
    module = sys.modules[probe]
    assert module.THREAD == "taiwa-warm-up"
    assert threading.current_thread().name != module.THREAD


def test_a_run_over_before_the_warm_up_imports_nothing(probe: str) -> None:
    async def run() -> None:
        warm_up.warm_up_soon(asyncio.get_running_loop())()

    asyncio.run(run())
    assert probe not in sys.modules


def test_an_intent_runs_first_request_does_not_wait_for_numpy(tmp_path: Path) -> None:
    """Whether numpy is loaded when the model gets its first request, and when the run is
    written: not yet, then yes (the aggregate's CIs need it)."""
    setup = (
        "from taiwa.models.builtin import BuiltinModel\n"
        "seen = []\n"
        "orig = BuiltinModel._complete\n"
        "async def complete(self, request):\n"
        "    seen.append('numpy' in sys.modules)\n"
        "    return await orig(self, request)\n"
        "BuiltinModel._complete = complete"
    )
    first, at_end, calls = after_a_run(
        ["intent", "-m", "builtin:fixed"],
        tmp_path,
        setup,
        "[seen[0], 'numpy' in sys.modules, len(seen)]",
    )
    assert calls > 0
    assert first is False
    assert at_end is True


LIGHT_BEFORE_THE_FIRST_REQUEST = ("numpy", "scipy", "sklearn", "matplotlib", "fugashi", "rich")
"""Libraries no method needs before its first request: loading one there delays it (numpy
alone 50-80 ms; da-response loaded it with its dataset and score stage; rich, 20-35 ms, draws
the progress bars and the tables, after the first requests are out)."""


@pytest.mark.parametrize(
    "method", ["prompts", "intent", "da-response", "chitchat", "da-distribution"]
)
def test_no_method_loads_a_heavy_library_before_its_first_request(
    method: str, tmp_path: Path
) -> None:
    """Which of :data:`LIGHT_BEFORE_THE_FIRST_REQUEST` are loaded when a system gets its first
    request, on each method's bundled sample: none (the run is ended there)."""
    code = (
        "import json, os, sys\n"
        "from taiwa.models.builtin import BuiltinModel\n"
        "async def complete(self, request):\n"
        f"    heavy = [m for m in {LIGHT_BEFORE_THE_FIRST_REQUEST!r} if m in sys.modules]\n"
        "    print(json.dumps(heavy), flush=True)\n"
        "    os._exit(0)\n"
        "BuiltinModel._complete = complete\n"
        "from taiwa.cli.app import main\n"
        f"main(['run', {method!r}, '-m', 'builtin:fixed', '-q', '--no-cache', "
        f"'--out', {str(tmp_path / 'run')!r}])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


def test_the_first_request_leaves_before_the_whole_chunk_is_built(tmp_path: Path) -> None:
    """How many requests the run had built when the model got its first one: the first wave's
    (a few rounds of the model's concurrency, 4 here) and a slice or two more built while it
    goes out, not the whole chunk's 1,000 (issue 29: exec to first request whatever the
    dataset size)."""
    data = tmp_path / "prompts.jsonl"
    data.write_text(
        "".join(f'{{"id": "p{i}", "prompt": "質問{i}です"}}\n' for i in range(1000)), "utf-8"
    )
    setup = (
        "from taiwa.models.builtin import BuiltinModel\n"
        "from taiwa.models.types import ChatRequest\n"
        "built, seen = [0], []\n"
        "orig_init = ChatRequest.__init__\n"
        "def init(self, *a, **k):\n"
        "    built[0] += 1\n"
        "    orig_init(self, *a, **k)\n"
        "ChatRequest.__init__ = init\n"
        "orig_model = BuiltinModel.__init__\n"
        "def model_init(self, name):\n"
        "    orig_model(self, name)\n"
        "    self.concurrency = 4\n"
        "BuiltinModel.__init__ = model_init\n"
        "orig = BuiltinModel._complete\n"
        "async def complete(self, request):\n"
        "    seen.append(built[0])\n"
        "    return await orig(self, request)\n"
        "BuiltinModel._complete = complete"
    )
    first, calls = after_a_run(
        ["prompts", "-m", "builtin:parrot", "--data", str(data)],
        tmp_path,
        setup,
        "[seen[0], len(seen)]",
    )
    assert calls == 1000, first
    assert FIRST_WAVE_ROUNDS * 4 <= first <= FIRST_WAVE_ROUNDS * 4 + 2 * BUILD_SLICE


def test_the_warm_up_draws_the_resamples_of_a_mean_over_the_samples() -> None:
    """The resampling indices of a mean over the run's samples are drawn during the requests;
    the aggregate's CI then reuses them, and is the CI it would have computed itself."""
    from taiwa.metrics import resample_memo, stats

    values = [float(i % 3 == 0) for i in range(257)]
    stats._resample_indices.cache_clear()
    alone = stats.bootstrap_ci(values, seed=11)
    stats._resample_indices.cache_clear()

    async def run() -> None:
        wait = warm_up.warm_up_soon(asyncio.get_running_loop(), len(values), 11)
        await asyncio.sleep(warm_up.WARM_AFTER * 3)
        wait()

    asyncio.run(run())
    drawn = stats._resample_indices.cache_info()
    assert drawn.currsize == 1 and drawn.misses == 1
    resample_memo._memo.clear()  # else the means of `alone` are recalled, no index drawn
    assert stats.bootstrap_ci(values, seed=11) == alone
    assert stats._resample_indices.cache_info().hits == drawn.hits + 1
