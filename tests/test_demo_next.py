"""`taiwa demo` ends with the next three commands a user runs on their own model (issue 42
point 4): the demo's run of the embedded LLM with an OpenAI-compatible endpoint in its place,
the report of that run, and its paired comparison with the demo's run. Here the commands are
run verbatim (MODEL and URL filled in with a stub server) after a run made where the demo
makes its run, so a change to the demo, to `taiwa run`'s run identity or to `taiwa compare`'s
checks that breaks them fails."""

from __future__ import annotations

import io
import json
import shlex
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

import taiwa.cli.demo as demo_cli
from cli import taiwa_main
from taiwa.benchmarks import get_method
from taiwa.harness.runner import run
from taiwa.testing.stub_server import StubState, serve


def _demo_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int) -> list[str]:
    """What `taiwa demo` prints after its methods' sections, at ``width`` columns (the
    sections and the report skipped: they are tests/test_cli.py's)."""
    import taiwa.report.page

    monkeypatch.setattr(demo_cli, "metrics_on_samples", lambda console, out: None)
    monkeypatch.setattr(demo_cli, "method_demo", lambda method, console, out: None)
    monkeypatch.setattr(taiwa.report.page, "write_report", lambda dirs, path, methods: Path(path))
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    demo_cli.run_demo(console)  # the default: runs/demo, relative to the working directory
    return console.export_text().rstrip("\n").splitlines()


def test_the_demo_ends_with_the_three_commands_at_80_columns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lines = _demo_tail(tmp_path, monkeypatch, 80)
    commands = demo_cli.next_commands(Path("runs") / "demo")
    assert len(commands) == 3
    # each on a line of its own, whole (a copy-paste gets the command), after the report
    assert [line.strip() for line in lines[-3:]] == commands, lines
    assert all(len(line) <= 80 for line in lines[-3:]), lines
    assert "report.html" in "\n".join(lines[:-3])
    run_cmd, report_cmd, compare_cmd = (shlex.split(c) for c in commands)
    assert run_cmd[:2] == ["taiwa", "run"] and "openai:MODEL" in run_cmd and "URL" in run_cmd
    assert report_cmd[:2] == ["taiwa", "report"] and compare_cmd[:2] == ["taiwa", "compare"]


def test_the_three_commands_run_against_an_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's run (a builtin system standing in for the slow demo LLM: the run's settings
    are the demo's), then the three commands verbatim with MODEL and URL given: the run
    succeeds, the report is written, and `taiwa compare` accepts the two runs and pairs the
    systems on the same items."""
    monkeypatch.chdir(tmp_path)
    out = Path("runs") / "demo"
    commands = demo_cli.next_commands(out)
    method_name = shlex.split(commands[0])[2]
    method = get_method(method_name)
    [demo_run] = [
        r for step in method.demo().steps for r in step.runs if tuple(r.systems) == ("demo",)
    ]
    stand_in = replace(demo_run, systems=("builtin:fixed",), progress=False)
    demo_cfg = demo_cli.run_config(method_name, stand_in, out)
    assert run(demo_cfg, method=method, show_progress=False).summary["status"] == "ok"
    with serve(StubState()) as url:
        results = []
        for command in commands:
            filled = command.replace("MODEL", "my-model").replace(" URL", f" {url}")
            results.append(taiwa_main(*shlex.split(filled)[1:]))
    for command, r in zip(commands, results, strict=True):
        assert r.returncode == 0, f"{command}: {r.stderr}"
    mine = tmp_path / "runs" / "mine"
    summary = json.loads((mine / "summary.json").read_text(encoding="utf-8"))
    assert summary["status"] == "ok" and list(summary["systems"]) == ["openai:my-model"]
    assert (mine / "report.html").is_file()
    compared = " ".join(results[2].stdout.split())
    assert "openai:my-model" in compared and "builtin:fixed" in compared
