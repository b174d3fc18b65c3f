"""MeCab in a worker process (issue 29, seed 003 §2.2's content words): the rows and the summary
are those of tagging in-process, small runs never start it, errors in it reach the caller as one
error, and it is always stopped."""

from __future__ import annotations

import importlib
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

import taiwa.text.tagging_worker as worker_module
from taiwa.benchmarks import get_method
from taiwa.benchmarks.cohesion.dataset import load_dialogues
from taiwa.benchmarks.cohesion.scoring import BLOCK, iter_scored, summarize
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.resources.vectors import GinzaVectors
from taiwa.samples import sample_path
from taiwa.schema import Dialogue
from taiwa.text.content_words import CONTENT_POS, HEAD_BLOCKS, content_blocks, content_filter
from taiwa.text.tagging_worker import TaggingWorker, TaggingWorkerError
from taiwa.text.tokenizer import found_lines

DIALOGUES = sample_path("cohesion/dialogues.jsonl")
content_words_module = importlib.import_module("taiwa.text.content_words")  # the package
# exports a function of the same name


def _many(copies: int) -> list[Dialogue]:
    """The bundled dialogues ``copies`` times (new ids), enough blocks for the worker path."""
    base = load_dialogues(DIALOGUES)
    return [d.model_copy(update={"id": f"{d.id}-{k}"}) for k in range(copies) for d in base]


def _copies_for_worker() -> int:
    n = len(load_dialogues(DIALOGUES))
    return -(-(HEAD_BLOCKS + 2) * BLOCK // n)  # blocks tagged by the worker, not only the head


def _blocks(texts: list[str], size: int) -> list[list[str]]:
    return [texts[i : i + size] for i in range(0, len(texts), size)]


def test_worker_rows_and_summary_equal_in_process() -> None:
    dialogues = _many(_copies_for_worker())
    resource = GinzaVectors()
    inside = list(iter_scored(dialogues, resource, worker_min_texts=10**9))
    worker = list(iter_scored(dialogues, resource, worker_min_texts=0))
    assert len(worker) == len(dialogues) and worker == inside
    assert summarize(worker) == summarize(inside)
    assert any(u["pairs"] for r in worker for u in r["utterances"])  # words were found


def test_worker_lines_equal_found_lines_and_tokens_equal(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [u.text for d in load_dialogues(DIALOGUES) for u in d.utterances]
    blocks = _blocks(texts, 50)
    with TaggingWorker(CONTENT_POS) as worker:
        lines = list(worker.tag(blocks))
    assert lines == [found_lines(b, CONTENT_POS) for b in blocks]
    keep = content_filter()
    started: list[int] = []
    monkeypatch.setattr(worker_module.TaggingWorker, "__enter__", _counting(started))
    both = list(content_blocks(blocks, keep, worker_min_texts=0))
    assert started == [1]
    assert both == list(content_blocks(blocks, keep, worker_min_texts=10**9)) and started == [1]


def _counting(started: list[int]) -> Any:
    enter = worker_module.TaggingWorker.__enter__

    def counted(self: TaggingWorker) -> TaggingWorker:
        started.append(1)
        return enter(self)

    return counted


def test_whole_command_with_worker_writes_what_in_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "dialogues.jsonl"
    data.write_text(
        "".join(
            json.dumps(d.model_dump(exclude_none=True), ensure_ascii=False) + "\n"
            for d in _many(_copies_for_worker())
        ),
        encoding="utf-8",
    )

    def outputs(name: str) -> tuple[list[Any], dict[str, Any]]:
        res = run(
            RunConfig(method="cohesion", data=data, out=tmp_path / name),
            get_method("cohesion"),
            show_progress=False,
        )
        assert res.failures == 0
        rows = [json.loads(x) for x in (res.run_dir / "scores.jsonl").read_text().splitlines()]
        summary = json.loads((res.run_dir / "summary.json").read_text(encoding="utf-8"))
        summary.pop("seconds")
        for calls in summary["calls"]:
            calls.pop("seconds")
        return rows, summary

    monkeypatch.setattr(content_words_module, "WORKER_MIN_TEXTS", 10**9)
    inside = outputs("inside")
    started: list[int] = []
    monkeypatch.setattr(content_words_module, "WORKER_MIN_TEXTS", 0)
    monkeypatch.setattr(worker_module.TaggingWorker, "__enter__", _counting(started))
    assert outputs("worker") == inside
    assert started  # the worker did tag


def test_small_runs_never_start_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the worker was started for a small run")

    monkeypatch.setattr(worker_module.TaggingWorker, "__init__", refuse)
    dialogues = _many(_copies_for_worker())
    assert len(list(iter_scored(dialogues, GinzaVectors()))) == len(dialogues)  # under 8,192


def test_an_error_in_the_worker_is_one_clear_error() -> None:
    worker = TaggingWorker(CONTENT_POS)
    with pytest.raises(TaggingWorkerError, match=r"tagging worker: TypeError"), worker:
        list(worker.tag([["今日は晴れ"], [None]]))  # type: ignore[list-item]
    assert worker._proc.returncode is not None


def test_a_worker_that_dies_is_reported() -> None:
    worker = TaggingWorker(CONTENT_POS)
    worker._proc.kill()
    with pytest.raises(TaggingWorkerError, match=r"exited before it had tagged every text"), worker:
        list(worker.tag([["今日は晴れ"]]))
    assert worker._proc.returncode is not None


def test_the_worker_is_stopped_when_the_caller_stops_early() -> None:
    texts = [u.text for d in load_dialogues(DIALOGUES) for u in d.utterances]
    worker = TaggingWorker(CONTENT_POS)
    with pytest.raises(KeyboardInterrupt), worker:  # as Ctrl-C in the caller
        for _ in worker.tag(_blocks(texts * 20, 100)):
            raise KeyboardInterrupt
    assert worker._proc.returncode is not None
    assert worker._feeder is not None and not worker._feeder.is_alive()


def test_the_worker_ignores_ctrl_c_and_exits_after_its_last_block() -> None:
    with TaggingWorker(CONTENT_POS) as worker:
        blocks = iter(worker.tag([["猫が好き"], ["犬も好き"]]))
        assert next(blocks) == found_lines(["猫が好き"], CONTENT_POS)
        os.kill(worker._proc.pid, signal.SIGINT)  # the terminal sends it to both processes
        assert next(blocks) == found_lines(["犬も好き"], CONTENT_POS)
        assert list(blocks) == []
    assert worker._proc.returncode == 0


def test_blocks_go_out_before_the_first_reply_is_asked_for() -> None:
    with TaggingWorker(CONTENT_POS) as worker:
        replies = worker.tag([["猫が好き"]])
        assert worker._feeder is not None  # fed while the caller tags its own first blocks
        worker._feeder.join(timeout=60)
        assert not worker._feeder.is_alive()  # every block sent, nothing read yet
        assert list(replies) == [found_lines(["猫が好き"], CONTENT_POS)]
