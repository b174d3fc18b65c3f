"""The registry covers the CLI: every option of every command is fuzzed (or is a flag listed
here as taking no value), every method has a dataset target and every target yields the
kinds of variant the issue lists."""

from __future__ import annotations

from collections import Counter

import typer.main
from fuzz_options import BAD_VALUES, OUTPUTS, SPECIAL
from fuzz_registry import all_variants
from fuzz_targets import RECORD_TARGETS

from taiwa.benchmarks import method_names
from taiwa.cli.app import app

FLAGS = {
    "--reference",
    "--help",
    "--quiet",
    "--lift",
    "--no-cache",
    "--keep-negative",
    "--overwrite",
    "--fresh",
    "--debug",
    "--version",
    "--install-completion",
    "--show-completion",
    "--char-ngram",
    "--previous-act",
}
"""Options that take no value: nothing to fuzz but their effect, which other tests check."""

ARGUMENTS = {
    ("run", "method"),
    ("score dae", "file"),
    ("score dami", "file"),
    ("build cooccurrence", "inputs"),
    ("compare", "run_dirs"),
    ("show", "run_dir"),
}
"""Positional arguments: fuzzed as targets (files) or by a special case (the method)."""


FAMILIES = (
    "encoding", "binary", "truncate", "json", "record", "id", "text", "list", "file", "csv",
    "parquet", "yaml", "lines", "valid",
)  # fmt: skip
"""Kinds of variant the suite must have (the prefix of a variant's kind)."""


def _commands() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}

    def walk(cmd: object, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        out[" ".join(path)] = [
            p.opts[0] if getattr(p, "opts", None) else str(p.name)
            for p in getattr(cmd, "params", [])
        ]

    walk(typer.main.get_command(app), [])
    return out


def test_every_option_is_fuzzed() -> None:
    covered = {(label, option) for label, _, option, _ in BAD_VALUES}
    covered |= {(label, option) for label, _, option, _ in OUTPUTS}
    special = " ".join(c.name for c in SPECIAL)
    missing = [
        f"taiwa {command} {param}"
        for command, params in _commands().items()
        for param in params
        if param not in FLAGS
        and (command, param) not in ARGUMENTS
        and (command, param) not in covered
        and f"{command} {param}" not in special
    ]
    assert not missing, f"options without fuzz cases (add rows to BAD_VALUES): {missing}"


def test_every_method_has_a_dataset_target() -> None:
    names = " ".join(t.name for t in RECORD_TARGETS)
    assert [m for m in method_names() if f"run {m} --data" not in names] == []


def test_every_kind_of_bad_input_is_there() -> None:
    kinds = Counter(v.kind.split(":")[0].split("/")[0] for v in all_variants())
    for family in (
        "encoding",
        "binary",
        "truncate",
        "json",
        "record",
        "id",
        "text",
        "list",
        "file",
        "csv",
        "parquet",
        "yaml",
        "lines",
        "valid",
    ):
        assert kinds[family] > 0, family
    assert len(all_variants()) >= 1000
