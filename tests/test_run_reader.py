"""The one reader of run directories (issue 40, points 1 and 3): ``taiwa compare``, ``report``
and ``leaderboard`` refuse, with one line naming the file, the line and the field, every
damaged run directory the issue lists (wrong-typed ``config.json`` fields, deleted, empty or
duplicated stage rows, non-numeric compared values, non-numbers in summary fields, estimates
whose interval, n or value disagree, absurd magnitudes), and the files the run itself wrote
stay readable; ``--prices`` and ``-o tagger_validation`` are bounded like every JSON reader;
``leaderboard --baseline`` names a system or is refused."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cli import taiwa_main
from taiwa.benchmarks import get_method
from taiwa.harness.config import RunConfig
from taiwa.harness.run_reader import load_run
from taiwa.harness.runner import run

PROMPTS = [{"id": f"p{i}", "prompt": f"明日の{i}時に駅で会いましょう"} for i in range(8)]


def _data(root: Path) -> Path:
    path = root / "prompts.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in PROMPTS), "utf-8")
    return path


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished prompts run of two systems (8 items each; a comparisons block)."""
    root = tmp_path_factory.mktemp("two")
    models = ["builtin:parrot", "builtin:eliza"]
    cfg = RunConfig(method="prompts", models=models, data=_data(root), out=root / "run")
    run(cfg.model_copy(update={"no_cache": True}), get_method("prompts"), show_progress=False)
    return root / "run"


@pytest.fixture(scope="module")
def intent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished intent run (its summary has stability and groups blocks)."""
    root = tmp_path_factory.mktemp("intent")
    cfg = RunConfig(
        method="intent", models=["builtin:random"], limit=30, out=root / "run", no_cache=True
    )
    run(cfg, get_method("intent"), show_progress=False)
    return root / "run"


def _copy(src: Path, dst: Path) -> Path:
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    return dst


def _edit_json(path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    obj = json.loads(path.read_text("utf-8"))
    edit(obj)
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=2), "utf-8")


def _put(keys: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(obj: dict[str, Any]) -> None:
        for key in keys[:-1]:
            obj = obj[key]
        obj[keys[-1]] = value

    return edit


def _refused(args: list[str], *names: str) -> str:
    """``taiwa ARGS`` exits 2 with one ``error:`` line naming each of ``names``."""
    out = taiwa_main(*args)
    lines = [x for x in out.stderr.splitlines() if x.strip()]
    assert out.returncode == 2 and len(lines) == 1, (args, out.returncode, out.stderr[-2000:])
    assert lines[0].startswith("error:"), out.stderr
    for name in names:
        assert name in lines[0], (name, lines[0])
    assert "Traceback" not in out.stderr and "RuntimeWarning" not in out.stderr
    return lines[0]


# ------------------------------------------------------------------ config.json (compare)

CONFIG_DAMAGE = [
    ("config", "x"),
    ("options", []),
    ("roles", "annotator"),
    ("systems", {"a": 1}),
    ("stage_files", ["scores.jsonl"]),
    ("seeds", 5),
    ("input_sha256", ["x"]),
    ("prompt_sha256", "x"),
]


@pytest.mark.parametrize(("field", "value"), CONFIG_DAMAGE, ids=[f for f, _ in CONFIG_DAMAGE])
def test_compare_refuses_a_wrong_typed_config_field(
    two: Path, tmp_path: Path, field: str, value: Any
) -> None:
    bad = _copy(two, tmp_path / "bad")
    _edit_json(bad / "config.json", _put((field,), value))
    _refused(["compare", str(bad)], "config.json:", f"field '{field}")


def test_config_fields_are_checked_for_range_and_place(two: Path, tmp_path: Path) -> None:
    cases = [
        (("config", "limit"), 0, "config.limit"),
        (("config", "seed"), True, "config.seed"),
        (("seeds", "bootstrap"), -1, "seeds.bootstrap"),
        (("stage_files", "score"), "../../etc/passwd.jsonl", "stage_files.score"),
        (("stage_files", "score"), "/tmp/x.jsonl", "stage_files.score"),
        (("input_sha256", "x"), "not-a-digest", "input_sha256.x"),
        (("systems",), ["builtin:parrot", "builtin:parrot"], "systems"),
    ]
    for keys, value, field in cases:
        bad = _copy(two, tmp_path / "bad")
        _edit_json(bad / "config.json", _put(keys, value))
        _refused(["report", str(bad), "--out", str(tmp_path / "r.html")], "config.json", field)


def test_leaderboard_refuses_a_wrong_typed_input_digest(two: Path, tmp_path: Path) -> None:
    bad = _copy(two, tmp_path / "runs" / "bad")
    _edit_json(bad / "config.json", _put(("input_sha256",), "x"))
    _refused(["leaderboard", str(tmp_path / "runs")], "config.json", "input_sha256")


def test_the_reader_names_every_field_the_runner_writes() -> None:
    """config.json's ``config`` is the runner's RunConfig: the reader types each field."""
    from taiwa.harness.config_schema import RunSettings

    assert set(RunSettings.model_fields) == set(RunConfig.model_fields)


# ------------------------------------------------------------------ stage files


@pytest.mark.parametrize("command", ["compare", "report"])
@pytest.mark.parametrize("damage", ["deleted", "empty", "directory"])
def test_a_missing_or_empty_stage_file_is_refused(
    two: Path, tmp_path: Path, command: str, damage: str
) -> None:
    for name in ("scores.jsonl", "responses.jsonl"):
        bad = _copy(two, tmp_path / "bad")
        (bad / name).unlink()
        if damage == "empty":
            (bad / name).write_text("", "utf-8")
        elif damage == "directory":
            (bad / name).mkdir()
        extra = ["--out", str(tmp_path / "r.html")] if command == "report" else []
        _refused([command, str(bad), *extra], name)


def test_a_duplicated_line_is_refused_naming_both_lines(two: Path, tmp_path: Path) -> None:
    bad = _copy(two, tmp_path / "bad")
    lines = (bad / "scores.jsonl").read_text("utf-8").splitlines(keepends=True)
    (bad / "scores.jsonl").write_text("".join([*lines[:3], lines[1], *lines[3:]]), "utf-8")
    line = _refused(["compare", str(bad)], "scores.jsonl:4", "first on line 2")
    assert "one line per item" in line
    lines[1] = lines[0]  # the same item twice, the total unchanged
    (bad / "scores.jsonl").write_text("".join(lines), "utf-8")
    _refused(["report", str(bad), "--out", str(tmp_path / "r.html")], "scores.jsonl:2")


@pytest.mark.parametrize("value", ["x", {}, True, [], 1e308, -1e13])
def test_a_non_numeric_or_absurd_stage_value_is_refused(
    two: Path, tmp_path: Path, value: Any
) -> None:
    bad = _copy(two, tmp_path / "bad")
    lines = (bad / "scores.jsonl").read_text("utf-8").splitlines()
    row = json.loads(lines[4])
    row["japanese_share"] = value
    lines[4] = json.dumps(row)
    (bad / "scores.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    _refused(["compare", str(bad)], "scores.jsonl:5", "japanese_share")
    _refused(["report", str(bad), "--out", str(tmp_path / "r.html")], "scores.jsonl:5")


def test_a_compared_value_of_another_kind_is_refused_by_compare(two: Path) -> None:
    """``compare`` checks what it compares even where the row's field has no fixed kind: a
    metric read from a field a method names freely."""
    from taiwa.harness.run_reader import StageRow
    from taiwa.metrics.comparisons import ComparedMetric
    from taiwa.report.compare_runs import _check_value

    m = ComparedMetric("score", "score", "higher", "score", "free.score")
    first: dict[str, tuple[str, int]] = {}
    _check_value(StageRow("s.jsonl", 1, "a", "x", {"free": {"score": 0.5}}), m, "x", first)
    for line, value in enumerate(["x", {}, True], start=2):
        row = StageRow("s.jsonl", line, "b", "x", {"free": {"score": value}})
        with pytest.raises(Exception, match=f"s.jsonl:{line}: field 'free.score'"):
            _check_value(row, m, "x", first)


def test_rows_and_counts_agree_with_the_summary(two: Path, tmp_path: Path) -> None:
    bad = _copy(two, tmp_path / "bad")
    lines = (bad / "scores.jsonl").read_text("utf-8").splitlines(keepends=True)
    (bad / "scores.jsonl").write_text("".join(lines[:-1]), "utf-8")  # one row lost
    _refused(["report", str(bad), "--out", str(tmp_path / "r.html")], "scores.jsonl", "8 row")
    bad = _copy(two, tmp_path / "bad")
    row = json.loads(lines[0])
    row["error"] = "a failure the summary does not count"
    (bad / "scores.jsonl").write_text(json.dumps(row) + "\n" + "".join(lines[1:]), "utf-8")
    _refused(["report", str(bad), "--out", str(tmp_path / "r.html")], "scores.jsonl", "failed")
    bad = _copy(two, tmp_path / "bad")
    row = json.loads(lines[0])
    row["id"] = "nobody"
    (bad / "scores.jsonl").write_text(json.dumps(row) + "\n" + "".join(lines[1:]), "utf-8")
    _refused(["report", str(bad), "--out", str(tmp_path / "r.html")], "nobody")


# ------------------------------------------------------------------ summary.json


SUMMARY_DAMAGE = [
    (("calls", 0, "probes"), "", "calls.0.probes"),
    (("seconds", "generate"), "質問", "seconds.generate"),
    (("systems", "builtin:random", "stability", "stable_from"), {}, "stable_from"),
    (("across", "groups", "dependent"), [], "across.groups.dependent"),
    (("systems", "builtin:random", "accuracy", "ci_low"), 0.99, "ci_low"),
    (("systems", "builtin:random", "accuracy", "n"), 0, "accuracy.n"),
    (("systems", "builtin:random", "accuracy", "value"), 40.0, "accuracy.value"),
    (("systems", "builtin:random", "accuracy", "ci_high"), 5e12, "accuracy.ci_high"),
    (("systems", "builtin:random", "accuracy", "value"), 1e308, "accuracy.value'"),
    (("status",), "failures", "status"),
    (("n_samples",), 3, "systems.builtin:random.n"),
]


@pytest.mark.parametrize(
    ("keys", "value", "field"), SUMMARY_DAMAGE, ids=[f for _, _, f in SUMMARY_DAMAGE]
)
def test_summary_values_that_cannot_be_are_refused(
    intent: Path, tmp_path: Path, keys: tuple[Any, ...], value: Any, field: str
) -> None:
    bad = _copy(intent, tmp_path / "runs" / "bad")
    _edit_json(bad / "summary.json", _put(keys, value))
    _refused(["report", str(bad), "--out", str(tmp_path / "r.html")], "summary.json:", field)
    _refused(["leaderboard", str(tmp_path / "runs")], "summary.json:", field)


def test_a_value_of_another_kind_in_a_map_of_systems_is_refused(two: Path) -> None:
    """The values of a map keyed by the run's systems (or their pairs, or numbers) hold one
    kind; a block of new named fields may mix kinds (a later taiwa's record)."""
    from taiwa.core.errors import InputError
    from taiwa.harness.summary_schema import check_summary

    summary = json.loads((two / "summary.json").read_text("utf-8"))
    assert set(summary["systems"]) == {"builtin:parrot", "builtin:eliza"}
    summary["across"]["per_system"] = {"builtin:parrot": 0.5, "builtin:eliza": "many"}
    with pytest.raises(InputError, match=r"across\.per_system\.builtin:eliza.*number like"):
        check_summary(two / "summary.json", summary, "")
    summary["across"]["per_system"] = {"builtin:parrot vs builtin:eliza": 1, "1": 2}
    summary["across"]["claim"] = {"holds": True, "why": "a later field"}
    check_summary(two / "summary.json", summary, "")


def test_the_files_a_run_writes_are_read_unchanged(two: Path, intent: Path) -> None:
    for path in (two, intent):
        loaded = load_run(path)
        assert (
            sum(loaded.stages["score"].rows.values()) == 8 * len(loaded.systems) or path == intent
        )
        assert loaded.config.stage_files == {
            "generate": "responses.jsonl",
            "score": "scores.jsonl",
            "item": "items.jsonl",
        }


def test_rows_by_stage_system_and_item(two: Path) -> None:
    loaded = load_run(two)
    rows = list(loaded.stage_rows("score", "builtin:eliza"))
    assert [r.id for r in rows] == [p["id"] for p in PROMPTS]
    assert all(r.system == "builtin:eliza" and r.ok and r.file == "scores.jsonl" for r in rows)
    item = loaded.item("p3")
    assert set(item) == {"generate", "score", "item"}
    assert {r.system for r in item["score"]} == {"builtin:parrot", "builtin:eliza"}
    assert list(loaded.stage_rows("nosuch")) == []


# ------------------------------------------------------------------ baselines and prices


@pytest.mark.parametrize("baseline", ["nosuch", ""])
def test_leaderboard_refuses_a_baseline_that_is_no_system(
    two: Path, tmp_path: Path, baseline: str
) -> None:
    _copy(two, tmp_path / "runs" / "a")
    _refused(["leaderboard", str(tmp_path / "runs"), "--baseline", baseline], "--baseline")
    _refused(["compare", str(tmp_path / "runs" / "a"), "--baseline", baseline], "--baseline")
    ok = taiwa_main("leaderboard", str(tmp_path / "runs"), "--baseline", "builtin:eliza")
    assert ok.returncode == 0, ok.stderr


PRICES = [
    ("huge.json", '{"m": [1' + "0" * 400 + ", 1]}", "huge.json"),
    ("deep.json", '{"m": ' + "[" * 100_000 + "]" * 100_000 + "}", "deep"),
    ("deep.yaml", "m: " + "[" * 100_000 + "]" * 100_000 + "\n", "deep"),
    ("bool.yaml", "m: [true, 1]\n", "m.in"),
    ("bool.json", '{"m": {"in": 1, "out": false}}', "m.out"),
    ("big.yaml", "m: [1e300, 1]\n", "m.in"),
    ("inf.yaml", "m: [.inf, 1]\n", "inf.yaml"),
]


@pytest.mark.parametrize(("name", "text", "named"), PRICES, ids=[p[0] for p in PRICES])
def test_prices_files_are_bounded(tmp_path: Path, name: str, text: str, named: str) -> None:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    args = ["run", "prompts", "-m", "builtin:parrot", "--data", str(_data(tmp_path))]
    _refused([*args, "--out", str(tmp_path / "run"), "--prices", str(path)], named)


def test_tagger_validation_report_is_bounded(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    deep = "[" * 100_000 + "]" * 100_000
    report.write_text('{"tagger": "default", "sets": ' + deep + "}", "utf-8")
    args = ["run", "da-distribution", "-m", "builtin:parrot", "--limit", "3"]
    args += ["-o", f"tagger_validation={report}", "--out", str(tmp_path / "run"), "--no-cache"]
    _refused(args, "report.json", "deep")
    report.write_text(
        '{"tagger": "default", "labels": {"default": {"confusion": {"質問": {"質問": "x"}}}}}',
        "utf-8",
    )
    _refused(args, "report.json", "confusion")


def test_no_other_module_reads_a_run_directory() -> None:
    """Only the reader opens a run's ``summary.json`` / ``config.json`` (the runner writes
    them; a base model's ``config.json`` is another file): a new command reads runs through
    :func:`load_run` or not at all."""
    src = Path(__file__).resolve().parents[1] / "src" / "taiwa"
    allowed = {
        "harness/run_reader.py": "the reader",
        "harness/rundir.py": "the runner writing them (and a run key to refuse another run)",
        "harness/runner.py": "the runner writing config.json",
        "annotators/da_classifier/encoder_train.py": "a transformers model's config.json",
    }
    named = {
        str(p.relative_to(src))
        for p in src.rglob("*.py")
        if '"summary.json"' in p.read_text("utf-8") or '"config.json"' in p.read_text("utf-8")
    }
    assert named <= set(allowed), named - set(allowed)


@pytest.mark.parametrize("where", ["system", "id"])
def test_a_huge_value_in_a_row_is_cut_in_the_error(two: Path, tmp_path: Path, where: str) -> None:
    """A 100,000-character system name or item id (found by the fuzzer at scale) gives one
    short line: the value cut in the middle with the number of characters left out."""
    bad = _copy(two, tmp_path / "bad")
    rows = [json.loads(x) for x in (bad / "scores.jsonl").read_text("utf-8").splitlines()]
    rows[0][where] = "x" * 100_000
    (bad / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    line = _refused(["leaderboard", str(bad)], "scores.jsonl")
    assert len(line) < 700 + len(str(bad)), len(line)


def test_input_error_cuts_long_parts_and_says_how_much() -> None:
    from taiwa.core.errors import InputError

    err = str(InputError("f.json", 3, "a" * 1000, "a number", "b" * 5000))
    assert err.startswith("f.json:3: field 'aaa") and len(err) < 1000
    assert "…[620 characters]…" in err and "…[4,620 characters]…" in err
    assert str(InputError("f.json", None, "x", "a number", "'abc'")).endswith("(got 'abc')")
