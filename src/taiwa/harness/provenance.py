"""What a run records about itself in ``config.json`` (DESIGN.md, run directories): the
resolved config, the method's options and roles, taiwa's version and git commit, seeds, the
models' backends and ids, SHA-256 of the prompts and of every input file, and the run's key
(:func:`run_key`: what makes two runs the same run, so that a directory holding another run is
refused)."""

from __future__ import annotations

import functools
import hashlib
import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa import __version__
from taiwa.core.redact import redact
from taiwa.harness.plan import Plan
from taiwa.models.file_hash import sha256_file

if TYPE_CHECKING:
    from taiwa.harness.pool import ModelPool


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


def input_files(plan: Plan) -> dict[str, str]:
    """SHA-256 of the dataset and of every option or role value naming an existing file."""
    paths = [plan.data_path]
    values = [*plan.setup.options.model_dump().values(), *plan.setup.roles.values()]
    for v in values:
        text = str(v).split(":", 1)[-1] if isinstance(v, str) else None
        if text and len(text) < 4096 and Path(text).is_file():
            paths.append(Path(text).resolve())
    return {str(p): sha256_file(p) for p in dict.fromkeys(paths)}


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
        "stage_files": {st.name: st.output for st in plan.stages if st.output},
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


def plan_key(plan: Plan, inputs: dict[str, str]) -> str:
    """The run's identity (:func:`run_key`) before any model is loaded."""
    return run_key(
        {
            # --baseline only picks the reference of the comparisons: the same run
            "config": plan.config.model_dump(mode="json", exclude={"baseline"}),
            "method": plan.method.name,
            "systems": [s for s in plan.systems if s],
            "roles": dict(plan.setup.roles),
            "options": plan.setup.options.model_dump(mode="json"),
            "input_sha256": inputs,
        }
    )
