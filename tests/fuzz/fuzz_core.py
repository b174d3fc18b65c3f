"""The fuzzer's core: a variant (one malformed input ready to run), running it through the
CLI's entry point (in-process or as a real subprocess), and the verdict on what came out.

A verdict fails on a traceback (any exception other than ``SystemExit`` escaping
``taiwa.cli.app.main``), a signal, a hang, exit 0 (or 1) on unusable input, more than one
``error:`` line, or an error line that does not name the file (and the line) it should.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

IN_PROCESS_TIMEOUT = 30.0
"""Seconds one in-process variant may take before it counts as a hang."""

SUBPROCESS_TIMEOUT = 60.0
"""Seconds one real ``taiwa`` process may take before it counts as a hang."""

MAX_STDERR = 5_000
"""Characters a run may print on stderr: an error is one line, never a huge input echoed."""

STATS: dict[tuple[str, str, str], dict[str, int]] = {}
"""``(mode, target, kind family)`` → ``exit N`` (or ``crash``) → count, for the summary."""


def count(mode: str, variant: Variant, outcome: Outcome) -> None:
    """Add one outcome to :data:`STATS` (``mode``: in-process or subprocess)."""
    key = "crash" if outcome.crash is not None else f"exit {outcome.code}"
    per = STATS.setdefault((mode, variant.target, variant.family), {})
    per[key] = per.get(key, 0) + 1


@dataclass(frozen=True)
class Expect:
    """What must happen.

    ``refuse``: the input is unusable, so the command must exit 2 with one ``error:`` line.
    ``accept``: the input is valid (a UTF-8 BOM, CRLF line ends ...), so it must exit 0.
    Otherwise the command may accept or refuse, but never with a traceback.
    ``names``: when the command refuses, its error line must contain one of these (the file,
    ``file:line`` when the line is known, the option).
    ``may_fail``: exit 1 (a run with failed samples) is allowed when not refusing.
    ``runs``: the input is usable, so the command must not refuse it (exit 2), though its run
    may fail (exit 1) with ``may_fail``.
    """

    refuse: bool = False
    accept: bool = False
    names: tuple[str, ...] = ()
    may_fail: bool = False
    runs: bool = False


@dataclass(frozen=True)
class Built:
    """A variant written to disk: the command line and what must happen."""

    argv: list[str]
    expect: Expect


@dataclass(frozen=True)
class Variant:
    """One malformed input of one registered target, built on demand in its own directory."""

    target: str
    kind: str
    number: int
    build: Callable[[Path], Built] = field(compare=False, repr=False)
    xfail: str | None = None

    @property
    def id(self) -> str:
        return f"{self.target}::{self.kind}#{self.number}"

    @property
    def family(self) -> str:
        """The kind without the field it hit (``text/blank:reply`` → ``text/blank``) or, for
        an option, without the value (``run --seed '-5'`` → ``option: run --seed``)."""
        if self.target != "options":
            return self.kind.split(":")[0]
        return "option: " + re.split(r" '|=| on a| under a| with a", self.kind)[0]


@dataclass
class Outcome:
    """What a run of the CLI gave."""

    code: int | None
    stdout: str
    stderr: str
    crash: str | None = None
    """A traceback, the signal that killed the process, or ``hang``."""
    seconds: float = 0.0


class Hang(BaseException):
    """Raised by the alarm when an in-process variant runs too long."""


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: object) -> None:
        raise Hang(f"no exit within {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_COMMANDS: dict[tuple[tuple[int, ...], ...], Any] = {}


@contextlib.contextmanager
def _command_built_once() -> Iterator[None]:
    """typer builds the click command tree on every call of the app (once per process for a
    user, but many seconds over the suite's variants): keep the one built for each set of
    commands (``taiwa`` builds only the command a call names: a new app object each call,
    holding the same command objects). The command is the same object a fresh build gives;
    click makes a new context per call."""
    import typer.main

    build = typer.main.get_command

    def cached(app: Any) -> Any:
        key = (
            tuple(map(id, app.registered_commands)),
            tuple(map(id, app.registered_groups)),
            (id(app.registered_callback),),
        )
        if key not in _COMMANDS:
            _COMMANDS[key] = build(app)
        return _COMMANDS[key]

    typer.main.get_command = cached
    try:
        yield
    finally:
        typer.main.get_command = build


def run_in_process(argv: list[str], timeout: float = IN_PROCESS_TIMEOUT) -> Outcome:
    """``taiwa.cli.app.main(argv)`` with stdout/stderr captured, as the ``taiwa`` script runs it."""
    from taiwa.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    code: int | None = None
    crash = None
    try:
        with (
            _alarm(timeout),
            _command_built_once(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Hang as exc:
        crash = f"hang: {exc}"
    except BaseException:
        crash = traceback.format_exc()
    return Outcome(code, out.getvalue(), err.getvalue(), crash, time.perf_counter() - started)


def run_subprocess(
    argv: list[str], timeout: float = SUBPROCESS_TIMEOUT, cwd: Path | None = None
) -> Outcome:
    """The real ``taiwa`` command (``python -m taiwa``) in a child process, run in ``cwd``."""
    started = time.perf_counter()
    env = {**os.environ, "COLUMNS": "200", "PYTHONFAULTHANDLER": "1"}
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "taiwa", *argv],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=env,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired as exc:
        return Outcome(
            None,
            _text(exc.stdout),
            _text(exc.stderr),
            f"hang: no exit within {timeout:.0f} s",
            time.perf_counter() - started,
        )
    crash = None
    if proc.returncode < 0:
        crash = f"killed by signal {signal.Signals(-proc.returncode).name}\n{proc.stderr[-2000:]}"
    elif "Traceback (most recent call last)" in proc.stderr:
        crash = proc.stderr[-4000:]
    return Outcome(
        None if proc.returncode < 0 else proc.returncode,
        proc.stdout,
        proc.stderr,
        crash,
        time.perf_counter() - started,
    )


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def problems(outcome: Outcome, expect: Expect) -> list[str]:
    """Why ``outcome`` is not acceptable under ``expect`` (empty: it is)."""
    if outcome.crash is not None:
        return [f"crash: {outcome.crash.strip()[-1500:]}"]
    found: list[str] = []
    code = outcome.code
    if "Traceback (most recent call last)" in outcome.stderr + outcome.stdout:
        found.append("traceback printed")
    if expect.refuse and code != 2:
        found.append(f"exit {code} on unusable input (expected 2)")
    if expect.accept and code != 0:
        found.append(f"exit {code} on valid input (expected 0): {_tail(outcome.stderr)}")
    if expect.runs and code == 2:
        found.append(f"exit 2 on usable input: {_tail(outcome.stderr)}")
    if code == 1 and not expect.may_fail and not expect.refuse:
        found.append(f"exit 1 where no sample can fail: {_tail(outcome.stderr)}")
    if code not in (0, 1, 2):
        found.append(f"exit {code}")
    if code == 2:
        found += _error_line_problems(outcome.stderr, expect.names)
    if len(outcome.stderr) > MAX_STDERR:
        found.append(f"{len(outcome.stderr):,} characters on stderr (at most {MAX_STDERR:,})")
    return found


def _error_line_problems(stderr: str, names: tuple[str, ...]) -> list[str]:
    ours = [ln.strip() for ln in stderr.splitlines() if ln.strip().startswith("error:")]
    if len(ours) > 1:
        return [f"{len(ours)} error lines: {ours[:3]}"]
    if not ours:
        usage = [ln for ln in stderr.splitlines() if "Error" in ln or "Invalid value" in ln]
        if not usage:
            return [f"exit 2 without an error line: {_tail(stderr)}"]
        text = " ".join(stderr.split())
        if names and not any(n in text for n in names):
            return [f"usage error names none of {list(names)}: {_tail(stderr)}"]
        return []
    line = ours[0]
    if names and not any(n in line for n in names):
        return [f"error line names none of {list(names)}: {line[:400]}"]
    return []


def _tail(text: str, limit: int = 400) -> str:
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-limit:]


def run_variant(variant: Variant, root: Path) -> tuple[Outcome, list[str], list[str]]:
    """Build ``variant`` in its work directory, run it in-process from there, count it:
    (the outcome, its problems, the argv it ran)."""
    work = workdir(root, variant.id)
    built = variant.build(work)
    os.chdir(work)
    outcome = run_in_process(built.argv)
    count("in-process", variant, outcome)
    return outcome, problems(outcome, built.expect), built.argv


def workdir(root: Path, variant_id: str) -> Path:
    """A fresh directory for one variant (its inputs, run directory and cache)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", variant_id)[:120]
    path = root / slug
    n = 0
    while path.exists():
        n += 1
        path = root / f"{slug}.{n}"
    path.mkdir(parents=True)
    return path
