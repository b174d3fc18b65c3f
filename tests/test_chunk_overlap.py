"""Chunks overlapping at their seams (``harness/chunk_overlap.py``): the next chunk starts when
the current one drains, two at most run at once, rows keep chunk order, and the first error
stops them all."""

from __future__ import annotations

import asyncio

import pytest

from taiwa.harness.chunk_overlap import Draining, StageSeconds, after, run_overlapping
from taiwa.harness.stage_run import Unanswered


def _chunks(log: list[str], fail: int | None = None, slow: float = 0.05) -> object:
    """A chunk runner that logs start / drained / stored / end and drains halfway."""

    async def run(chunk: int, draining: asyncio.Event, before: asyncio.Future[None] | None) -> None:
        log.append(f"start {chunk}")
        await asyncio.sleep(0.01)
        draining.set()
        log.append(f"drained {chunk}")
        await asyncio.sleep(slow)
        if chunk == fail:
            raise ValueError(f"chunk {chunk} failed")
        await after(before)
        log.append(f"stored {chunk}")

    return run


def test_the_next_chunk_starts_once_the_current_one_drains_and_rows_keep_their_order() -> None:
    log: list[str] = []
    asyncio.run(run_overlapping(range(4), _chunks(log)))  # type: ignore[arg-type]
    assert log.index("start 1") < log.index("stored 0")  # overlapped
    assert log.index("drained 0") < log.index("start 1")  # not before the first drained
    assert [e for e in log if e.startswith("stored")] == [f"stored {i}" for i in range(4)]
    for k in range(2, 4):  # at most two at once: k starts after k - 2 is done
        assert log.index(f"stored {k - 2}") < log.index(f"start {k}")


@pytest.mark.parametrize("fail", [0, 1])
def test_the_first_error_stops_every_chunk_and_is_raised(fail: int) -> None:
    log: list[str] = []
    with pytest.raises(ValueError, match=f"chunk {fail} failed"):
        asyncio.run(run_overlapping(range(5), _chunks(log, fail=fail)))  # type: ignore[arg-type]
    assert not any(e.startswith(f"stored {k}") for k in range(fail, 5) for e in log)
    assert f"start {fail + 2}" not in log


def test_a_stage_drains_when_its_model_has_slots_it_cannot_fill() -> None:
    fired: list[int] = []
    u = Unanswered(lambda: fired.append(1), slots=4)
    u.add(10)
    for _ in range(7):
        u.answer()
    assert not fired  # 3 unanswered, but requests may still come
    u.all_sent()
    assert fired == [1]
    u.answer()
    u.done()
    assert fired == [1]  # once
    u = Unanswered(lambda: fired.append(2), slots=4)
    u.add(10)
    u.all_sent()
    assert fired == [1]  # 10 unanswered: the slots are full
    u.done()
    assert fired == [1, 2]


def test_draining_waits_for_every_lane() -> None:
    event = asyncio.Event()
    lanes = Draining(event, 2)
    a, b = lanes.lane(), lanes.lane()
    a()
    a()
    assert not event.is_set()
    b()
    assert event.is_set()
    none = asyncio.Event()
    Draining(none, 0)
    assert none.is_set()


def test_stage_seconds_count_overlapping_chunks_once() -> None:
    seconds: dict[str, float] = {}
    clock = StageSeconds(seconds)
    clock.add("generate", 0.0, 10.0)
    clock.add("generate", 9.5, 20.0)  # the next chunk began before this one ended
    clock.add("score", 1.0, 2.0)
    assert seconds == {"generate": 20.0, "score": 1.0}
