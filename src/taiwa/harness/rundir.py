"""The run directory: ``config.json`` (resolved config and provenance), one JSONL file per stage
and ``summary.json``, each written atomically (DESIGN.md, run directories).

One run at a time owns a directory (:class:`RunDir`): it holds an exclusive lock on ``.lock``,
marks the directory ``INCOMPLETE`` until ``summary.json`` is written, removes temporary files a
killed run left, and refuses a directory that holds a different run unless told to overwrite
it (the same run again, e.g. resumed after a kill, simply replaces its files).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa import __version__
from taiwa.errors import TaiwaError
from taiwa.harness.rows import RowStore
from taiwa.io import write_json
from taiwa.redact import redact

if TYPE_CHECKING:
    from taiwa.harness.method import Results, Stage
    from taiwa.harness.pool import ModelPool
    from taiwa.harness.runner import Plan


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "run"


def default_run_dir(method: str, systems: Sequence[str], data: Path) -> Path:
    """``runs/<method>/<systems joined by +>`` (or the data file's stem when the systems come
    from the data): the same command writes the same place."""
    label = "+".join(_slug(s) for s in systems if s) or _slug(data.stem)
    return Path("runs") / method / label[:120]


@functools.cache
def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(__file__).parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def input_files(plan: Plan) -> dict[str, str]:
    """SHA-256 of the dataset and of every option or role value naming an existing file."""
    paths = [plan.data_path]
    values = [*plan.setup.options.model_dump().values(), *plan.setup.roles.values()]
    for v in values:
        text = str(v).split(":", 1)[-1] if isinstance(v, str) else None
        if text and len(text) < 4096 and Path(text).is_file():
            paths.append(Path(text).resolve())
    return {str(p): file_sha256(p) for p in dict.fromkeys(paths)}


def provenance(
    plan: Plan, pool: ModelPool, cache_dir: Path | None, inputs: dict[str, str] | None = None
) -> dict[str, Any]:
    """Everything needed to audit or repeat the run: the resolved config, the method's options
    and roles, package version, git commit, seeds, the models, prompt and input hashes, and the
    run's key (:func:`run_key`). Secrets in the config (a key in the base URL) are masked."""
    cfg = plan.config.model_copy(
        update={"data": plan.data_path, "out": plan.out, "cache_dir": cache_dir}
    )
    config = cfg.model_dump(mode="json")
    if config.get("base_url"):
        config["base_url"] = redact(config["base_url"])
    out: dict[str, Any] = {
        "config": config,
        "method": plan.method.name,
        "seed_paper": plan.method.seed,
        "options": plan.setup.options.model_dump(mode="json"),
        "roles": dict(plan.setup.roles),
        "systems": [s for s in plan.systems if s],
        "taiwa_version": __version__,
        "git_commit": _git_commit(),
        "models": {
            spec: {"backend": m.backend, "model_id": m.model_id} for spec, m in pool.loaded.items()
        },
        "seeds": {"generation": plan.config.seed, "bootstrap": plan.config.seed},
        "prompt_sha256": {
            k: hashlib.sha256(v.encode()).hexdigest() for k, v in plan.method.prompts.items()
        },
        "input_sha256": input_files(plan) if inputs is None else inputs,
    }
    out["run_key"] = run_key(out)
    return out


def write_stage_files(out: Path, stages: Sequence[Stage[Any]], results: Results) -> None:
    """Each stage's rows (all systems, in system order) to its output file, atomically."""
    for st in stages:
        if st.output is not None:
            lanes = [""] if st.across_systems or not results.systems else results.systems
            results.store.write(st.name, lanes, out / st.output)


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


def run_key(config: dict[str, Any]) -> str:
    """What makes two runs the same run: method, systems, roles, options, parameters and the
    content of the inputs (not paths, dates or versions)."""
    c = config["config"]
    same = {
        "method": config["method"],
        "systems": config["systems"],
        "roles": config["roles"],
        "options": config["options"],
        "inputs": sorted(config["input_sha256"].values()),
        "params": {k: c.get(k) for k in ("temperature", "max_tokens", "seed", "limit")},
    }
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()


class RunDir:
    """Exclusive use of a run directory for one run (see the module docstring)."""

    def __init__(self, out: Path, key: str, *, outputs: Sequence[str], overwrite: bool) -> None:
        self.out = out
        self.key = key
        self.outputs = set(outputs)
        self.overwrite = overwrite
        self._lock_fd: int | None = None

    def __enter__(self) -> RunDir:
        out = self.out
        try:
            if out.exists() and not out.is_dir():
                raise TaiwaError(f"run directory {out} is a file: choose another --out")
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

    def finish(self) -> None:
        """The run's files are all written: the directory is complete."""
        (self.out / INCOMPLETE).unlink(missing_ok=True)

    def _release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def __exit__(self, *exc: object) -> None:
        self._release()


def _previous_key(config_json: Path) -> str | None:
    try:
        data = json.loads(config_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get("run_key") if isinstance(data, dict) else None


def _is_run_output(path: Path) -> bool:
    """A file a taiwa run writes (JSONL rows, JSON, CSV tables, figures)."""
    return path.is_file() and path.suffix in {".jsonl", ".json", ".csv", ".svg", ".png", ".html"}
