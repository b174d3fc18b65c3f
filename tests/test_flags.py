"""Flags (issue 24, DESIGN.md "Flags are data"): the shared checks on their own, how a flag is
stored, marked and printed, and the intent run that shows them (a constant answerer flagged,
a seeded random guesser and the annotators' answers never; context dependence from the whole
file under --limit) in the terminal, summary.json and the report."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cli import taiwa_main
from taiwa.benchmarks.intent.dataset import iter_items
from taiwa.core.samples import sample_path
from taiwa.metrics import answer_flags, flags

ITEMS = sample_path("intent/items.jsonl")
GOLD = [it.gold for it in iter_items(ITEMS)]


def _flags(choices: list[int | None], golds: list[int], k: int = 4) -> list[str]:
    dist = answer_flags.answer_distribution(choices, golds, k)
    return [f.code for f in answer_flags.answer_distribution_flags(dist, "accuracy")]


def test_a_constant_answerer_is_flagged_at_any_n() -> None:
    for n in (5, 20, 55, len(GOLD)):
        assert _flags([0] * n, GOLD[:n]) == ["one-option"]
    assert _flags([2] * 55, GOLD[:55]) == ["one-option"]


def test_a_leaning_answerer_is_flagged() -> None:
    rng = random.Random(1)
    leaning = [0 if rng.random() < 0.7 else rng.randrange(4) for _ in GOLD]
    assert _flags(leaning, GOLD) == ["one-option"]
    # a quarter of the answers moved to option 2: under half, but beyond gold's shares
    golds = GOLD * 3
    skewed = [1 if k % 4 == 0 else g for k, g in enumerate(golds)]
    assert _flags(skewed, golds) == ["skewed-answers"]


@pytest.mark.parametrize("n", [55, len(GOLD)])
def test_a_uniform_guesser_and_the_gold_answers_are_never_flagged(n: int) -> None:
    for seed in range(200):
        rng = random.Random(seed)
        assert _flags([rng.randrange(4) for _ in range(n)], GOLD[:n]) == [], seed
    assert _flags(list(GOLD[:n]), GOLD[:n]) == []
    assert _flags([0] * n, [0] * n) == []  # gold itself constant: answering so is no flag


def test_the_distribution_counts_options_and_unparsed() -> None:
    d = answer_flags.answer_distribution([0, None, 1, 1], [0, 1, 1, 2], 4)
    assert (d["answers"], d["gold"], d["unparsed"], d["n"]) == ([1, 2, 0, 0], [1, 2, 1, 0], 1, 4)
    assert d["top"]["option"] == 2 and d["chi2"] is None  # below the chi-square floor


def test_rating_histogram_identical_replies_small_n() -> None:
    bins = dict.fromkeys(map(str, range(1, 11)), 0)
    assert flags.rating_histogram_flag({**bins, "5": 15}, "single") is not None
    assert flags.rating_histogram_flag({**bins, "5": 4}, "single") is None  # under MIN_N
    assert flags.rating_histogram_flag({**bins, "5": 8, "7": 4}, "single") is None
    share, flag = flags.identical_replies(["はい"] * 6 + ["いいえ"] * 2)
    assert share["share"] == 0.75 and flag is not None and "6 of 8" in flag.text
    assert flags.identical_replies(["a", "b", "c", "d", "e"])[1] is None
    assert flags.small_n(3, 5, "x") is not None and flags.small_n(5, 5, "x") is None
    assert flags.no_pair_judged(0, "pairwise", 4) is not None
    assert flags.no_pair_judged(2, "pairwise") is None


def test_a_plug_in_bias_is_flagged_whatever_its_sign_or_under_the_floor() -> None:
    assert flags.plug_in_bias(1.922, -0.4, 500, "dami", 50) is not None  # negative bias
    assert flags.plug_in_bias(1.922, 0.01, 5, "dami", 50) is not None  # n under the floor
    assert flags.plug_in_bias(1.922, 0.01, 500, "dami", 50) is None
    f = flags.plug_in_bias(1.922, -0.4, 5, "dami", 50)
    assert f is not None and "n=5 < 50" in f.text and "-0.400" in f.text


def test_flags_are_stored_marked_and_printed() -> None:
    block: dict[str, object] = {"accuracy": {"value": 0.3}}
    flags.add(block, None, flags.Flag("one-option", "accuracy", "every answer is 1"))
    assert block["flags"] == [{"code": "one-option", "on": "accuracy", "text": "every answer is 1"}]
    assert flags.mark("0.300\n[0.2, 0.4]", block, "accuracy") == "0.300 ⚑\n[0.2, 0.4]"
    assert flags.mark("0.300", block, "other") == "0.300"
    summary = {"systems": {"demo": block}, "across": {}}
    assert flags.flag_lines(summary) == ["⚑ demo · accuracy: every answer is 1"]


def test_intent_under_limit_flags_a_constant_answerer_in_terminal_summary_and_report(
    tmp_path: Path,
) -> None:
    """Issue 24's bullets: `--limit 5` keeps it-001, it-003, it-004, it-005 context-dependent,
    and a model answering 1 every time is flagged (builtin:random and human are not)."""
    items = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines()]
    replay = tmp_path / "ones.jsonl"
    replay.write_text(
        "".join(json.dumps({"id": it["id"], "text": "**1**"}) + "\n" for it in items), "utf-8"
    )
    out = tmp_path / "run"
    r = taiwa_main(
        "run", "intent", "-m", f"replay:{replay}", "-m", "builtin:random", "-m", "human",
        "--limit", "5", "--out", str(out), "--cache-dir", str(tmp_path / "cache"),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "文脈依存" in r.stdout and "(n=4)" in r.stdout
    assert "⚑" in r.stdout and "every answer named option 1" in " ".join(r.stdout.split())
    s = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert s["across"]["items"] == {"all": 5, "dependent": 4, "independent": 1}
    scores = [json.loads(line) for line in (out / "scores.jsonl").read_text("utf-8").splitlines()]
    dependent = sorted({row["id"] for row in scores if row["dependent"]})
    assert dependent == ["it-001", "it-003", "it-004", "it-005"]
    constant = s["systems"][f"replay:{replay}"]
    codes = [f["code"] for f in constant["flags"]]
    assert codes[0] == "one-option" and set(codes[1:]) == {"small-n"}  # n=5 < CI_MIN_N
    assert constant["answers"]["answers"] == [5, 0, 0, 0]
    for other in ("human", "builtin:random"):
        assert {f["code"] for f in s["systems"][other]["flags"]} == {"small-n"}
    assert s["systems"]["human"]["answers"]["answers"] == constant["answers"]["gold"]
    page = tmp_path / "report.html"
    r = taiwa_main("report", str(out), "--out", str(page))
    assert r.returncode == 0, r.stderr
    html = page.read_text(encoding="utf-8")
    assert "<h4>flags</h4>" in html and "every answer named option 1" in html
    assert "answers per option" in html


def test_a_rounding_noise_bias_on_a_zero_value_says_no_percentage() -> None:
    """A constant system's DAMI is 0 and its jackknife bias rounding noise: the flag (for n under
    the floor) must not claim the bias is an infinite share of the value."""
    f = flags.plug_in_bias(0.0, 1e-17, 12, "dami", 50)
    assert f is not None and "%" not in f.text and f.text.startswith("n=12 < 50")
    assert flags.plug_in_bias(0.0, 1e-17, 500, "dami", 50) is None
    g = flags.plug_in_bias(0.0, 0.2, 500, "dami", 50)
    assert g is not None and "on a value of 0" in g.text


def test_small_n_flags_every_estimate_under_the_floor_and_prints_one_line() -> None:
    """An estimate from fewer than CI_MIN_N items is flagged wherever it sits in a block
    (nested keys joined by dots), its cell is marked once, and a block's small-n flags
    share one printed line naming the block's keys and the range of n."""
    from taiwa.display.tables import ci_cell

    def est(n: int, v: float | None = 0.5) -> dict[str, object]:
        return {"value": v, "ci_low": 0.1, "ci_high": 0.9, "n": n}

    block: dict[str, object] = {
        "accuracy": est(3),
        "big": est(flags.CI_MIN_N),
        "empty": est(0, None),
        "by_task": {"a": est(2), "b": est(40)},
    }
    found = flags.small_n_flags(block)
    assert [(f.code, f.on) for f in found] == [("small-n", "accuracy"), ("small-n", "by_task.a")]
    flags.add_small_n({"demo": block}, across := {"rho": est(4)})
    assert flags.small_n_flags(block) == []  # already flagged: not twice
    lines = flags.flag_lines({"systems": {"demo": block}, "across": across})
    assert lines == [
        "⚑ demo · accuracy, by_task: n=2–3, below 10: the estimates and their CIs are unstable",
        "⚑ across · rho: n=4, below 10: the estimates and their CIs are unstable",
    ]
    assert ci_cell(est(3)) == "0.500 ⚑\n[0.10, 0.90]"
    assert ci_cell(est(10)) == "0.500\n[0.10, 0.90]"
    assert flags.mark(ci_cell(est(3)), block, "accuracy") == "0.500 ⚑\n[0.10, 0.90]"


def test_a_mean_of_stand_ins_only_is_flagged() -> None:
    assert flags.all_imputed(0, 0, "single", "x") is None
    assert flags.all_imputed(2, 3, "single", "x") is None
    f = flags.all_imputed(3, 3, "single", "the lowest rating")
    assert f is not None and f.code == "all-imputed" and "(n=3)" in f.text


def test_intent_accuracy_from_unparseable_answers_only_is_flagged(tmp_path: Path) -> None:
    """A system whose every answer names no option scores 0 by the scoring rule, not by
    reading the intent wrongly: its accuracy is flagged all-imputed; a guesser's is not."""
    out = tmp_path / "run"
    r = taiwa_main(
        "run", "intent", "-m", "builtin:fixed", "-m", "builtin:random", "--limit", "12",
        "--out", str(out), "--no-cache", "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    systems = json.loads((out / "summary.json").read_text("utf-8"))["systems"]
    fixed = {(f["on"], f["code"]) for f in systems["builtin:fixed"]["flags"]}
    assert ("accuracy", "all-imputed") in fixed and systems["builtin:fixed"]["unparseable"] == 12
    guesser = {f["code"] for f in systems["builtin:random"].get("flags", ())}
    assert "all-imputed" not in guesser
    assert "every value (n=12) is an answer naming no single option" in " ".join(r.stdout.split())
