"""One module per evaluation method; :func:`get_benchmark` finds one by name."""

from __future__ import annotations

from taiwa.benchmarks.base import Benchmark, Scored
from taiwa.errors import TaiwaError


def _registry() -> dict[str, Benchmark]:
    from taiwa.benchmarks.da_response import DAResponseBenchmark
    from taiwa.benchmarks.prompts import PromptsBenchmark

    benchmarks: tuple[Benchmark, ...] = (PromptsBenchmark(), DAResponseBenchmark())
    return {b.name: b for b in benchmarks}


def benchmark_names() -> list[str]:
    return sorted(_registry())


def get_benchmark(name: str) -> Benchmark:
    """The benchmark called ``name``; an unknown name lists the known ones."""
    reg = _registry()
    if name not in reg:
        raise TaiwaError(f"unknown benchmark {name!r}: expected one of {', '.join(sorted(reg))}")
    return reg[name]


__all__ = ["Benchmark", "Scored", "benchmark_names", "get_benchmark"]
