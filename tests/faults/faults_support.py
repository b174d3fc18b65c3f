"""Helpers of the fault tests: prompt files, the real ``taiwa`` command, reading run dirs."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any


def prompts_file(path: Path, n: int, tag: str = "") -> Path:
    """``n`` prompts ``{"id": "q0000", "prompt": "…"}``, each text distinct (``tag`` makes
    the texts of two files differ)."""
    lines = [
        json.dumps({"id": f"q{i:04d}", "prompt": f"{tag}{i}番目の質問です"}, ensure_ascii=False)
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def prompt_of(i: int, tag: str = "") -> str:
    return f"{tag}{i}番目の質問です"


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``python -m taiwa ARGS`` in a subprocess, output captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "taiwa", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
    )


def taiwa(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> tuple[int, str, str]:
    """Run ``taiwa ARGS`` to the end: (exit code, stdout, stderr)."""
    proc = start(*args, env=env)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def rows(path: Path) -> list[dict[str, Any]]:
    """The JSON lines of ``path``; a line that does not parse fails the test."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def cached_rows(cache_dir: Path) -> int:
    db = cache_dir / "responses.sqlite"
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT COUNT(*) FROM responses").fetchone()[0])


def integrity(cache_dir: Path) -> str:
    with sqlite3.connect(cache_dir / "responses.sqlite") as con:
        return str(con.execute("PRAGMA integrity_check").fetchone()[0])
