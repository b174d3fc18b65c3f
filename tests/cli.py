"""Running the real ``taiwa`` command in a subprocess, as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def taiwa(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """``python -m taiwa ARGS`` with a wide terminal; output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "taiwa", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )


def taiwa_main(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``taiwa ARGS`` through the command's entry point in this process (``taiwa.cli.app.main``, as
    the ``taiwa`` script calls it), with :func:`taiwa`'s wide terminal: the same exit code,
    stdout and stderr, without starting an interpreter (about 0.5 CPU s a call). What only a
    child process shows (the entry point, signals, the interpreter's exit) is :func:`taiwa`'s;
    a traceback or a hang fails the test."""
    import pytest
    from fuzz_core import run_in_process

    # COLUMNS for the consoles made during the call; those made before it keep the width
    # they were made with (rich reads COLUMNS then: a test's CliRunner at 100 columns made
    # one, and a long tmp_path then split a table) and are set to 200 for the call
    consoles = {id(c): c for c in _consoles()}.values()
    widths = [vars(c)["_width"] for c in consoles]
    try:
        with pytest.MonkeyPatch.context() as env:
            env.setenv("COLUMNS", "200")
            for console in consoles:
                console.width = 200
            outcome = run_in_process(list(args), timeout=timeout)
    finally:
        for console, width in zip(consoles, widths, strict=True):
            vars(console)["_width"] = width
    if outcome.crash is not None:
        pytest.fail(f"taiwa {' '.join(args)}: {outcome.crash}")
    assert outcome.code is not None
    return subprocess.CompletedProcess(
        ["taiwa", *args], outcome.code, outcome.stdout, outcome.stderr
    )


def _consoles() -> list[Any]:
    """The rich consoles the CLI's modules made so far (:mod:`taiwa.display.console`: each is made
    on
    first use) print to."""
    from rich.console import Console

    from taiwa.display.console import LazyConsole

    found = [
        vars(value)["made"] if isinstance(value, LazyConsole) else value
        for name, module in list(sys.modules.items())
        if name.startswith("taiwa") and module is not None
        for value in list(vars(module).values())
        if isinstance(value, Console | LazyConsole)
    ]
    return [c for c in found if c is not None]


def after_a_run(args: list[str], out: Path, setup: str, result: str) -> Any:
    """Run ``taiwa run ARGS -q --no-cache --out OUT/run`` in a fresh interpreter through the
    CLI's ``main`` (``setup``, Python code, runs first; it may patch what the run uses) and
    return ``result``, a Python expression evaluated after the run (JSON-able), e.g. which
    modules the run imported."""
    run = [*args, "-q", "--no-cache", "--out", str(out / "run")]
    code = (
        "import sys, json\n"
        f"{setup}\n"
        "from taiwa.cli.app import main\n"
        "try:\n"
        f"    main({json.dumps(['run', *run])})\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        f"print(json.dumps({result}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])
