"""taiwa (対話): evaluate Japanese dialogue systems with five methods from Japanese research.

The methods and their seeds are listed in DESIGN.md; the public metric functions live in
:mod:`taiwa.metrics`.
"""

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

try:
    __version__ = version("taiwa")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__", "compare"]


def compare(*run_dirs: str | Path, baseline: str | None = None) -> dict[str, Any]:
    """The paired comparisons of finished runs of one method on the same items (issue 27): the
    ``comparisons`` block a joint run stores in ``summary.json`` (every pair of their systems,
    or each against ``baseline``: difference, 95 % CI, Holm p, MDD, shared n). Refuses runs
    whose items or settings differ (:class:`taiwa.errors.TaiwaError`); see
    :mod:`taiwa.run_compare`. Show it with :func:`taiwa.comparison_table.comparisons_table`."""
    from taiwa.benchmarks import all_methods
    from taiwa.run_compare import compare_runs

    return compare_runs([Path(p) for p in run_dirs], all_methods(), baseline=baseline)
