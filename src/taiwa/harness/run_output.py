"""The end of a run (DESIGN.md, "One flow", write): ``summary.json`` built from the method's
aggregate, the spill files' counts and the models' statistics (:func:`run_summary`); slow
endings (the cache's last commit, joining the stage files) run in background threads while the
method aggregates (:func:`in_background`); a cache that cannot be closed costs resumability,
not the results (:func:`close_cache`)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from taiwa.core.errors import TaiwaError
from taiwa.harness.cost import run_totals
from taiwa.harness.method import Summary
from taiwa.harness.plan import Plan
from taiwa.harness.pool import ModelPool
from taiwa.harness.rows import RowStore

if TYPE_CHECKING:
    from taiwa.models.cache import ResponseCache

log = logging.getLogger(__name__)

T = TypeVar("T")


def open_cache(cache_dir: Path) -> ResponseCache:
    from taiwa.models.cache import ResponseCache

    return ResponseCache(cache_dir / "responses.sqlite")


def in_background(work: Callable[[], T], name: str) -> Callable[[], T | None]:
    """Start ``work`` in a thread; the function returned waits for it and gives its result,
    or raises what it raised (once; later calls return None)."""
    outcome: list[Any] = []

    def target() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=target, name=name)
    thread.start()

    def wait() -> T | None:
        thread.join()
        if not outcome:
            return None
        got = outcome.pop()
        if isinstance(got, BaseException):
            raise got
        return got  # type: ignore[no-any-return]

    return wait


def close_cache(cache: ResponseCache | None) -> list[str]:
    """Close the cache (if any); a failure to store replies costs resumability, not the run's
    results: it becomes a warning and a note in the summary."""
    if cache is None:
        return []
    try:
        cache.close()
    except TaiwaError as exc:
        log.warning("%s", exc)
        return [f"replies not stored in the cache (a rerun sends them again): {exc}"]
    return []


def run_summary(
    plan: Plan,
    store: RowStore,
    summary: Summary,
    pool: ModelPool,
    seconds: dict[str, float],
    comparisons: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The content of ``summary.json``: status, per system (n, scored, failures per stage,
    then the method's block), across systems, the paired comparisons (when the run has two or
    more systems: :func:`taiwa.metrics.comparisons.build_comparisons`), failures per stage, calls
    per role and their total (:func:`taiwa.harness.cost.run_totals`), seconds."""
    failures: dict[str, int] = {}
    for st in plan.stages:
        lanes = [""] if st.across_systems else plan.systems
        failures[st.name] = sum(store.count(st.name, sys_).failed for sys_ in lanes)
    last = next((st for st in reversed(plan.stages) if not st.across_systems), None)
    systems: dict[str, dict[str, Any]] = {}
    for label, block in summary.systems.items():
        head: dict[str, Any] = {}
        if label in plan.systems and last is not None:
            count = store.count(last.name, label)
            head = {
                "n": count.rows,
                "scored": count.rows - count.errors,
                "failures": {
                    st.name: store.count(st.name, label).failed
                    for st in plan.stages
                    if not st.across_systems
                },
            }
        systems[label] = {**head, **block}
    extra = {"comparisons": comparisons} if comparisons is not None else {}
    calls = pool.stats(plan.config.prices)
    return {
        "method": plan.method.name,
        "seed_paper": plan.method.seed,
        "status": "failures" if any(failures.values()) else "ok",
        "n_samples": len(plan.samples),
        "systems": systems,
        "across": summary.across,
        **extra,
        "failures": failures,
        "calls": calls,
        "totals": run_totals(calls),
        "seconds": seconds,
        "notes": [
            *summary.notes,
            *pool.notes(),
            *(
                f"--price {name}: names none of this run's models (by SPEC or model name)"
                for name in pool.unpriced(plan.config.prices)
            ),
        ],
        "files": sorted(summary.files),
    }
