"""A sample of each kind of malformed input through the real ``taiwa`` command in a child
process, to catch what an in-process run cannot: signals (a segfault in MeCab or pyarrow),
hangs (a timeout kills the child), output that only the real entry point prints.

One variant per category below (the kinds most likely to crash or hang a process; the others
run in-process only), taken from a different target each time (round robin over the targets
that have that kind), two processes at a time: each costs some 3 s of imports.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fuzz_core import Built, Outcome, Variant, count, problems, run_subprocess, workdir
from fuzz_registry import all_variants

CATEGORIES = {
    "invalid UTF-8": "encoding/invalid-utf8",
    "UTF-16": "encoding/utf-16",
    "binary garbage": "binary/garbage",
    "UTF-8 BOM": "valid/utf8-bom",
    "truncation": "truncate/random-offset",
    "wrong type": "record/wrong-type",
    "NaN": "json/nan",
    "duplicate id": "id/duplicate",
    "blank text": "text/blank",
    "empty list": "list/empty",
    "huge text": "text/huge",
    "deep JSON": "json/deep-value",
    "lone surrogate": "json/lone-surrogate",
    "empty file": "file/empty",
    "directory": "file/directory",
    "CSV huge cell": "csv/huge",
    "Parquet truncated": "parquet/truncated",
    "YAML bomb": "yaml/bomb",
    "YAML python tag": "yaml/python-tag",
    "YAML deep": "yaml/deep",
    "bad option value": "run --concurrency '0'",
    "unwritable output": "score wed --json '/proc/self/taiwa-fuzz/out.json'",
    "unwritable build output": "build chitchat --out '/proc/self/taiwa-fuzz/out.jsonl'",
    "human rankings with a tie": "run chitchat -o human_ranks with a tie",
    "a judged chitchat run": "run chitchat -o judge_modes='pairwise' (valid)",
}
"""Category → the variant kind it samples (an option case's name for options)."""


def _samples() -> dict[str, Variant]:
    """One variant per category, spread over the targets."""
    variants = [v for v in all_variants() if v.xfail is None]
    out: dict[str, Variant] = {}
    for n, (category, kind) in enumerate(CATEGORIES.items()):
        found = [v for v in variants if v.kind.split(":")[0] == kind]
        targets = sorted({v.target for v in found})
        assert targets, f"no variant of kind {kind!r}"
        target = targets[n % len(targets)]
        out[category] = next(v for v in found if v.target == target)
    return out


SAMPLES = _samples()


@pytest.fixture(scope="session")
def outcomes(fuzz_root: Path) -> dict[str, tuple[Built, Outcome]]:
    """Every sample run once, two processes at a time (the machine has two cores)."""
    works = {c: workdir(fuzz_root, f"sub-{v.id}") for c, v in SAMPLES.items()}
    built = {c: v.build(works[c]) for c, v in SAMPLES.items()}
    with ThreadPoolExecutor(max_workers=2) as pool:
        outs = pool.map(lambda c: run_subprocess(built[c].argv, cwd=works[c]), built)
        results = dict(zip(built, outs, strict=True))
    for category, outcome in results.items():
        count("subprocess", SAMPLES[category], outcome)
    return {c: (built[c], results[c]) for c in built}


@pytest.mark.parametrize("category", list(SAMPLES))
def test_real_cli(category: str, outcomes: dict[str, tuple[Built, Outcome]]) -> None:
    built, outcome = outcomes[category]
    found = problems(outcome, built.expect)
    assert not found, (
        f"{SAMPLES[category].id}: {'; '.join(found)}\n  taiwa {' '.join(built.argv)}"
        f"\n  stderr: {outcome.stderr.strip()[-800:]}"
    )
