"""Seeded bad values for every entry of :data:`inputs.INPUTS` (issue 40, point 2): for a
``value`` its family's values that no input of the family may take, for an input ``file``
damaged files (missing, a directory, empty, binary, not UTF-8, nested 100,000 deep, a
400-digit number, a device), for a ``dir`` a missing path, a file or an empty directory, for
an ``out`` a directory, a path under a file or an unwritable place. :func:`cases` draws a
fixed few per entry (:data:`SEED`): the same values on every run of the suite."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from fuzz_options import UNWRITABLE
from inputs import Input

SEED = 40
"""The seed of every bad value drawn."""

HUGE = "9" * 400

VALUES: dict[str, tuple[str, ...]] = {
    "choice": ("zz_bogus", "", "x" * 5000),
    "spec": ("", "bogus", "replay:", "replay:/nonexistent.jsonl", "openai:", "x" * 8000),
    "specs": ("", ",", "bogus,builtin:parrot"),
    "role": ("nope=x", "=offline", "annotator", "annotator=bogus"),
    "key=value": ("nope=1", "=1", "noequals", "x" * 5000 + "=1"),
    "url": ("not a url", "ftp://x", "http://" + "x" * 5000),
    "count": ("0", "-1", "x", "1.5", "", HUGE, "nan"),
    "count0": ("-1", "x", "1.5", "", HUGE),
    "positive": ("0", "-1", "nan", "inf", "x", "", "1e400"),
    "number0": ("-1", "nan", "inf", "x", "1e400"),
    "finite": ("nan", "inf", "-inf", "x", "1e400"),
    "share": ("abc", "-1", "-5%", "x%", "nan"),
    "system": ("", "nosuch", "x" * 5000),
    "price": ("x", "m=1", "m=a,b", "m=-1,2", "=1,2", "m=1e400,1", f"m={HUGE},1", "m=2e6,1"),
    "memory": ("lots", "", "-1GB"),
    "master": ("",),
    "taxonomy": ("bogus", "", "/nonexistent.yaml"),
}
"""Bad values of each family of ``value`` inputs: each must be refused."""

OVERRIDES: dict[str, tuple[str, ...]] = {
    "run --max-failures": ("abc", "-1", "-5%", "x%", "nan"),
    "build cooccurrence --max-word-ratio": ("0", "2", "nan", "x"),
}

SUFFIX = {"records": ".jsonl", "yaml": ".yaml", "prices": ".yaml", "json": ".json",
          "lines": ".txt", "text": ".txt", "taxonomy": ".yaml", "resource": ".parquet"}  # fmt: skip

FILE_DAMAGE = ("missing", "directory", "empty", "binary", "latin-1", "deep", "huge", "device")
DIR_DAMAGE = ("missing", "a file", "empty")
OUT_DAMAGE = ("a directory", "under a file", "unwritable")


def _file(work: Path, family: str, damage: str) -> str:
    """A path to a damaged input file of ``family`` (written in ``work``)."""
    path = work / f"bad-{damage}{SUFFIX.get(family, '.jsonl')}"
    if damage == "missing":
        return str(work / f"nope{SUFFIX.get(family, '.jsonl')}")
    if damage == "directory":
        path.mkdir(exist_ok=True)
        return str(path)
    if damage == "device":
        return "/dev/zero"
    content = {
        "empty": b"",
        "binary": b"\x00\x01\x02" * 50,
        "latin-1": '{"id": "caf\u00e9"}\n'.encode("latin-1"),
        "deep": b'{"id": "a", "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
        "huge": b'{"id": "a", "x": 1' + b"0" * 400 + b"}\n",
    }[damage]
    if family in ("yaml", "prices", "taxonomy") and damage in ("deep", "huge"):
        content = b"x: " + content.split(b'"x": ', 1)[1].rstrip(b"}\n") + b"\n"
    path.write_bytes(content)
    return str(path)


def _dir(work: Path, damage: str) -> str:
    if damage == "missing":
        return str(work / "no-such-dir")
    if damage == "a file":
        (work / "a-file").write_text("x", "utf-8")
        return str(work / "a-file")
    (work / "empty-dir").mkdir(exist_ok=True)
    return str(work / "empty-dir")


def _out(work: Path, family: str, damage: str) -> str:
    (work / "a-file").write_text("x", "utf-8")
    (work / "a-dir").mkdir(exist_ok=True)
    if damage == "a directory":
        return str(work / "a-dir") if family == "file" else str(work / "a-file")
    if damage == "under a file":
        return str(work / "a-file" / "out")
    return UNWRITABLE


def cases(entry: Input) -> list[tuple[str, Any]]:
    """The seeded bad values of ``entry``: (label, how to make the value in a work dir)."""
    rng = random.Random(f"{SEED}:{entry.id}")
    if entry.kind == "value":
        pool = OVERRIDES.get(entry.id) or VALUES.get(entry.family)
        if entry.family == "method-option":
            pool = _method_values(entry)
        assert pool, entry.id
        return [(repr(v)[:30], lambda w, v=v: v) for v in rng.sample(pool, min(2, len(pool)))]
    if entry.kind == "file":
        picked = rng.sample(FILE_DAMAGE, 2)
        return [(d, lambda w, d=d: _file(w, entry.family, d)) for d in picked]
    if entry.kind == "dir":
        return [(d, lambda w, d=d: _dir(w, d)) for d in rng.sample(DIR_DAMAGE, 2)]
    return [(d, lambda w, d=d: _out(w, entry.family, d)) for d in rng.sample(OUT_DAMAGE, 2)]


def _method_values(entry: Input) -> tuple[str, ...]:
    from fuzz_options import bad_values

    from taiwa.benchmarks import get_method

    method, key = entry.command.split(" ", 1)[1], entry.name.split(" ", 1)[1]
    return tuple(bad_values(get_method(method).options.model_fields[key]))
