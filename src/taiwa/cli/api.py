"""The Python entry points that need the method registry, beside the CLI on the top floor:
:func:`compare` (issue 27). ``from taiwa.cli.api import compare``."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def compare(*run_dirs: str | Path, baseline: str | None = None) -> dict[str, Any]:
    """The paired comparisons of finished runs of one method on the same items: the
    ``comparisons`` block a joint run of their systems stores in ``summary.json`` (every pair,
    or each against ``baseline``: difference, 95 % CI, Holm p, MDD, shared n). Raises
    :class:`taiwa.core.errors.TaiwaError` (one line) for runs whose items or settings differ; see
    :mod:`taiwa.report.compare_runs`. Show it with
    :func:`taiwa.display.comparison_table.comparisons_table`."""
    from taiwa.benchmarks import all_methods
    from taiwa.report.compare_runs import compare_runs

    return compare_runs([Path(p) for p in run_dirs], all_methods(), baseline=baseline)
