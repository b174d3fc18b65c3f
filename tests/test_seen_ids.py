"""Repeated ids are refused naming both lines, in about 24 bytes an id, and a dataset read again
by the runner does not gather its ids a second time (issue 40 §4: memory flat)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from taiwa.core.errors import InputError
from taiwa.core.io import ids_checked, iter_records, unique_ids
from taiwa.core.io import seen_ids as seen_module
from taiwa.core.io.seen_ids import SeenIds
from taiwa.harness.samples import SampleSource


def _prompts(path: Path, ids: list[str]) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for i in ids:
            fh.write(json.dumps({"id": i, "prompt": f"質問 {i}"}, ensure_ascii=False) + "\n")
    return path


def _read(path: Path) -> list[str]:
    from taiwa.benchmarks.prompts.dataset import PromptSample

    return [r.id for r in unique_ids(path, iter_records(path, PromptSample))]


@pytest.mark.parametrize(
    ("first", "repeat", "n"),
    [
        (3, 5, 20),  # within the recent batch: found on its own line
        (2, 17, 20),  # sealed batches apart
        (4, 20, 20),  # on the last line: found when the stream ends
        (1, 9, 9),  # the last record of a stream of two batches
    ],
)
def test_a_repeated_id_names_both_lines_in_any_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: int, repeat: int, n: int
) -> None:
    monkeypatch.setattr(seen_module, "RECENT", 4)
    ids = [f"s{i}" for i in range(1, n + 1)]
    ids[repeat - 1] = ids[first - 1]
    path = _prompts(tmp_path / "p.jsonl", ids)
    with pytest.raises(InputError) as err:
        _read(path)
    assert f":{repeat}: field 'id'" in str(err.value)
    assert f"'{ids[first - 1]}' already on line {first}" in str(err.value)


def test_the_earliest_of_several_repeats_in_a_batch_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seen_module, "RECENT", 4)
    ids = [f"s{i}" for i in range(1, 13)]
    ids[10], ids[9] = ids[1], ids[0]  # lines 11 and 10 repeat lines 2 and 1
    with pytest.raises(InputError, match=r":10: field 'id'.*'s1' already on line 1"):
        _read(_prompts(tmp_path / "p.jsonl", ids))


def test_many_distinct_ids_pass_and_keep_a_few_bytes_each(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy  # noqa: F401 - imported before measuring

    monkeypatch.setattr(seen_module, "RECENT", 1024)
    n = 200_000
    ids = [f"item-{i:07d}" for i in range(n)]  # made before measuring: the file's strings
    tracemalloc.start()
    try:
        seen = SeenIds()
        for line, rid in enumerate(ids, start=1):
            assert seen.setdefault(rid, line) == line
        seen.finish()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert seen.repeated is None and len(seen) == n
    assert held / n < 40  # bytes an id (a dict of the ids held about 130)


def test_ids_checked_passes_records_through(tmp_path: Path) -> None:
    path = _prompts(tmp_path / "p.jsonl", ["a", "b", "a"])
    with pytest.raises(InputError, match="already on line 1"):
        _read(path)
    with ids_checked():
        assert _read(path) == ["a", "b", "a"]


def test_the_runner_reads_later_chunks_without_gathering_ids_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from taiwa.benchmarks.prompts.dataset import iter_prompts

    path = _prompts(tmp_path / "p.jsonl", [f"q{i}" for i in range(10)])
    made: list[SeenIds] = []

    class Counting(SeenIds):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr("taiwa.core.io.records.SeenIds", Counting)
    source = SampleSource(lambda: iter_prompts(path), chunk=3)
    assert len(made) == 1  # the validating pass
    chunks = list(source.chunks())
    assert [s.id for c in chunks for s in c] == [f"q{i}" for i in range(10)]
    assert len(made) == 1  # the later chunks were read again without an id index
