"""Running the real ``taiwa`` command in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys


def taiwa(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """``python -m taiwa ARGS`` with a wide terminal; output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "taiwa", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )
