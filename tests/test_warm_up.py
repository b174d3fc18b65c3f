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

from taiwa.harness import warm_up


def _probe(tmp_path: Path, name: str) -> None:
    """A module that records the thread importing it."""
    (tmp_path / f"{name}.py").write_text(
        "import threading\nTHREAD = threading.current_thread().name\n", encoding="utf-8"
    )


def test_summary_modules_are_imported_in_a_thread_once_requests_are_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _probe(tmp_path, "taiwa_warm_probe_a")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(warm_up, "SUMMARY_MODULES", ("taiwa_warm_probe_a",))
    monkeypatch.delitem(sys.modules, "taiwa_warm_probe_a", raising=False)

    async def run() -> bool:
        wait = warm_up.warm_up_soon(asyncio.get_running_loop())
        before = "taiwa_warm_probe_a" in sys.modules
        await asyncio.sleep(warm_up.WARM_AFTER * 3)
        wait()
        return before

    assert asyncio.run(run()) is False  # not at once: the first requests go first
    probe = sys.modules["taiwa_warm_probe_a"]
    assert probe.THREAD == "taiwa-warm-up"
    assert threading.current_thread().name != probe.THREAD


def test_a_run_over_before_the_warm_up_imports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _probe(tmp_path, "taiwa_warm_probe_b")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(warm_up, "SUMMARY_MODULES", ("taiwa_warm_probe_b",))
    monkeypatch.delitem(sys.modules, "taiwa_warm_probe_b", raising=False)

    async def run() -> None:
        warm_up.warm_up_soon(asyncio.get_running_loop())()

    asyncio.run(run())
    assert "taiwa_warm_probe_b" not in sys.modules


def test_an_intent_runs_first_request_does_not_wait_for_numpy(tmp_path: Path) -> None:
    """Whether numpy is loaded when the model gets its first request, and when the run is
    written: not yet, then yes (the aggregate's CIs need it)."""
    code = (
        "import sys, json\n"
        "from taiwa.models.builtin import BuiltinModel\n"
        "seen = []\n"
        "orig = BuiltinModel._complete\n"
        "async def complete(self, request):\n"
        "    seen.append('numpy' in sys.modules)\n"
        "    return await orig(self, request)\n"
        "BuiltinModel._complete = complete\n"
        "from taiwa.cli import main\n"
        "try:\n"
        f"    main(['run', 'intent', '-m', 'builtin:fixed', '-q', '--no-cache',"
        f" '--out', {json.dumps(str(tmp_path))} + '/run'])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print(json.dumps([seen[0], 'numpy' in sys.modules, len(seen)]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    first, at_end, calls = json.loads(out.stdout.strip().splitlines()[-1])
    assert calls > 0
    assert first is False
    assert at_end is True
