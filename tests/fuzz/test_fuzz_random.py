"""A sample of the random mutations of :mod:`fuzz_random` in the default suite (the 10,000 of
``benchmarks/fuzz_many.py`` run outside it): every class of issue 25 (run directories at every
level, long ids, run.yaml, special files) without a traceback, a hang or a second error line."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_core import Variant, run_variant
from fuzz_random import MAKERS, random_variants

SAMPLE = random_variants(48, seed=2025)


def test_every_class_is_in_the_sample() -> None:
    assert {v.target for v in SAMPLE} == {f"random-{name}" for name, _, _ in MAKERS}


@pytest.mark.parametrize("variant", SAMPLE, ids=lambda v: v.id)
def test_random_variant(variant: Variant, fuzz_root: Path, in_dir: None) -> None:
    _, found, argv = run_variant(variant, fuzz_root)
    assert not found, f"{variant.id}: {'; '.join(found)}\n  taiwa {' '.join(argv)[:600]}"
