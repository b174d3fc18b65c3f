"""The followers' worker waits for a pause in the replies before it takes the interpreter
(harness/followers.py): while rows keep landing it runs none of them, after the pause it runs
them all in order, never waits longer than its cap, and not at all once the stage is drained."""

from __future__ import annotations

import asyncio
import threading
import time
from types import SimpleNamespace
from typing import Any

import pytest
from rich.progress import Progress

from taiwa.harness import followers as fmod
from taiwa.harness.followers import Followers
from taiwa.harness.stages import LocalStage


class Recorder:
    """A follower stage that records when it scored which sample."""

    def __init__(self) -> None:
        self.scored: list[tuple[float, str]] = []
        self.lock = threading.Lock()

    def score(self, sample: Any, up: Any) -> dict[str, Any]:
        with self.lock:
            self.scored.append((time.monotonic(), sample.id))
        return {"ok": True}


def _followers(rec: Recorder, n: int) -> tuple[Followers, Any]:
    upstream: dict[str, dict[str, dict[str, Any]]] = {"sys": {f"s{i}": {} for i in range(n)}}
    progress = Progress(disable=True)
    task = progress.add_task("score", total=n)
    pipe = Followers(
        "generate", [LocalStage("score", rec.score)], upstream, progress, {"score": task}
    )
    return pipe, pipe.lane("sys")


def _land(lane: Any, n: int, every: float) -> float:
    """Queue ``n`` rows ``every`` seconds apart; the time the last one landed."""
    last = 0.0
    for i in range(n):
        lane(SimpleNamespace(id=f"s{i}"), {"text": "ok"})
        last = time.monotonic()
        time.sleep(every)
    return last


def test_rows_landing_in_a_bunch_wait_for_the_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fmod, "QUIET_SECONDS", 0.3)
    monkeypatch.setattr(fmod, "MAX_WAIT_SECONDS", 30.0)
    rec = Recorder()
    pipe, lane = _followers(rec, 20)
    last = _land(lane, 20, 0.01)
    assert rec.scored == [], "a follower ran while the rows were still landing"
    deadline = time.monotonic() + 20
    while len(rec.scored) < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    pipe.close()
    assert [sid for _, sid in rec.scored] == [f"s{i}" for i in range(20)]
    assert rec.scored[0][0] >= last + 0.3 - 0.01  # after the pause, not before it


def test_the_wait_has_a_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fmod, "QUIET_SECONDS", 10.0)
    monkeypatch.setattr(fmod, "MAX_WAIT_SECONDS", 0.2)
    rec = Recorder()
    pipe, lane = _followers(rec, 60)
    start = time.monotonic()
    _land(lane, 60, 0.02)  # never a pause of 10 s: the cap lets the worker go
    assert rec.scored, "the worker waited past its cap while rows kept landing"
    assert rec.scored[0][0] >= start + 0.2 - 0.01
    pipe.close()
    assert len(rec.scored) == 60


def test_drain_takes_the_rows_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fmod, "QUIET_SECONDS", 30.0)
    monkeypatch.setattr(fmod, "MAX_WAIT_SECONDS", 60.0)
    rec = Recorder()
    pipe, lane = _followers(rec, 5)
    _land(lane, 5, 0.0)
    start = time.monotonic()
    asyncio.run(pipe.drain())
    pipe.close()
    assert [sid for _, sid in rec.scored] == [f"s{i}" for i in range(5)]
    assert time.monotonic() - start < 10, "drain waited for a pause that no row will end"
