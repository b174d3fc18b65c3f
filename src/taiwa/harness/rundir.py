"""The run directory: ``config.json`` (resolved config and provenance, :mod:`.provenance`), one
JSONL file per stage and ``summary.json``, each written atomically (DESIGN.md, run directories).

One run at a time owns a directory (:class:`RunDir`): it holds an exclusive lock on ``.lock``,
marks the directory ``INCOMPLETE`` until ``summary.json`` is written, removes temporary files a
killed run left, and refuses a directory that holds a different run unless told to overwrite
it (the same run again, e.g. resumed after a kill, simply replaces its files). A run that fails
before its first request (an endpoint that cannot be reached) leaves nothing behind: its files
and the directories it made are removed (issue 42).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import TaiwaError
from taiwa.core.io import write_json
from taiwa.harness.rows import RowStore

if TYPE_CHECKING:
    from taiwa.harness.method import Stage


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "run"


def _short(value: Any) -> str:
    """A setting as it reads in a directory name: lists joined by ``+``, paths by their last
    component (``votes:data/v.jsonl`` → ``votes_v.jsonl``)."""
    if isinstance(value, list | tuple):
        return "+".join(_short(v) for v in value)
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return _slug(re.sub(r"[^:]*/", "", text))


NAME_MAX = 100


def default_run_dir(
    method: str, systems: Sequence[str], data: Path, differs: Mapping[str, Any] | None = None
) -> Path:
    """``runs/<method>/<systems joined by +>`` (or the data file's stem when the systems come
    from the data), then ``,key=value`` for every setting in ``differs`` (the options, roles,
    data and generation parameters that are not the defaults), so that two different runs get
    two directories and the same command writes the same place. A name longer than
    :data:`NAME_MAX` keeps its start and ends in a short hash of everything it would have said.
    """
    label = "+".join(_slug(s) for s in systems if s) or _slug(data.stem)
    parts = [f"{_slug(k)}={_short(v)}" for k, v in sorted((differs or {}).items())]
    name = ",".join([label, *parts])
    if len(name) > NAME_MAX:
        digest = hashlib.sha256(name.encode()).hexdigest()[:10]
        name = f"{name[: NAME_MAX - 11]},{digest}"
    return Path("runs") / method / name


def write_stage_files(
    out: Path, stages: Sequence[Stage[Any]], store: RowStore, systems: Sequence[str]
) -> None:
    """Each stage's rows (all ``systems``, in this order) to its output file, atomically."""
    for st in stages:
        if st.output is not None:
            lanes = [""] if st.across_systems or not systems else systems
            store.write(st.name, lanes, out / st.output)


def write_outputs(
    out: Path,
    config: dict[str, Any],
    summary: dict[str, Any],
    files: Mapping[str, Callable[[Path], None]] | None = None,
    *,
    before_summary: Callable[[], object] | None = None,
) -> None:
    """``config.json``, the method's extra ``files`` (charts), then ``before_summary`` (e.g.
    waiting for :func:`write_stage_files` in another thread), and ``summary.json`` last."""
    write_json(out / "config.json", config)
    for name, write in (files or {}).items():
        write(out / name)
    if before_summary is not None:
        before_summary()
    write_json(out / "summary.json", summary)


INCOMPLETE = "INCOMPLETE"
LOCK = ".lock"
_OURS = {LOCK, INCOMPLETE, "config.json", "summary.json"}


class RunDirBusy(TaiwaError):
    """Another process is writing this run directory."""

    exit_code = 1


class RunDir:
    """Exclusive use of a run directory for one run (see the module docstring)."""

    def __init__(self, out: Path, key: str, *, outputs: Sequence[str], overwrite: bool) -> None:
        self.out = out
        self.key = key
        self.outputs = set(outputs)
        self.overwrite = overwrite
        self._lock_fd: int | None = None
        #: the directories this run made (``out`` and the parents it needed), deepest first
        self._made: list[Path] = []
        self._started = False

    def __enter__(self) -> RunDir:
        out = self.out
        try:
            if out.exists() and not out.is_dir():
                raise TaiwaError(f"run directory {out} is a file: choose another --out")
            missing = out
            while not missing.exists() and missing != missing.parent:
                self._made.append(missing)
                missing = missing.parent
            out.mkdir(parents=True, exist_ok=True)
            fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise TaiwaError(f"cannot write the run directory {out}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RunDirBusy(
                f"another taiwa run is writing {out} (it holds {out / LOCK}): wait for it or "
                "choose another --out"
            ) from None
        self._lock_fd = fd
        try:
            self._claim()
        except BaseException:
            self._release()
            raise
        return self

    def _claim(self) -> None:
        out = self.out
        for tmp in out.glob(".*.tmp"):  # left by a run killed while writing
            tmp.unlink(missing_ok=True)
        for spill in out.glob(f"{RowStore.PREFIX}*"):  # the rows of a killed run
            shutil.rmtree(spill, ignore_errors=True)
        present = {p.name for p in out.iterdir()} - {LOCK}
        previous = _previous_key(out / "config.json")
        # a run that stopped before writing any output left nothing worth keeping
        started_only = present <= {INCOMPLETE, "config.json"} and (out / INCOMPLETE).is_file()
        if present and previous != self.key and not started_only:
            ours = (out / "config.json").is_file() or (out / INCOMPLETE).is_file()
            foreign = present - _OURS - self.outputs
            if not ours:
                raise TaiwaError(
                    f"{out} is not empty and holds no taiwa run: choose a new or empty --out"
                )
            if not self.overwrite:
                raise TaiwaError(
                    f"{out} holds another run (different method, systems, options or inputs): "
                    "pass --overwrite to replace it, or choose another --out"
                )
            if foreign and not all(_is_run_output(out / n) for n in foreign):
                raise TaiwaError(
                    f"{out} holds files taiwa did not write ({', '.join(sorted(foreign)[:3])}): "
                    "choose a new or empty --out"
                )
            present_files = present
        else:
            present_files = present & (_OURS | self.outputs)
        for name in present_files - {LOCK}:
            path = out / name
            if path.is_file():
                path.unlink()
        marker = {"pid": os.getpid(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        write_json(out / INCOMPLETE, {**marker, "note": "this run has not finished"})

    def started(self) -> None:
        """The run's first request goes out: from now on, a failure leaves the directory for
        the run to resume from (``INCOMPLETE``)."""
        self._started = True

    def finish(self) -> None:
        """The run's files are all written: the directory is complete."""
        (self.out / INCOMPLETE).unlink(missing_ok=True)

    def _release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        claimed = self._lock_fd is not None
        self._release()
        if kind is not None and claimed and not self._started:
            self._remove()

    def _remove(self) -> None:
        """What a run that failed before its first request wrote: its own files, then the
        directories it made, as long as nothing else is in them."""
        for name in (INCOMPLETE, "config.json", LOCK):
            (self.out / name).unlink(missing_ok=True)
        for made in self._made:
            try:
                made.rmdir()
            except OSError:  # not empty (or gone): kept
                break


def _previous_key(config_json: Path) -> str | None:
    try:
        data = json.loads(config_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get("run_key") if isinstance(data, dict) else None


def _is_run_output(path: Path) -> bool:
    """A file a taiwa run writes (JSONL rows, JSON, CSV tables, figures)."""
    return path.is_file() and path.suffix in {".jsonl", ".json", ".csv", ".svg", ".png", ".html"}
