"""Paired comparisons wired into runs (issue 27): the summary block of a joint run, `taiwa
compare` on separate runs of the same data, refusals, statistics over across-system rows, the
reuse of the aggregate's resamples, and the MDD against seed 004 §3.2's stability analysis."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from taiwa.benchmarks import all_methods, get_method
from taiwa.core.errors import TaiwaError
from taiwa.display.comparison_table import comparisons_table
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.judges.win_rate import WinRate, points_of
from taiwa.metrics import resample_memo
from taiwa.metrics.comparisons import ComparedMetric, build_comparisons, collect
from taiwa.metrics.stats import bootstrap_ci
from taiwa.report.compare_runs import compare_runs


def _run(out: Path, method: str, **cfg: object) -> dict[str, object]:
    res = run(RunConfig(method=method, out=out, **cfg), get_method(method), show_progress=False)  # type: ignore[arg-type]
    return res.summary


def _text(block: dict[str, object]) -> str:
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None).print(comparisons_table(block))
    return buf.getvalue()


def test_joint_run_block_and_taiwa_compare_print_the_same_table(tmp_path: Path) -> None:
    joint = _run(tmp_path / "joint", "da-response", models=["human", "builtin:parrot"], limit=20)
    block = joint["comparisons"]
    assert isinstance(block, dict)
    assert [(r["a"], r["b"], r["metric"]) for r in block["rows"]] == [
        ("human", "builtin:parrot", "wlcs"),
        ("human", "builtin:parrot", "wed"),
    ]
    assert all(r["significant"] and r["better"] == "human" for r in block["rows"])
    assert all(r["shared"] == 20 and r["mdd"] > 0 for r in block["rows"])
    _run(tmp_path / "a", "da-response", models=["human"], limit=20)
    _run(tmp_path / "b", "da-response", models=["builtin:parrot"], limit=20)
    alone = compare_runs([tmp_path / "a", tmp_path / "b"], all_methods())
    assert _text(alone) == _text(block)
    env = {**os.environ, "COLUMNS": "80"}
    cli = subprocess.run(
        [sys.executable, "-m", "taiwa", "compare", str(tmp_path / "a"), str(tmp_path / "b")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert cli.returncode == 0, cli.stderr
    assert "human − builtin:parrot" in cli.stdout and "<.001*" in cli.stdout


def test_compare_refuses_runs_that_cannot_be_paired(tmp_path: Path) -> None:
    _run(tmp_path / "a", "da-response", models=["human"], limit=12)
    _run(tmp_path / "b", "da-response", models=["builtin:parrot"], limit=10)
    _run(
        tmp_path / "c",
        "da-response",
        models=["builtin:parrot"],
        limit=12,
        options={"annotator_attempts": 2},
    )
    with pytest.raises(TaiwaError, match="other items"):
        compare_runs([tmp_path / "a", tmp_path / "b"], all_methods())
    with pytest.raises(TaiwaError, match="annotator_attempts 3 vs 2"):
        compare_runs([tmp_path / "c", tmp_path / "a"], all_methods())
    cli = subprocess.run(
        [sys.executable, "-m", "taiwa", "compare", str(tmp_path / "a"), str(tmp_path / "b")],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 2
    assert len(cli.stderr.strip().splitlines()) == 1 and "other items" in cli.stderr


def test_one_system_in_two_runs_is_named_by_run_and_the_baseline_is_checked(
    tmp_path: Path,
) -> None:
    for seed in (1, 2):
        _run(tmp_path / f"s{seed}", "intent", models=["builtin:random"], seed=seed, limit=40)
    block = compare_runs([tmp_path / "s1", tmp_path / "s2"], all_methods())
    pairs = {(r["a"], r["b"]) for r in block["rows"]}
    assert pairs == {("builtin:random@s1", "builtin:random@s2")}
    with pytest.raises(TaiwaError, match="--baseline nobody"):
        compare_runs([tmp_path / "s1", tmp_path / "s2"], all_methods(), baseline="nobody")


def test_baseline_flag_pairs_every_system_with_it(tmp_path: Path) -> None:
    s = _run(
        tmp_path / "r",
        "intent",
        models=["builtin:parrot", "builtin:random", "human"],
        baseline="human",
        limit=30,
    )
    block = s["comparisons"]
    assert isinstance(block, dict) and block["baseline"] == "human"
    assert {(r["a"], r["b"]) for r in block["rows"]} == {
        ("builtin:parrot", "human"),
        ("builtin:random", "human"),
    }
    with pytest.raises(TaiwaError, match="--baseline gpt"):
        _run(tmp_path / "x", "intent", models=["human", "builtin:parrot"], baseline="gpt")


def test_win_rate_points_and_pooled_statistic() -> None:
    row = {
        "id": "t1",
        "pairs": [
            {"a": "x", "b": "y", "outcome": "a", "winner": "x", "basis": "judged"},
            {"a": "x", "b": "z", "outcome": "tie", "winner": None, "basis": "judged"},
            {"a": "y", "b": "z", "outcome": "b", "winner": "z", "basis": "missing"},
        ],
    }
    assert points_of(row, "x") == (1.5, 2)
    assert points_of(row, "y") == (0.0, 1)
    assert points_of(row, "z") == (0.5, 1)
    assert WinRate()([(1.5, 2), (0.0, 1), (1.0, 1)]) == pytest.approx(2.5 / 4)
    m = ComparedMetric(
        "wr",
        "win rate",
        "higher",
        "pairwise_judge",
        "pairs",
        kind="statistic",
        statistic=WinRate(),
        read=points_of,
        across=True,
    )
    got = collect([m], ["x", "y"], lambda stage, system: [row] if system == "" else [])
    assert got == {"x": {"wr": {"t1": (1.5, 2)}}, "y": {"wr": {"t1": (0.0, 1)}}}


def test_reusing_the_aggregates_resamples_changes_no_number() -> None:
    rng = np.random.default_rng(5)
    n = 3000
    base = rng.random(n)
    values = {
        s: {
            "m": {
                f"i{k}": float(v)
                for k, v in enumerate(np.clip(base + rng.normal(0, 0.2, n) + 0.01 * j, 0, 1))
            }
        }
        for j, s in enumerate(("a", "b", "c"))
    }
    metrics = [ComparedMetric("m", "m", "higher", "score", "m")]
    resample_memo._memo.clear()
    cold = build_comparisons(values, metrics, seed=4)
    for per in values.values():  # what the aggregate does first
        bootstrap_ci(list(per["m"].values()), seed=4)
    assert len(resample_memo._memo) == 3
    warm = build_comparisons(values, metrics, seed=4)
    for w, c in zip(warm["rows"], cold["rows"], strict=True):
        for k in ("value", "ci_low", "ci_high"):
            assert w["difference"][k] == pytest.approx(c["difference"][k], abs=1e-12)
        assert (w["p_holm"], w["mdd"]) == (c["p_holm"], c["mdd"])


def test_mdd_of_accuracies_is_the_point_of_power_0_8_of_mcnemars_test() -> None:
    """Seed 004 §3.2 reads how far the accuracy on n random items strays from the full
    benchmark's. A comparison asks more: a true difference must be *found*. Against a system
    that is always wrong, the per-item differences are 0/1 and the systems differ on the
    system's correct items (ψ = 0.7); the printed MDD (a family of one test) is the difference
    at which McNemar's exact test at 0.05 has power 0.8 — larger than the stability analysis'
    95th-percentile gap (the MDD it replaced, 2.80 · sd / √n, was found with power 0.66–0.77,
    issue 39)."""
    from taiwa.benchmarks.intent.stability import stability
    from taiwa.metrics.detectable import mcnemar_power

    rng = np.random.default_rng(11)
    correct = rng.random(40_000) < 0.7
    n = 300
    st = stability(correct, step=n)
    p95 = dict(zip(st.sizes, st.random_p95, strict=True))[n]
    sub = {f"q{k}": float(v) for k, v in enumerate(correct[:n])}
    wrong = dict.fromkeys(sub, 0.0)
    metrics = [ComparedMetric("acc", "accuracy", "higher", "score", "correct")]
    block = build_comparisons({"sys": {"acc": sub}, "never": {"acc": wrong}}, metrics)
    [row] = block["rows"]
    psi = sum(sub.values()) / n
    assert mcnemar_power(n, psi, row["mdd"], 0.05) == pytest.approx(0.8, abs=1e-3)
    assert row["mdd"] > p95
    assert row["interval"].startswith("Tango")


def test_summary_json_holds_the_block(tmp_path: Path) -> None:
    _run(tmp_path / "r", "prompts", models=["builtin:parrot", "builtin:random"])
    saved = json.loads((tmp_path / "r" / "summary.json").read_text(encoding="utf-8"))
    rows = saved["comparisons"]["rows"]
    assert {r["metric"] for r in rows} == {"japanese_share", "rougeL"}
    assert saved["comparisons"]["correction"] == "holm"
    config = json.loads((tmp_path / "r" / "config.json").read_text(encoding="utf-8"))
    assert config["stage_files"]["score"] == "scores.jsonl"


def test_leaderboard_gains_vs_baseline_columns_and_the_api_compares(tmp_path: Path) -> None:
    from taiwa.cli.api import compare
    from taiwa.report.leaderboard import write_leaderboard

    runs = tmp_path / "runs"
    _run(runs / "a", "da-response", models=["human"], limit=10)
    _run(runs / "b", "da-response", models=["builtin:parrot"], limit=10)
    _, md = write_leaderboard(runs, methods=all_methods())
    text = md.read_text(encoding="utf-8")
    assert "| vs human: WLCS | vs human: WED |" in text
    block = compare(runs / "a", runs / "b", baseline="human")
    [wed] = [r for r in block["rows"] if r["metric"] == "wed"]
    cell = f"{wed['difference']['value']:+.3f}" + ("*" if wed["significant"] else "")
    assert f"| {cell} |" in text and wed["better"] == "human"
    _run(runs / "c", "da-response", models=["builtin:random"], limit=5)
    _, md = write_leaderboard(runs, methods=all_methods())
    assert "vs human" not in md.read_text(encoding="utf-8")  # other items: no pairing


def test_run_yaml_baseline_and_it_is_not_part_of_the_run_key(tmp_path: Path) -> None:
    from taiwa.harness.config import resolve_config
    from taiwa.harness.plan import prepare
    from taiwa.harness.provenance import plan_key

    path = tmp_path / "run.yaml"
    path.write_text(
        "method: intent\nmodels: [human, builtin:parrot]\nbaseline: human\n", encoding="utf-8"
    )
    cfg = resolve_config(path, {})
    assert cfg.baseline == "human"
    method = get_method("intent")
    with_base = plan_key(prepare(cfg, method), {})
    without = plan_key(prepare(cfg.model_copy(update={"baseline": None}), method), {})
    assert with_base == without
