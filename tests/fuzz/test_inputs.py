"""Every input of the CLI fuzzed (issue 40, point 2), driven by the list in :mod:`inputs`:

- the list is complete: every option and argument of every command (introspected from the
  typer app) and every method option is in it, and a file a command opens by itself is one of
  its entries (an audit hook records the files each command opens);
- every listed option, argument and file, given seeded bad values of its family
  (:mod:`input_values`), is refused with exit 2 and one error line (no traceback, no hang, no
  silent exit 0).

The files with a schema are fuzzed by hypothesis in ``test_input_schemas.py``; both modules
run in process in about 45 s."""

from __future__ import annotations

import fnmatch
import os
import shutil
import sys
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from fuzz_core import Expect, problems, run_in_process
from input_values import cases
from inputs import FLAGS, INPUTS, KINDS, METHOD_FILES, Input, two_system_run

from taiwa.cli.app import app

# ------------------------------------------------------------------ the list is complete


def _commands() -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        out[" ".join(path)] = list(cmd.params)

    walk(typer.main.get_command(app), [])
    return out


def _takes_path(param: Any) -> bool:
    ann = param.type_descriptor.annotation
    args = typing.get_args(ann) if typing.get_origin(ann) in (list, types.UnionType) else ()
    return ann is Path or Path in args


def test_every_option_and_argument_is_listed() -> None:
    listed = {(i.command, i.name): i for i in INPUTS if not i.command.startswith("run ")}
    seen = set()
    missing = []
    for command, params in _commands().items():
        for p in params:
            name = p.opts[0] if p.param_type_name == "option" else p.name
            if name in FLAGS or getattr(p, "is_flag", False):
                continue
            seen.add((command, name))
            entry = listed.get((command, name))
            if entry is None:
                missing.append(f"taiwa {command} {name}")
            elif _takes_path(p) and entry.kind == "value":  # (a str may name files too)
                missing.append(f"taiwa {command} {name}: takes a path, listed as a value")
    assert not missing, f"inputs not in tests/fuzz/inputs.py (or of another kind): {missing}"
    stale = [k for k, i in listed.items() if i.kind != "opens" and k not in seen]
    assert not stale, f"listed inputs the CLI no longer has: {stale}"
    assert {i.kind for i in INPUTS} <= set(KINDS)


def test_every_method_option_is_listed() -> None:
    from taiwa.benchmarks import get_method, method_names

    listed = {(i.command, i.name) for i in INPUTS}
    for name in method_names():
        for key, info in get_method(name).options.model_fields.items():
            assert (f"run {name}", f"-o {key}") in listed
            ann = str(info.annotation)
            if "Path" in ann:
                assert (name, key) in METHOD_FILES, f"-o {key} of {name} takes a file"


def _opened_by(argv: list[str], work: Path) -> set[Path]:
    """The files below ``work`` that ``taiwa ARGV`` opened for reading."""
    opened: set[Path] = set()
    active = [True]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if not active[0] or event != "open" or not isinstance(args[0], str | bytes):
            return
        mode, flags = args[1], args[2] if len(args) > 2 else 0
        writes = (mode is not None and any(c in str(mode) for c in "wax+")) or (
            mode is None and isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR)
        )
        path = Path(os.fsdecode(args[0]))
        if not writes and path.is_absolute() and work in path.parents:
            opened.add(path)

    sys.addaudithook(hook)
    try:
        outcome = run_in_process(argv)
    finally:
        active[0] = False  # an audit hook cannot be removed: it is switched off
    assert outcome.code == 0 and outcome.crash is None, outcome.stderr + str(outcome.crash)
    return opened


def test_the_files_commands_open_are_listed(tmp_path: Path) -> None:
    """A file a command opens by itself (not named on its command line, not in its cache or
    its own output) is one of the command's ``opens`` entries."""
    finished = two_system_run(tmp_path)
    prices = tmp_path / "prices.yaml"
    prices.write_text("builtin:parrot: [0, 0]\n", "utf-8")
    data = str(finished.parent / "prompts3.jsonl")
    lines = [
        ["report", str(finished), "--out", str(tmp_path / "r.html")],
        ["leaderboard", str(tmp_path)],
        ["compare", str(finished)],
        ["show", str(finished)],
        ["show", str(finished), "p01"],
        ["run", "prompts", "-m", "builtin:parrot", "--data", data, "--prices", str(prices),
         "--out", str(tmp_path / "run2"), "--no-cache", "-q"],
    ]  # fmt: skip
    for argv in lines:
        command = argv[0]
        given = {Path(a) for a in argv if a.startswith("/")}
        own = [tmp_path / "run2", tmp_path / "r.html"]
        patterns = [i.name for i in INPUTS if i.command == command and i.kind == "opens"]
        for path in _opened_by(argv, tmp_path):
            if path in given or any(p == path or p in path.parents for p in own):
                continue
            assert any(fnmatch.fnmatch(path.name, pat) for pat in patterns), (
                f"taiwa {command} opened {path.name}: list it in tests/fuzz/inputs.py"
            )


def _fuzzed() -> Iterator[Any]:
    for entry in INPUTS:
        if entry.kind == "opens":
            continue
        for label, make in cases(entry):
            yield pytest.param(entry, make, id=f"{entry.id} {label}")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory for the module's cases (small inputs and finished runs made once)."""
    return tmp_path_factory.mktemp("inputs")


@pytest.mark.parametrize(("entry", "make"), list(_fuzzed()))
def test_every_input_refuses_its_bad_values(entry: Input, make: Any, work: Path) -> None:
    assert entry.argv is not None
    here = work / "case"
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir()
    value = make(here)
    argv = entry.argv(work, value)
    outcome = run_in_process(argv)
    bare = entry.name.split(" ")[-1].lstrip("-")
    shown = Path(value).name[:20] if value.startswith("/") else value[:20]
    names = (entry.name, bare, bare.replace("-", "_"), shown or "''")
    found = problems(outcome, Expect(refuse=True, names=()))
    assert not found, f"taiwa {' '.join(a[:80] for a in argv)}: {found}"
    assert any(n and n in outcome.stderr for n in names) or "Usage" in outcome.stderr, (
        f"the error names none of {names}: {outcome.stderr[-400:]}"
    )
