"""What a stage keeps for the whole run (``Held``, issue 29): the runner opens it once before the
dataset is read and closes it once when the run ends, however it ends (finished, a failed
preparation, an error in a stage, Ctrl-C), knowing nothing of what it is."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from taiwa.benchmarks import get_method
from taiwa.core.errors import TaiwaError
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.held import HeldResources
from taiwa.harness.runner import run

DIALOGUES = sample_path("cohesion/dialogues.jsonl")


class Recorder:
    """A held resource that writes down what is done to it (and to the dataset) in order."""

    def __init__(self, events: list[Any], name: str = "held", fail_open: bool = False) -> None:
        self.events = events
        self.name = name
        self.fail_open = fail_open

    def open(self, data: Path) -> None:
        self.events.append(("open", self.name, data))
        if self.fail_open:
            raise TaiwaError(f"{self.name} could not open")

    def close(self) -> None:
        self.events.append(("close", self.name))


class Holding:
    """A real method (cohesion) whose stages hold ``held``; ``fail`` makes the scoring raise."""

    def __init__(self, held: Recorder, fail: type[BaseException] | None = None) -> None:
        self._method = get_method("cohesion")
        self.held = held
        self.fail = fail

    def __getattr__(self, name: str) -> Any:
        return getattr(self._method, name)

    def load(self, path: Path, options: Any) -> Iterator[Any]:
        self.held.events.append(("load", path))
        return self._method.load(path, options)

    def stages(self, setup: Any) -> Sequence[Any]:
        stages = list(self._method.stages(setup))
        stages[0].held = (*stages[0].held, self.held)
        if self.fail is not None:
            fail = self.fail

            def broken(samples: Any, upstreams: Any) -> Iterator[Any]:
                raise fail("stopped in the stage")

            stages[0].compute_many = broken
        return stages


def _run(method: Holding, data: Path, out: Path) -> Any:
    return run(RunConfig(method="cohesion", data=data, out=out), method, show_progress=False)


def test_opened_before_the_dataset_is_read_and_closed_once_after(tmp_path: Path) -> None:
    events: list[Any] = []
    res = _run(Holding(Recorder(events)), DIALOGUES, tmp_path / "run")
    assert res.failures == 0
    assert events[0] == ("open", "held", DIALOGUES.resolve())
    assert events[1][0] == "load"  # the dataset is read after the opening
    assert events.count(("close", "held")) == 1 and events[-1] == ("close", "held")


@pytest.mark.parametrize("fail", [RuntimeError, KeyboardInterrupt])
def test_closed_when_a_stage_fails_or_ctrl_c(tmp_path: Path, fail: type[BaseException]) -> None:
    events: list[Any] = []
    with pytest.raises(fail, match="stopped in the stage"):
        _run(Holding(Recorder(events), fail), DIALOGUES, tmp_path / "run")
    assert events.count(("close", "held")) == 1
    assert (tmp_path / "run" / "INCOMPLETE").exists()  # and a re-run goes on from there
    assert _run(Holding(Recorder(events)), DIALOGUES, tmp_path / "run").failures == 0


def test_closed_when_the_preparation_fails_after_opening(tmp_path: Path) -> None:
    events: list[Any] = []
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(TaiwaError, match="at least one record"):  # in the reading
        _run(Holding(Recorder(events)), empty, tmp_path / "run")
    assert events[0][0] == "open" and events[-1] == ("close", "held")


def test_each_held_once_and_all_closed_when_one_fails_to_open(tmp_path: Path) -> None:
    events: list[Any] = []
    first, second = Recorder(events, "first"), Recorder(events, "second", fail_open=True)

    class Stage:
        def __init__(self, *held: Recorder) -> None:
            self.held = held

    held = HeldResources([Stage(first), Stage(first, second), Stage()])
    assert len(held) == 2
    with pytest.raises(TaiwaError, match="second could not open"):
        held.open(tmp_path)
    assert events == [
        ("open", "first", tmp_path),
        ("open", "second", tmp_path),
        ("close", "second"),
        ("close", "first"),
    ]
    held.close()  # idempotent
    assert len(events) == 4
