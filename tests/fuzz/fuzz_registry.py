"""The fuzz registry: every file the CLI reads (:mod:`fuzz_targets`) and every option it takes
(:mod:`fuzz_options`), turned into the variants the suite runs.

A new loader adds one target to :mod:`fuzz_targets`; a new command option one row to
:data:`fuzz_options.BAD_VALUES`; a new method's ``-o`` options need nothing (their bad values
come from its options model). ``test_fuzz_coverage.py`` fails when something is missing.
"""

from __future__ import annotations

from fuzz_core import Variant
from fuzz_mutations import lines_variants, record_variants, yaml_variants
from fuzz_options import option_cases
from fuzz_targets import LINES_TARGETS, RECORD_TARGETS, YAML_TARGETS


def all_variants() -> list[Variant]:
    """Every variant the fuzz suite runs, in a fixed order."""
    out: list[Variant] = []
    for t in RECORD_TARGETS:
        out += record_variants(t)
    for y in YAML_TARGETS:
        out += yaml_variants(y)
    for ln in LINES_TARGETS:
        out += lines_variants(ln)
    out += [c.variant() for c in option_cases()]
    return out
