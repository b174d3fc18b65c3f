"""The files with a schema fuzzed by hypothesis (issue 40, point 2), seeded and bounded: a run
directory's ``summary.json`` (a number replaced by a non-number or an absurd one, an estimate
made inconsistent), ``config.json`` (a field of another JSON type) and stage files (a line
dropped, repeated or cut, the file emptied or deleted, an id or a value damaged), each read
by ``taiwa report``, ``leaderboard`` or ``compare``, must be refused with one line naming the
file; a prices file must be taken exactly when it is valid."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzz_core import Expect, problems, run_in_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inputs import two_system_run

EXAMPLES = 8
"""Examples each test draws."""

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory for the module's examples (a finished run made once)."""
    return tmp_path_factory.mktemp("schemas")


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


READERS = ["report", "leaderboard", "compare", "show"]
"""The commands that read a finished run directory."""


def _command(which: str, run_dir: Path, work: Path) -> list[str]:
    return {
        "report": ["report", str(run_dir), "--out", str(work / "r.html")],
        "leaderboard": ["leaderboard", str(run_dir.parent)],
        "compare": ["compare", str(run_dir)],
        "show": ["show", str(run_dir)],
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
    which = data.draw(st.sampled_from(READERS), label="command")
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
    which = data.draw(st.sampled_from(READERS), label="command")
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
    which = data.draw(st.sampled_from(READERS), label="command")
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
