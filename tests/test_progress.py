"""The run's progress bars (:mod:`taiwa.harness.progress`): drawn by rich from ``start`` on,
with what was advanced before it; a quiet run keeps nothing."""

from __future__ import annotations

import asyncio
import threading

from taiwa.harness.progress import ProgressBars


def _completed(bars: ProgressBars) -> list[float]:
    assert bars._rich is not None
    return [t.completed for t in bars._rich.tasks]


def test_advances_before_the_start_are_shown_from_it() -> None:
    with ProgressBars(show=True) as bars:
        gen = bars.add_task("generate", total=10)
        score = bars.add_task("score", total=10)
        bars.advance(gen, 3)
        bars.advance(score, 0.5)
        assert bars._rich is None  # nothing drawn yet: rich is not loaded for it
        bars.start()
        bars.start()  # once
        assert _completed(bars) == [3, 0.5]
        bars.advance(gen, 2)
        late = bars.add_task("late", total=1)
        bars.advance(late, 1)
        assert _completed(bars) == [5, 0.5, 1]


def test_a_run_over_before_the_start_shows_its_bars_at_the_end() -> None:
    with ProgressBars(show=True) as bars:
        bars.advance(bars.add_task("generate", total=4), 4)
    assert _completed(bars) == [4]


def test_a_quiet_run_draws_nothing() -> None:
    with ProgressBars(show=False) as bars:
        bars.advance(bars.add_task("generate", total=4), 4)
        bars.start()
    assert bars._rich is None


def test_start_soon_starts_on_the_loop_and_not_after_the_block() -> None:
    async def run(wait: float) -> ProgressBars:
        with ProgressBars(show=True) as bars:
            bars.add_task("generate", total=1)
            bars.start_soon(asyncio.get_running_loop(), 0.01)
            await asyncio.sleep(wait)
            started = bars._rich is not None
        assert started is (wait > 0.01)
        return bars

    asyncio.run(run(0.05))
    asyncio.run(run(0))


def test_advances_from_threads_all_count() -> None:
    with ProgressBars(show=True) as bars:
        task = bars.add_task("score", total=4000)

        def work() -> None:
            for _ in range(1000):
                bars.advance(task, 1)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads[:2]:
            t.start()
        bars.start()
        for t in threads[2:]:
            t.start()
        for t in threads:
            t.join()
    assert _completed(bars) == [4000]
