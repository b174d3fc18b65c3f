"""MeCab in a second process: :func:`~taiwa.text.tokenizer.found_lines` of blocks of texts,
pipelined so that the caller works on one block while the worker tags the next (issue 29: the
whole ``taiwa run cohesion`` command; seed 003 §2.2's content words are tagged there).

fugashi holds the interpreter lock while MeCab parses, so a thread cannot overlap tagging with
the caller's Python work; a process can. The worker is a fresh interpreter
(``python -m taiwa.text.tagging_worker``, started with :mod:`subprocess`: a fork and an exec,
no Python code of the parent runs in the child, so no lock held by the runner's threads is
inherited; :mod:`multiprocessing`'s spawn would import the parent's main script, the whole
CLI). It imports taiwa's tokenizer and fugashi only, ignores Ctrl-C (the caller stops it) and
exits when its input is closed. Messages are pickles framed by their length on the worker's
stdin and stdout. Only MeCab's output lines travel back: they become tokens in the caller
(:meth:`~taiwa.text.tokenizer.FugashiTokenizer.map_found`), through the caller's per-line
caches, so the tokens are those of tagging in-process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, cast

from taiwa.errors import TaiwaError

_LENGTH = struct.Struct("<Q")
_STOP_SECONDS = 5.0


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


class TaggingWorker:
    """A worker process tagging blocks of texts with :func:`found_lines` (``pos1``,
    ``normalize``). :meth:`tag` yields each block's lines in order while a thread feeds the
    worker the blocks after it; use as a context manager: leaving it (at the end, on an error or
    on Ctrl-C) stops the worker."""

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
            )
        except OSError as e:
            raise TaggingWorkerError(f"tagging worker could not start: {e}") from e
        self._feeder: threading.Thread | None = None
        self._finished = False  # every block's reply read: the worker exits on its own
        self._header = (sorted(pos1), normalize)

    def __enter__(self) -> TaggingWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def tag(self, blocks: Iterable[list[str]]) -> Iterator[list[list[str]]]:
        """Per block, the found lines of each of its texts, in order. The blocks start going
        out at once, from a thread (the worker tags while the caller does other work, then
        block k + 1 while the caller uses block k); the replies are read as they are asked
        for."""
        if self._feeder is not None:
            raise RuntimeError("a TaggingWorker tags one stream of blocks")
        blocks = list(blocks)
        self._feeder = threading.Thread(target=self._feed, args=(blocks,), daemon=True)
        self._feeder.start()
        return self._replies(len(blocks))

    def _replies(self, n: int) -> Iterator[list[list[str]]]:
        out = cast(IO[bytes], self._proc.stdout)
        for _ in range(n):
            reply = _receive(out)
            if reply is None:
                raise self._failure("exited before it had tagged every text")
            kind, payload = reply
            if kind != "ok":
                raise TaggingWorkerError(f"tagging worker: {payload}")
            yield payload
        self._finished = True

    def _feed(self, blocks: list[list[str]]) -> None:
        stream = cast(IO[bytes], self._proc.stdin)
        try:
            _send(stream, self._header)
            for block in blocks:
                _send(stream, block)
            stream.close()  # the worker stops after the last block
        except (OSError, ValueError):  # the worker died or was stopped: tag() reports it
            return

    def _failure(self, what: str) -> TaggingWorkerError:
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
        """Stop the worker: it exits on its own once every reply has been read, else (an
        error, Ctrl-C, a caller that stopped early) it is killed. Idempotent."""
        self._stop(kill=not self._finished)
        if self._feeder is not None:
            self._feeder.join()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()


def _shared(found: list[list[str]]) -> list[list[str]]:
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
    while (texts := _receive(stdin)) is not None:
        try:
            reply: tuple[str, Any] = ("ok", _shared(found_lines(texts, pos1, normalize)))
        except Exception as e:  # reported to the caller as one line
            reply = ("error", f"{type(e).__name__}: {e}")
        _send(stdout, reply)
    os._exit(0)  # everything is sent: skip the interpreter's teardown, which the caller waits for


if __name__ == "__main__":
    main()
