"""Every input of the CLI fuzzed (issue 40, point 2), driven by the list in :mod:`inputs`:

- the list is complete: every option and argument of every command (introspected from the
  typer app) and every method option is in it, and a file a command opens by itself is one of
  its entries (an audit hook records the files each command opens);
- every listed option, argument and file, given seeded bad values of its family, is refused
  with exit 2 and one error line (no traceback, no hang, no silent exit 0);
- the files a run directory holds and the prices file, which have a schema, are fuzzed by
  hypothesis (seeded, bounded): a damaged field is refused, a valid prices file is taken.

The whole module runs in process in about half a minute."""

from __future__ import annotations

import fnmatch
import json
import os
import random
import shutil
import sys
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from fuzz_core import Expect, problems, run_in_process
from fuzz_options import UNWRITABLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inputs import FLAGS, INPUTS, KINDS, METHOD_FILES, Input, two_system_run

from taiwa.cli.app import app

SEED = 40
"""The seed of every bad value drawn (the same values on every run of the suite)."""

EXAMPLES = 8
"""Examples each hypothesis test draws."""

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


# ------------------------------------------------------------------ the list is complete


def _commands() -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        out[" ".join(path)] = list(cmd.params)

    walk(typer.main.get_command(app), [])
    return out


def _takes_path(param: Any) -> bool:
    ann = param.type_descriptor.annotation
    args = typing.get_args(ann) if typing.get_origin(ann) in (list, types.UnionType) else ()
    return ann is Path or Path in args


def test_every_option_and_argument_is_listed() -> None:
    listed = {(i.command, i.name): i for i in INPUTS if not i.command.startswith("run ")}
    seen = set()
    missing = []
    for command, params in _commands().items():
        for p in params:
            name = p.opts[0] if p.param_type_name == "option" else p.name
            if name in FLAGS or getattr(p, "is_flag", False):
                continue
            seen.add((command, name))
            entry = listed.get((command, name))
            if entry is None:
                missing.append(f"taiwa {command} {name}")
            elif _takes_path(p) and entry.kind == "value":  # (a str may name files too)
                missing.append(f"taiwa {command} {name}: takes a path, listed as a value")
    assert not missing, f"inputs not in tests/fuzz/inputs.py (or of another kind): {missing}"
    stale = [k for k, i in listed.items() if i.kind != "opens" and k not in seen]
    assert not stale, f"listed inputs the CLI no longer has: {stale}"
    assert {i.kind for i in INPUTS} <= set(KINDS)


def test_every_method_option_is_listed() -> None:
    from taiwa.benchmarks import get_method, method_names

    listed = {(i.command, i.name) for i in INPUTS}
    for name in method_names():
        for key, info in get_method(name).options.model_fields.items():
            assert (f"run {name}", f"-o {key}") in listed
            ann = str(info.annotation)
            if "Path" in ann:
                assert (name, key) in METHOD_FILES, f"-o {key} of {name} takes a file"


def _opened_by(argv: list[str], work: Path) -> set[Path]:
    """The files below ``work`` that ``taiwa ARGV`` opened for reading."""
    opened: set[Path] = set()
    active = [True]

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if not active[0] or event != "open" or not isinstance(args[0], str | bytes):
            return
        mode, flags = args[1], args[2] if len(args) > 2 else 0
        writes = (mode is not None and any(c in str(mode) for c in "wax+")) or (
            mode is None and isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR)
        )
        path = Path(os.fsdecode(args[0]))
        if not writes and path.is_absolute() and work in path.parents:
            opened.add(path)

    sys.addaudithook(hook)
    try:
        outcome = run_in_process(argv)
    finally:
        active[0] = False  # an audit hook cannot be removed: it is switched off
    assert outcome.code == 0 and outcome.crash is None, outcome.stderr + str(outcome.crash)
    return opened


def test_the_files_commands_open_are_listed(tmp_path: Path) -> None:
    """A file a command opens by itself (not named on its command line, not in its cache or
    its own output) is one of the command's ``opens`` entries."""
    finished = two_system_run(tmp_path)
    prices = tmp_path / "prices.yaml"
    prices.write_text("builtin:parrot: [0, 0]\n", "utf-8")
    data = str(finished.parent / "prompts3.jsonl")
    lines = [
        ["report", str(finished), "--out", str(tmp_path / "r.html")],
        ["leaderboard", str(tmp_path)],
        ["compare", str(finished)],
        ["run", "prompts", "-m", "builtin:parrot", "--data", data, "--prices", str(prices),
         "--out", str(tmp_path / "run2"), "--no-cache", "-q"],
    ]  # fmt: skip
    for argv in lines:
        command = argv[0]
        given = {Path(a) for a in argv if a.startswith("/")}
        own = [tmp_path / "run2", tmp_path / "r.html"]
        patterns = [i.name for i in INPUTS if i.command == command and i.kind == "opens"]
        for path in _opened_by(argv, tmp_path):
            if path in given or any(p == path or p in path.parents for p in own):
                continue
            assert any(fnmatch.fnmatch(path.name, pat) for pat in patterns), (
                f"taiwa {command} opened {path.name}: list it in tests/fuzz/inputs.py"
            )


# ------------------------------------------------------------------ seeded bad values

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


def _cases(entry: Input) -> list[tuple[str, Any]]:
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


def _fuzzed() -> Iterator[Any]:
    for entry in INPUTS:
        if entry.kind == "opens":
            continue
        for label, make in _cases(entry):
            yield pytest.param(entry, make, id=f"{entry.id} {label}")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory for the module's cases (small inputs and finished runs made once)."""
    return tmp_path_factory.mktemp("inputs")


@pytest.mark.parametrize(("entry", "make"), list(_fuzzed()))
def test_every_input_refuses_its_bad_values(entry: Input, make: Any, work: Path) -> None:
    assert entry.argv is not None
    here = work / "case"
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir()
    value = make(here)
    argv = entry.argv(work, value)
    outcome = run_in_process(argv)
    bare = entry.name.split(" ")[-1].lstrip("-")
    shown = Path(value).name[:20] if value.startswith("/") else value[:20]
    names = (entry.name, bare, bare.replace("-", "_"), shown or "''")
    found = problems(outcome, Expect(refuse=True, names=()))
    assert not found, f"taiwa {' '.join(a[:80] for a in argv)}: {found}"
    assert any(n and n in outcome.stderr for n in names) or "Usage" in outcome.stderr, (
        f"the error names none of {names}: {outcome.stderr[-400:]}"
    )


# ------------------------------------------------------------------ files with a schema


def _leaves(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(obj, list):
        for k, v in enumerate(obj):
            yield from _leaves(v, (*path, k))
    else:
        yield path, obj


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def _command(which: str, run_dir: Path, work: Path) -> list[str]:
    return {
        "report": ["report", str(run_dir), "--out", str(work / "r.html")],
        "leaderboard": ["leaderboard", str(run_dir.parent)],
        "compare": ["compare", str(run_dir)],
    }[which]


def _refused(argv: list[str], *names: str) -> None:
    outcome = run_in_process(argv)
    found = problems(outcome, Expect(refuse=True, names=names))
    assert not found, f"taiwa {' '.join(argv)}: {found}"
    assert "RuntimeWarning" not in outcome.stderr


def _damaged_copy(work: Path) -> Path:
    target = work / "runs" / "damaged"
    shutil.rmtree(work / "runs", ignore_errors=True)
    shutil.copytree(two_system_run(work), target)
    return target


NOT_NUMBERS = st.one_of(
    st.text(max_size=4),
    st.booleans(),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2),
    st.floats(min_value=1e13, max_value=1e300),
    st.floats(min_value=-1e300, max_value=-1e13),
)


@FUZZ
@given(data=st.data())
def test_a_damaged_summary_is_refused(work: Path, data: st.DataObject) -> None:
    """A number of the summary replaced by a non-number or an absurd one, or an estimate made
    inconsistent (interval reversed, n 0 beside a value, the value far outside)."""
    run_dir = _damaged_copy(work)
    summary = json.loads((run_dir / "summary.json").read_text("utf-8"))
    numbers = [
        p for p, v in _leaves(summary) if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    estimates = [p[:-1] for p in numbers if p[-1] == "ci_low"]
    if data.draw(st.booleans(), label="estimate"):
        where = data.draw(st.sampled_from(estimates), label="where")
        est: Any = summary
        for key in where:
            est = est[key]
        low, high = est["ci_low"], est["ci_high"]
        how = data.draw(st.sampled_from(["reversed", "n 0", "far"]), label="how")
        if how == "reversed" and high - low > 1e-3:
            est["ci_low"], est["ci_high"] = high + 1.0, low
        elif how == "n 0":
            est["n"] = 0
        else:
            est["value"] = high + 3 * (high - low) + 1.0
    else:
        path = data.draw(st.sampled_from(numbers), label="path")
        _set(summary, path, data.draw(NOT_NUMBERS, label="value"))
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2), "utf-8")
    which = data.draw(st.sampled_from(["report", "leaderboard", "compare"]), label="command")
    _refused(_command(which, run_dir, work), "summary.json")


WRONG_JSON = {
    str: st.one_of(st.integers(), st.lists(st.text(max_size=2), max_size=2), st.booleans()),
    dict: st.one_of(st.text(max_size=4), st.lists(st.integers(), max_size=2), st.integers()),
    list: st.one_of(
        st.text(max_size=4), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)
    ),
}  # fmt: skip


@FUZZ
@given(data=st.data())
def test_a_wrong_typed_config_field_is_refused(work: Path, data: st.DataObject) -> None:
    run_dir = _damaged_copy(work)
    config = json.loads((run_dir / "config.json").read_text("utf-8"))
    fields = sorted(k for k, v in config.items() if type(v) in WRONG_JSON)
    field = data.draw(st.sampled_from(fields), label="field")
    config[field] = data.draw(WRONG_JSON[type(config[field])], label="value")
    (run_dir / "config.json").write_text(json.dumps(config, indent=2), "utf-8")
    which = data.draw(st.sampled_from(["report", "leaderboard", "compare"]), label="command")
    _refused(_command(which, run_dir, work), "config.json")


@FUZZ
@given(data=st.data())
def test_a_damaged_stage_file_is_refused(work: Path, data: st.DataObject) -> None:
    run_dir = _damaged_copy(work)
    name = data.draw(st.sampled_from(["responses.jsonl", "scores.jsonl"]), label="file")
    path = run_dir / name
    lines = path.read_text("utf-8").splitlines(keepends=True)
    k = data.draw(st.integers(0, len(lines) - 1), label="line")
    how = data.draw(
        st.sampled_from(["drop", "twice", "cut", "empty", "delete", "id", "value", "absurd"]),
        label="how",
    )
    row = json.loads(lines[k])
    if how == "drop":
        del lines[k]
    elif how == "twice":
        lines.insert(k, lines[k])
    elif how == "cut":
        lines = [*lines[:-1], lines[-1][: len(lines[-1]) // 2]]
    elif how == "empty":
        lines = []
    elif how == "id":
        row["id"] = data.draw(st.one_of(st.just(""), st.integers(), st.none()), label="id")
    else:
        field = next((f for f, v in row.items() if isinstance(v, float)), "text")
        bad = (
            1e300
            if how == "absurd"
            else data.draw(
                NOT_NUMBERS.filter(lambda v: not isinstance(v, str) or field != "text"), label="v"
            )
        )
        row[field] = bad if field != "text" else data.draw(st.integers(), label="n")
    if how in ("id", "value", "absurd"):
        lines[k] = json.dumps(row, ensure_ascii=False) + "\n"
    if how == "delete":
        path.unlink()
    else:
        path.write_text("".join(lines), "utf-8")
    which = data.draw(st.sampled_from(["report", "leaderboard", "compare"]), label="command")
    _refused(_command(which, run_dir, work), name)


PRICE_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-10, 10**30),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
)
PRICES = st.dictionaries(
    st.text(min_size=1, max_size=8).filter(lambda s: s.strip() == s and s.isprintable()),
    st.one_of(
        st.lists(PRICE_VALUES, min_size=2, max_size=2),
        st.fixed_dictionaries({"in": PRICE_VALUES, "out": PRICE_VALUES}),
        PRICE_VALUES,
    ),
    max_size=3,
)


def _price_ok(value: Any) -> bool:
    pair = [value["in"], value["out"]] if isinstance(value, dict) else value
    return (
        isinstance(pair, list)
        and len(pair) == 2
        and all(
            isinstance(x, int | float) and not isinstance(x, bool) and 0 <= x <= 1e6 for x in pair
        )
    )


@FUZZ
@given(prices=PRICES)
def test_a_prices_file_is_taken_only_when_valid(work: Path, prices: dict[str, Any]) -> None:
    path = work / "prices.json"
    path.write_text(json.dumps(prices), "utf-8")
    valid = bool(prices) and all(_price_ok(v) for v in prices.values())
    argv = [
        "run",
        "prompts",
        "-m",
        "builtin:parrot",
        "--data",
        str(two_system_run(work).parent / "prompts3.jsonl"),
    ]
    argv += [
        "--prices",
        str(path),
        "--out",
        str(work / "priced"),
        "--no-cache",
        "-q",
        "--overwrite",
    ]
    outcome = run_in_process(argv)
    found = problems(outcome, Expect(refuse=not valid, accept=valid, names=("prices.json",)))
    assert not found, f"{prices!r}: {found}"
