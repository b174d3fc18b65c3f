"""Every registered variant through ``taiwa.cli.main`` in-process: no traceback, no hang, exit 2
with one located error line on unusable input, exit 0 on valid input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fuzz_core import Variant, count, problems, run_in_process, workdir
from fuzz_registry import all_variants

VARIANTS = all_variants()


def _param(v: Variant) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=v.xfail)] if v.xfail else []
    return pytest.param(v, id=v.id, marks=marks)


@pytest.mark.parametrize("variant", [_param(v) for v in VARIANTS])
def test_variant(variant: Variant, fuzz_root: Path, in_dir: None) -> None:
    work = workdir(fuzz_root, variant.id)
    built = variant.build(work)
    os.chdir(work)
    outcome = run_in_process(built.argv)
    count("in-process", variant, outcome)
    found = problems(outcome, built.expect)
    assert not found, (
        f"{variant.id}: {'; '.join(found)}\n  taiwa {' '.join(a[:200] for a in built.argv)}"
        f"\n  stderr: {outcome.stderr.strip()[-800:]}"
    )


def test_at_least_1000_variants() -> None:
    assert len(VARIANTS) >= 1000, len(VARIANTS)
