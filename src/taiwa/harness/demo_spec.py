"""What a method's section of ``taiwa demo`` runs, declared as a value (issue 28).

A method never runs itself: :meth:`~taiwa.harness.method.Method.demo` returns a :class:`Demo`,
and ``taiwa demo`` (:mod:`taiwa.cli.demo`) hands each :class:`DemoRun` to the runner as the
:class:`~taiwa.harness.config.RunConfig` a ``taiwa run`` with the same flags would build. A
demo is a list of :class:`DemoStep`, done in order:

1. ``before(out)``: lines printed first, computed from the demo's output directory. It may
   prepare files the step's runs read (e.g. render a dataset to audio), but never runs the
   method; ``status`` is shown while it works;
2. the runs, each printed as it finishes (``show``: the whole result as ``taiwa run`` prints
   it, the method's tables only, or nothing);
3. ``after(outcomes)``: lines printed last, from the runs' summaries and run directories (a note
   on what the numbers mean, a table joining several runs).

"Lines" are anything ``rich`` prints: strings (with markup) or renderables such as tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol


class RunOutcome(Protocol):
    """What a finished demo run offers the lines printed after it."""

    @property
    def run_dir(self) -> Path: ...
    @property
    def summary(self) -> Mapping[str, Any]: ...


Lines = Sequence[Any]
"""What a demo prints: strings (rich markup) and rich renderables, in order."""


@dataclass(frozen=True)
class DemoRun:
    """One run of the method, the settings of ``taiwa run``: ``systems`` (``--model``),
    ``roles`` (``--role``), ``options`` (``-o``), ``data`` (``--data``; a relative path lies
    under the demo's output directory, where a ``before`` step wrote it; default: the bundled
    sample), ``limit`` (``--limit``), ``max_tokens`` (``--max-tokens``; ``None``: the
    default) and ``out``, the run directory under the demo's output directory."""

    out: str
    systems: Sequence[str] = ()
    roles: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    data: Path | None = None
    limit: int | None = None
    max_tokens: int | None = None
    progress: bool = True
    """Progress bars while it runs."""
    show: Literal["result", "tables", "nothing"] = "result"
    """What is printed when it finishes: ``result`` (the method's tables, calls per role, notes,
    failures and the run directory, as ``taiwa run`` prints them), ``tables`` (the method's
    tables only) or ``nothing`` (the step's ``after`` prints what matters)."""


@dataclass(frozen=True)
class DemoStep:
    """Lines, then runs, then lines (see the module docstring)."""

    runs: Sequence[DemoRun] = ()
    before: Callable[[Path], Lines] | None = None
    status: str | None = None
    after: Callable[[Sequence[RunOutcome]], Lines] | None = None


@dataclass(frozen=True)
class Demo:
    """A method's whole section of ``taiwa demo`` (no steps: the method shows nothing)."""

    steps: Sequence[DemoStep] = ()


def one_run(run: DemoRun, note: Callable[[RunOutcome], Lines] | None = None) -> Demo:
    """The common demo: one run, then ``note`` on its outcome."""
    after = None if note is None else (lambda outcomes: note(outcomes[0]))
    return Demo([DemoStep([run], after=after)])
