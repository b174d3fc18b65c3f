"""The run directory: ``config.json`` (resolved config and provenance), one JSONL file per stage
and ``summary.json``, each written atomically (DESIGN.md, run directories)."""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa import __version__
from taiwa.io import write_json, write_jsonl

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


def _input_files(plan: Plan) -> dict[str, str]:
    """SHA-256 of the dataset and of every option or role value naming an existing file."""
    paths = [plan.data_path]
    values = [*plan.setup.options.model_dump().values(), *plan.setup.roles.values()]
    for v in values:
        text = str(v).split(":", 1)[-1] if isinstance(v, str) else None
        if text and len(text) < 4096 and Path(text).is_file():
            paths.append(Path(text).resolve())
    return {str(p): file_sha256(p) for p in dict.fromkeys(paths)}


def provenance(plan: Plan, pool: ModelPool, cache_dir: Path | None) -> dict[str, Any]:
    """Everything needed to audit or repeat the run: the resolved config, the method's options
    and roles, package version, git commit, seeds, the models, prompt and input hashes."""
    cfg = plan.config.model_copy(
        update={"data": plan.data_path, "out": plan.out, "cache_dir": cache_dir}
    )
    return {
        "config": cfg.model_dump(mode="json"),
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
        "input_sha256": _input_files(plan),
    }


def write_outputs(
    out: Path,
    config: dict[str, Any],
    stages: Sequence[Stage[Any]],
    results: Results,
    summary: dict[str, Any],
) -> None:
    """``config.json``, each stage's rows (all systems) and ``summary.json`` last."""
    write_json(out / "config.json", config)
    for st in stages:
        if st.output is None:
            continue
        lanes = [""] if st.across_systems or not results.systems else results.systems
        write_jsonl(out / st.output, [r for s in lanes for r in results.rows(st.name, s)])
    write_json(out / "summary.json", summary)
