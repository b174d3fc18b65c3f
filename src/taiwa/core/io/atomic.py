"""Atomic writing: a temporary file beside the target, fsynced and renamed into place, so a
crash never leaves a half-written output; and checking that a path can be written before any
work is done."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from taiwa.core.errors import InputError
from taiwa.core.io.text import path_kind, shown_path


def _umask() -> int:
    """The process umask (read by setting it, and setting it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it is fsynced and renamed to ``path``."""
    target = Path(path)
    fd, tmp = _temp_beside(target)
    try:
        encoding, newline = (None, None) if "b" in mode else ("utf-8", "")
        with os.fdopen(fd, mode, encoding=encoding, newline=newline) as fh:
            yield fh
            fh.flush()
            os.chmod(fh.fileno(), 0o666 & ~_umask())  # mkstemp makes 0600: honour the umask
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def check_writable(path: str | Path, what: str) -> None:
    """An :class:`InputError` unless a file can be written at ``path`` (checked before any work
    is done): it is not a directory, and its nearest existing ancestor is a directory where a
    file can be created (tried with a temporary file, so read-only places are caught for every
    user, root included). Missing directories in between are created when writing."""
    p = Path(path)
    expected = f"a writable file path for {what}"
    kind = path_kind(p)
    if kind == "directory":
        raise InputError(shown_path(p), None, None, expected, "a directory")
    if kind == "other":  # the atomic write would replace a pipe or a device with a file
        raise InputError(shown_path(p), None, None, expected, "a pipe or device, not a file")
    parent = p.parent
    while path_kind(parent) == "missing" and parent != parent.parent:
        parent = parent.parent
    if path_kind(parent) != "directory":
        got = f"{shown_path(parent)} is not a directory"
        raise InputError(shown_path(p), None, None, expected, got)
    try:
        tempfile.TemporaryFile(dir=parent).close()  # a file can be created there
    except OSError as exc:
        raise InputError(shown_path(p), None, None, expected, exc.strerror or str(exc)) from None


def _temp_beside(target: Path) -> tuple[int, str]:
    """A new temporary file in ``target``'s directory (created if missing). A target that is a
    directory, or a place where no file can be made, is an :class:`InputError` naming it."""
    try:
        if target.is_dir():
            raise IsADirectoryError(errno.EISDIR, "a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        got = exc.strerror or str(exc)
        raise InputError(str(target), None, None, "a writable file path", got) from None
