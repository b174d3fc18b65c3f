"""Every registered variant through ``taiwa.cli.app.main`` in-process: no traceback, no hang, exit 2
with one located error line on unusable input, exit 0 on valid input."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_core import Variant, run_variant
from fuzz_registry import all_variants

VARIANTS = all_variants()


def _param(v: Variant) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=v.xfail)] if v.xfail else []
    return pytest.param(v, id=v.id, marks=marks)


@pytest.mark.parametrize("variant", [_param(v) for v in VARIANTS])
def test_variant(variant: Variant, fuzz_root: Path, in_dir: None) -> None:
    outcome, found, argv = run_variant(variant, fuzz_root)
    assert not found, (
        f"{variant.id}: {'; '.join(found)}\n  taiwa {' '.join(a[:200] for a in argv)}"
        f"\n  stderr: {outcome.stderr.strip()[-800:]}"
    )


def test_at_least_1000_variants() -> None:
    assert len(VARIANTS) >= 1000, len(VARIANTS)
