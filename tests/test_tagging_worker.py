"""MeCab in a worker process (issue 29, seed 003 §2.2's content words): the rows and the summary
are those of tagging in-process, small runs never start it, errors in it reach the caller as one
error, and it is always stopped."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import taiwa.benchmarks.cohesion as cohesion_module
import taiwa.harness.samples as samples_module
import taiwa.text.tagging_worker as worker_module
import taiwa.text.tokenizer as tokenizer_module
from taiwa.benchmarks import get_method
from taiwa.benchmarks.cohesion.dataset import load_dialogues
from taiwa.benchmarks.cohesion.scoring import BLOCK, iter_scored, summarize
from taiwa.core.samples import sample_path
from taiwa.core.schema import Dialogue
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.resources.vectors import GinzaVectors
from taiwa.text.content_words import CONTENT_POS, content_blocks, content_filter
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
    return -(-6 * BLOCK // n)  # six blocks: the worker and this process both tag some


def _blocks(texts: list[str], size: int) -> list[list[str]]:
    return [texts[i : i + size] for i in range(0, len(texts), size)]


def _texts() -> list[str]:
    return [u.text for d in load_dialogues(DIALOGUES) for u in d.utterances]


def test_worker_rows_and_summary_equal_in_process() -> None:
    dialogues = _many(_copies_for_worker())
    resource = GinzaVectors()
    inside = list(iter_scored(dialogues, resource, worker_min_texts=10**9))
    worker = list(iter_scored(dialogues, resource, worker_min_texts=0))
    assert len(worker) == len(dialogues) and worker == inside
    assert summarize(worker) == summarize(inside)
    assert any(u["pairs"] for r in worker for u in r["utterances"])  # words were found


def _tagged_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the blocks this process tags itself (the worker's are not counted)."""
    here: list[int] = []

    def counted(texts: Any, pos1: Any, normalize: bool = True) -> Any:
        here.append(len(texts))
        return found_lines(texts, pos1, normalize)

    monkeypatch.setattr(tokenizer_module, "found_lines", counted)
    return here


def test_shared_lines_equal_found_lines_call_after_call(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _blocks(_texts() * 4, 50)
    expected = [found_lines(b, CONTENT_POS) for b in blocks]
    here = _tagged_here(monkeypatch)
    with TaggingWorker(CONTENT_POS) as worker:
        first = list(worker.share(blocks))
        # the worker was still starting: this process took blocks from the back meanwhile,
        # the worker the first one at least
        assert 0 < len(here) < len(blocks)
        second = list(worker.share(blocks[:3]))  # one worker serves call after call
        assert worker._proc.poll() is None
    assert first == expected and second == expected[:3]
    assert worker._proc.returncode == 0  # it exited on its own: every block was answered


def test_content_blocks_same_with_a_worker_or_without(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _blocks(_texts(), 50)
    keep = content_filter()
    started: list[int] = []
    monkeypatch.setattr(worker_module.TaggingWorker, "__init__", _counting(started))
    alone = list(content_blocks(blocks, keep, worker_min_texts=10**9))
    assert started == []
    assert list(content_blocks(blocks, keep, worker_min_texts=0)) == alone and started == [1]
    with TaggingWorker(CONTENT_POS) as worker:  # handed in: no other one is started
        assert list(content_blocks(blocks, keep, worker=worker)) == alone
        assert list(content_blocks(blocks[:4], keep, worker=worker)) == alone[:4]
    assert started == [1, 1]


def _counting(started: list[int]) -> Any:
    init = worker_module.TaggingWorker.__init__

    def counted(self: TaggingWorker, *args: Any, **kwargs: Any) -> None:
        started.append(1)
        init(self, *args, **kwargs)

    return counted


def _write(path: Path, dialogues: list[Dialogue]) -> Path:
    path.write_text(
        "".join(
            json.dumps(d.model_dump(exclude_none=True), ensure_ascii=False) + "\n"
            for d in dialogues
        ),
        encoding="utf-8",
    )
    return path


def test_whole_command_with_one_worker_for_the_run_writes_what_in_process_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _write(tmp_path / "dialogues.jsonl", _many(_copies_for_worker()))
    monkeypatch.setattr(samples_module, "CHUNK", 2 * BLOCK + 5)  # three chunks

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

    started: list[int] = []
    monkeypatch.setattr(worker_module.TaggingWorker, "__init__", _counting(started))
    monkeypatch.setattr(content_words_module, "WORKER_MIN_TEXTS", 10**9)
    monkeypatch.setattr(cohesion_module, "WORKER_MIN_BYTES", 10**12)
    inside = outputs("inside")
    assert started == []
    monkeypatch.setattr(cohesion_module, "WORKER_MIN_BYTES", 0)
    closed: list[int] = []
    close = worker_module.TaggingWorker.close

    def counted_close(self: TaggingWorker) -> None:
        closed.append(self._proc.pid)
        close(self)
        assert self._proc.returncode == 0  # answered everything, then exited on its own

    monkeypatch.setattr(worker_module.TaggingWorker, "close", counted_close)
    assert outputs("worker") == inside
    assert started == [1] and closed  # one worker served every chunk, and was stopped


def test_small_runs_never_start_the_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the worker was started for a small run")

    monkeypatch.setattr(worker_module.TaggingWorker, "__init__", refuse)
    dialogues = _many(_copies_for_worker())
    assert len(list(iter_scored(dialogues, GinzaVectors()))) == len(dialogues)  # under 8,192
    res = run(
        RunConfig(method="cohesion", data=DIALOGUES, out=tmp_path / "run"),
        get_method("cohesion"),
        show_progress=False,
    )
    assert res.failures == 0


def test_an_error_in_the_worker_is_one_clear_error() -> None:
    worker = TaggingWorker(CONTENT_POS)
    with pytest.raises(TaggingWorkerError, match=r"tagging worker: TypeError"), worker:
        list(worker.share([["今日は晴れ"], [None]]))  # type: ignore[list-item]
    assert worker._proc.returncode is not None


def test_a_worker_that_dies_is_reported() -> None:
    worker = TaggingWorker(CONTENT_POS)
    worker._proc.kill()
    with pytest.raises(TaggingWorkerError, match=r"exited before it had tagged every text"), worker:
        list(worker.share([["今日は晴れ"]]))
    assert worker._proc.returncode is not None


def test_the_worker_is_stopped_when_the_caller_stops_early() -> None:
    worker = TaggingWorker(CONTENT_POS)
    with pytest.raises(KeyboardInterrupt), worker:  # as Ctrl-C in the caller
        for _ in worker.share(_blocks(_texts() * 20, 100)):
            raise KeyboardInterrupt
    assert worker._proc.returncode is not None
    assert not worker._feeder.is_alive() and not worker._reader.is_alive()


def test_the_worker_ignores_ctrl_c_and_exits_after_its_last_block() -> None:
    with TaggingWorker(CONTENT_POS) as worker:
        # a group of its own: a terminal's Ctrl-C goes to taiwa's group only, and taiwa stops it
        assert os.getpgid(worker._proc.pid) == worker._proc.pid
        blocks = worker.share([["猫が好き"], ["犬も好き"]])
        assert next(blocks) == found_lines(["猫が好き"], CONTENT_POS)
        os.kill(worker._proc.pid, signal.SIGINT)
        assert list(blocks) == [found_lines(["犬も好き"], CONTENT_POS)]
    assert worker._proc.returncode == 0


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def test_ctrl_c_in_the_whole_command_leaves_no_worker_and_a_rerun_finishes(
    tmp_path: Path,
) -> None:
    data = _write(tmp_path / "dialogues.jsonl", _many(2 * _copies_for_worker()))
    assert data.stat().st_size >= cohesion_module.WORKER_MIN_BYTES  # a worker for the run
    out = tmp_path / "run"
    command = [sys.executable, "-m", "taiwa", "run", "cohesion", "--data", str(data)]
    command += ["--out", str(out), "-q"]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.time() + 60
    while not (kids := _children(proc.pid)) and time.time() < deadline:
        time.sleep(0.01)
    assert kids, "no tagging worker started"
    while not (out / "INCOMPLETE").exists() and time.time() < deadline:
        time.sleep(0.01)  # the dataset is read: the run is scoring
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: taiwa's group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and "Traceback" not in err, err
    while any(Path(f"/proc/{k}").exists() for k in kids) and time.time() < deadline:
        time.sleep(0.01)
    assert not any(Path(f"/proc/{k}").exists() for k in kids)  # stopped, never orphaned
    assert (out / "INCOMPLETE").exists() and not (out / "summary.json").exists()
    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert not (out / "INCOMPLETE").exists()
    rows = (out / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(rows) == len(_many(2 * _copies_for_worker()))
