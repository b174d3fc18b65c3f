"""The collector's policy: paused during a run, and kept out of the interpreter's exit when
``taiwa`` is the process (issue 29: last reply to exit)."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

import pytest

from taiwa.harness.collector import collector_paused

_PROBE = (
    "import atexit, gc, json, sys\n"
    "atexit.register(lambda: print(json.dumps([gc.isenabled(), gc.get_freeze_count() > 0])))\n"
    "from taiwa.cli.app import main\n"
    "sys.argv = ['taiwa', '--version']\n"
)


@pytest.mark.parametrize(
    ("call", "expected"),
    [("main()", [False, True]), ("main(['--version'])", [True, False])],
)
def test_the_process_entry_skips_the_exit_collection_a_caller_keeps_it(
    call: str, expected: list[bool]
) -> None:
    code = _PROBE + f"try:\n    {call}\nexcept SystemExit as e:\n    assert not e.code\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == expected


def test_collector_paused_restores_the_policy() -> None:
    before = (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled())
    with collector_paused():
        assert gc.get_threshold()[0] >= 10 * 700
    assert (gc.get_threshold(), gc.get_freeze_count(), gc.isenabled()) == before
