"""MeCab in a second process: :func:`~taiwa.text.tokenizer.found_lines` of blocks of texts,
shared between the worker and the caller so that both cores stay busy (issue 29: the whole
``taiwa run cohesion`` command; seed 003 §2.2's content words are tagged there).

fugashi holds the interpreter lock while MeCab parses, so a thread cannot overlap tagging with
the caller's Python work; a process can. The worker is a fresh interpreter
(``python -m taiwa.text.tagging_worker``, started with :mod:`subprocess`: a fork and an exec,
no Python code of the parent runs in the child, so no lock held by the runner's threads is
inherited; :mod:`multiprocessing`'s spawn would import the parent's main script, the whole
CLI). It imports taiwa's tokenizer and fugashi only; it runs in a process group of its own
and ignores Ctrl-C (the caller stops it), and exits when its input is closed (also when the
caller dies). One worker may serve a whole run, call after call
(:class:`RunTagger`, a :class:`~taiwa.harness.method.Held` resource: started before the dataset
is read). Messages are pickles framed by their length on the worker's stdin and stdout, each
written by a thread of the caller (a feeder, a reader: neither side ever waits for the other
to read); the pipes are widened to 1 MB where the system allows, so a reply is written in one
go. Only MeCab's output lines travel back: they become tokens in the caller
(:meth:`~taiwa.text.tokenizer.FugashiTokenizer.map_found`), through the caller's per-line
caches, so the tokens are those of tagging in-process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import IO, Any, cast

from taiwa.core.errors import TaiwaError

_LENGTH = struct.Struct("<Q")
_STOP_SECONDS = 5.0
_PIPE_BYTES = 1 << 20
_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ (Linux; the name is in fcntl from Python 3.10 on Linux)

DEPTH = 2
"""Blocks handed to the worker at once: the one it tags and the next, so it never waits for
the caller; the caller takes the others (from the back) whenever it would wait."""


class TaggingWorkerError(TaiwaError):
    """The tagging worker failed (it could not start, died or raised): the run cannot go on."""

    exit_code = 1


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)))
    stream.write(data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    """The next message, or ``None`` at the end of the stream."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)  # our own child, over its own pipe


def _widen(stream: IO[bytes] | None) -> None:
    """Make the pipe behind ``stream`` hold 1 MB (a block's message or reply in one write)."""
    if stream is None:
        return
    with contextlib.suppress(OSError, ImportError):
        import fcntl

        fcntl.fcntl(stream.fileno(), _SETPIPE_SZ, _PIPE_BYTES)


class TaggingWorker:
    """A worker process tagging blocks of texts with :func:`found_lines` (``pos1``,
    ``normalize``), started at once. :meth:`share` tags a sequence of blocks with the caller;
    it may be called again and again. Use as a context manager (or call :meth:`close`):
    leaving it stops the worker, killing it unless every block handed to it was answered."""

    def __init__(self, pos1: frozenset[str], normalize: bool = True) -> None:
        # the worker imports this very taiwa, wherever it was imported from
        here = str(Path(__file__).resolve().parents[2])
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": here + (os.pathsep + path if path else "")}
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                process_group=0,  # a terminal's Ctrl-C reaches the caller only, which stops it
            )
        except OSError as e:
            raise TaggingWorkerError(f"tagging worker could not start: {e}") from e
        self.pos1 = pos1
        self.normalize = normalize
        _widen(self._proc.stdin)
        _widen(self._proc.stdout)
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()  # None: close its input
        self._outbox.put((sorted(pos1), normalize))
        self._cond = threading.Condition()
        self._replies: deque[Any] = deque()  # ("ok", lines) / ("error", message), in order
        self._waiting = 0  # blocks sent and not answered yet
        self._ended = False  # its output ended (it exited)
        self._broken = False  # a caller left share() with blocks unanswered
        self._closed = False
        self._blocks: Sequence[list[str]] = ()
        self._assigned: deque[int] = deque()  # the blocks handed to it, in order
        self._front = self._back = 0  # it takes blocks from the front, the caller from the back
        self._feeder = threading.Thread(target=self._feed, name="taiwa-tag-feed", daemon=True)
        self._reader = threading.Thread(target=self._read, name="taiwa-tag-read", daemon=True)
        self._feeder.start()
        self._reader.start()

    def __enter__(self) -> TaggingWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _feed(self) -> None:
        stream = cast(IO[bytes], self._proc.stdin)
        try:
            while (message := self._outbox.get()) is not None:
                _send(stream, message)
            stream.close()  # the worker exits after the blocks before
        except (OSError, ValueError):  # the worker died or was stopped: share() reports it
            return

    def _read(self) -> None:
        out = cast(IO[bytes], self._proc.stdout)
        while True:
            try:
                reply = _receive(out)
            except (OSError, ValueError, pickle.UnpicklingError):
                reply = None
            with self._cond:
                if reply is None:
                    self._ended = True
                else:
                    self._replies.append(reply)
                    self._waiting -= 1
                    self._hand_out()
                self._cond.notify_all()
            if reply is None:
                return

    def _hand_out(self) -> None:
        """Give the worker blocks from the front until it has :data:`DEPTH` (under the lock)."""
        while self._waiting < DEPTH and self._front < self._back and not self._broken:
            self._assigned.append(self._front)
            self._outbox.put(self._blocks[self._front])
            self._front += 1
            self._waiting += 1

    def share(self, blocks: Sequence[list[str]]) -> Generator[list[list[str]], None, None]:
        """Per block, the found lines of each of its texts, in order. The worker tags blocks
        from the front (always one ahead); whenever the caller would wait for the worker, it
        tags a block from the back itself, so neither process idles while blocks are left.
        One call at a time; the lines are the same whoever tagged them."""
        with self._cond:
            if self._broken or self._assigned:
                raise RuntimeError("a TaggingWorker shares one sequence of blocks at a time")
            self._blocks = blocks
            self._front, self._back = 0, len(blocks)
            self._hand_out()
        return self._shared(blocks)

    def _shared(self, blocks: Sequence[list[str]]) -> Generator[list[list[str]], None, None]:
        from taiwa.text.tokenizer import found_lines

        mine: dict[int, list[list[str]]] = {}
        done = False
        try:
            for k in range(len(blocks)):
                while isinstance(got := self._next(k, mine), int):  # a block to tag here
                    mine[got] = found_lines(blocks[got], self.pos1, self.normalize)
                yield got
            done = True
        finally:
            with self._cond:
                if not done and (self._assigned or self._waiting):
                    self._broken = True  # its replies would answer the next call's blocks
                self._blocks = ()
                self._front = self._back = 0
            if self._broken:
                self.close()

    def _next(self, k: int, mine: dict[int, list[list[str]]]) -> list[list[str]] | int:
        """Block ``k``'s lines, or the index of a block the caller should tag first (its own
        ``k``, or one from the back rather than wait for the worker)."""
        if k in mine:
            return mine.pop(k)
        with self._cond:
            if not self._assigned or self._assigned[0] != k:  # not handed out: ours
                if k != self._front:
                    raise RuntimeError(f"block {k} was neither handed out nor kept")
                self._front += 1
                return k
            while not self._replies:
                if self._ended:
                    raise self._failure("exited before it had tagged every text")
                if self._front < self._back:
                    self._back -= 1
                    return self._back
                self._cond.wait()
            self._assigned.popleft()
            kind, payload = self._replies.popleft()
            if kind != "ok":
                self._broken = True
                raise TaggingWorkerError(f"tagging worker: {payload}")
            self._hand_out()
        return cast(list[list[str]], payload)

    def _failure(self, what: str) -> TaggingWorkerError:
        self._broken = True
        code = self._stop(kill=True)
        err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr else ""
        last = next((ln for ln in reversed(err.strip().splitlines()) if ln.strip()), "")
        detail = f": {last}" if last else ""
        return TaggingWorkerError(f"tagging worker {what} (exit code {code}){detail}")

    def _stop(self, *, kill: bool) -> int | None:
        if kill and self._proc.poll() is None:
            self._proc.kill()
        try:
            return self._proc.wait(timeout=_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            return self._proc.wait()

    def close(self) -> None:
        """Stop the worker: its input is closed and it exits once it has answered every block,
        else (an error, Ctrl-C, a caller that stopped early) it is killed. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._outbox.put(None)
        with self._cond:
            kill = self._broken or bool(self._waiting)
        self._stop(kill=kill)
        self._feeder.join()
        self._reader.join()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()


class RunTagger:
    """A :class:`TaggingWorker` kept for a whole run, a :class:`~taiwa.harness.method.Held`
    resource: :meth:`open` starts it before the dataset is read when the data file has at
    least ``min_bytes`` (below, its start-up is not repaid), :meth:`close` stops it; in
    between, :attr:`worker` serves every chunk."""

    def __init__(self, pos1: frozenset[str], normalize: bool = True, *, min_bytes: int) -> None:
        self.pos1 = pos1
        self.normalize = normalize
        self.min_bytes = min_bytes
        self.worker: TaggingWorker | None = None

    def open(self, data: Path) -> None:
        try:
            size = data.stat().st_size if data.is_file() else 0
        except OSError:  # the dataset's reader names the problem
            size = 0
        if self.worker is None and size >= self.min_bytes:
            self.worker = TaggingWorker(self.pos1, self.normalize)

    def close(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.close()


def _shared_lines(found: list[list[str]]) -> list[list[str]]:
    """``found`` with equal lines made one object: pickle then writes each distinct line once
    (a block's reply shrinks several times), and the caller hashes it once."""
    one: dict[str, str] = {}
    return [[one.setdefault(line, line) for line in lines] for lines in found]


def main() -> None:
    """The worker: a header ``(pos1, normalize)``, then blocks of texts; one reply per block,
    ``("ok", lines)`` or ``("error", message)``; it exits when its input ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the caller, which stops us
    from taiwa.text.tokenizer import found_lines

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    header = _receive(stdin)
    if header is None:
        return
    pos1, normalize = frozenset(header[0]), bool(header[1])
    found_lines(["始め"], pos1, normalize)  # the dictionary loaded before the first block
    while (texts := _receive(stdin)) is not None:
        try:
            reply: tuple[str, Any] = ("ok", _shared_lines(found_lines(texts, pos1, normalize)))
        except Exception as e:  # reported to the caller as one line
            reply = ("error", f"{type(e).__name__}: {e}")
        _send(stdout, reply)
    os._exit(0)  # everything is sent: skip the interpreter's teardown, which the caller waits for


if __name__ == "__main__":
    main()
