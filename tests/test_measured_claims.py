"""Issue 39 end to end: comparisons only of what was measured, sentences that are checked
claims, and flags that travel to every number derived from the same outputs (splits,
stability, comparison rows, `taiwa compare`, the leaderboard)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cli import taiwa_main
from taiwa.benchmarks import all_methods, get_method
from taiwa.benchmarks.chitchat.analysis import difficulty_claim
from taiwa.benchmarks.chitchat.tables import difficulty_sentence
from taiwa.benchmarks.intent.stability import stability
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.metrics.flags import MARK
from taiwa.report.compare_runs import compare_runs
from taiwa.testing.stub_server import StubState, serve

# ------------------------------------------------------------------ chitchat (issue 39's run)


def _five(body: Mapping[str, Any]) -> str:
    """A judge that rates every reply it reads 5 and calls every pair a tie."""
    user = str(next(m for m in body["messages"] if m["role"] == "user")["content"])
    return "判定：[[C]]" if "システムAの応答" in user else "評価：[[5]]"


def test_the_chitchat_run_of_the_issue_tests_only_what_was_judged(tmp_path: Path) -> None:
    """parrot never passes extraction (its ratings are the rule's 1), the judge gives 5 to
    everything it reads: no test for a pair with the parrot (it used to print −4.000, p =
    0.014), the per-task line does not claim seed 001, ρ over 3 systems has no p."""
    with serve(StubState(script=_five)) as url:
        res = run(
            RunConfig(
                method="chitchat",
                models=["builtin:parrot", "builtin:eliza", "human"],
                roles={"judge": "openai:five"},
                base_url=url,
                out=tmp_path / "run",
                limit=10,
            ),
            get_method("chitchat"),
            show_progress=False,
        )
    s = res.summary
    rows = {(r["a"], r["b"], r["metric"]): r for r in s["comparisons"]["rows"]}
    for other in ("builtin:eliza", "human"):
        for metric in ("single", "rougeL", "win_rate"):
            r = rows["builtin:parrot", other, metric]
            assert r["p"] is None or r["p"] != r["p"], (other, metric)
            assert not r["significant"] and r["shared"] == 0 and r["imputed_a"] == 10
            assert r["no_test"].startswith("no item measured on both sides")
    judged = rows["builtin:eliza", "human", "single"]
    assert judged["no_test"] is None and judged["shared"] + judged["imputed_a"] == 10
    assert judged["flags"] and judged["flags"][0]["code"] == "constant-rating"
    [constant] = [f for f in s["across"]["flags"] if f["code"] == "constant-rating"]
    assert constant["systems"] == ["builtin:eliza", "human"]  # it read none of the parrot's
    claim = s["across"]["task_difficulty"]["claim"]
    assert not claim["holds"]
    rho = s["across"]["consistency"]["single~rougeL"]
    assert rho["n"] == 3 and (rho["p"] is None or rho["p"] != rho["p"])  # NaN, null in JSON
    out = (tmp_path / "run" / "summary.json").read_text(encoding="utf-8")
    assert json.loads(out)["comparisons"]["rows"][0]["no_test"] is not None
    from rich.console import Console

    from taiwa.display.tables import print_result

    console = Console(width=100, record=True, color_system=None)
    print_result(console, res)
    exported = console.export_text()
    lines = [x.strip("│ ") for x in exported.splitlines()]
    human = next(x for x in lines if x.startswith("human ") and "10/10" in x)
    assert f"5.00 {MARK}" in human  # the same judge rated the reference
    text = " ".join(exported.split())
    assert "as in seed 001" not in text and "none below 4" in text
    assert "p=0," not in text and "no test for builtin:parrot − human" in text


def test_the_difficulty_claim_needs_a_fall_beyond_noise_on_judged_ratings() -> None:
    rng = np.random.default_rng(1)
    clear = {
        "next_utterance": list(rng.normal(7, 1, 30)),
        "next_speaker": list(rng.normal(6, 1, 30)),
        "continuation": list(rng.normal(5, 1, 30)),
    }
    assert difficulty_claim(clear, decreasing=True)["holds"]
    few = {k: v[:6] for k, v in clear.items()}
    assert "below 10" in difficulty_claim(few, decreasing=True)["why"]
    flat = {k: list(rng.normal(6, 1, 30)) for k in clear}
    flat["next_utterance"] = [x + 0.05 for x in flat["next_utterance"]]
    verdict = difficulty_claim(flat, decreasing=True)
    assert not verdict["holds"] and "within noise" in verdict["why"]
    diff = {"tasks": {}, "claim": difficulty_claim(clear, decreasing=True)}
    assert "as in seed 001" in difficulty_sentence(diff)
    assert "as in seed 001" not in difficulty_sentence(diff, judge_constant=True)


# ------------------------------------------------------------------ intent: a constant answerer


def test_stability_is_claimed_only_when_random_subsets_agree() -> None:
    """A lucky order (the first n items happen to match the full accuracy) is not stability:
    the claim needs random subsets of that n to stay within the threshold too."""
    rng = np.random.default_rng(3)
    correct = rng.random(400) < 0.7
    st = stability(correct, step=50, threshold=0.05, seed=1)
    claim = st.claim()
    p95 = dict(zip(st.sizes, st.random_p95, strict=True))
    if st.stable_from is not None and p95[st.stable_from] < 0.05:
        assert claim["holds"]
    lucky = stability(correct, step=50, threshold=0.02, seed=1)
    if lucky.stable_from is not None:
        assert not lucky.claim()["holds"] and "luck" in str(lucky.claim()["why"])


@pytest.fixture(scope="module")
def intent_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("intent")
    items = [
        json.loads(line)
        for line in sample_path("intent/items.jsonl").read_text("utf-8").splitlines()
    ]
    ones = tmp / "ones.jsonl"
    ones.write_text(
        "".join(json.dumps({"id": it["id"], "text": "**1**"}) + "\n" for it in items), "utf-8"
    )
    joint = tmp / "runs" / "joint"
    proc = taiwa_main(
        "run", "intent", "-m", f"replay:{ones}", "-m", "builtin:random", "-m", "human",
        "--out", str(joint), "--cache-dir", str(tmp / "cache"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for name, spec in (("alone", f"replay:{ones}"), ("human", "human")):
        p = taiwa_main(
            "run", "intent", "-m", spec, "--out", str(tmp / "pair" / name),
            "--cache-dir", str(tmp / "cache"),
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
    return {"tmp": tmp, "joint": joint, "stdout": proc.stdout, "system": f"replay:{ones}"}


def test_the_constant_answerers_flag_is_on_every_cell_derived_from_its_answers(
    intent_runs: dict[str, Any],
) -> None:
    s = json.loads((intent_runs["joint"] / "summary.json").read_text(encoding="utf-8"))
    system = intent_runs["system"]
    [flag] = [f for f in s["systems"][system]["flags"] if f["code"] == "one-option"]
    assert set(flag["covers"]) == {"accuracy_independent", "accuracy_dependent", "stability"}
    assert not s["systems"][system]["stability"]["claim"]["holds"]
    rows = [r for r in s["comparisons"]["rows"] if system in (r["a"], r["b"])]
    assert len(rows) == 6 and all(r["flags"] for r in rows)
    assert all(f["code"] == "one-option" for r in rows for f in r["flags"])
    others = [r for r in s["comparisons"]["rows"] if system not in (r["a"], r["b"])]
    assert others and not any(r["flags"] for r in others)
    # the terminal: Table 1's three cells of the system, its stability column, its rows
    lines = intent_runs["stdout"].splitlines()
    row1 = next(i for i, line in enumerate(lines) if line.lstrip("│ ").startswith("replay:"))
    assert lines[row1].count(MARK) == 3
    table2 = next(i for i, line in enumerate(lines) if "seed 004 Table 2" in line)
    cells = [line.strip("│ ").split() for line in lines[table2:]]
    gaps = [line for line, c in zip(lines[table2:], cells, strict=True) if c and c[0].isdigit()]
    assert gaps and all(line.count(MARK) == 2 for line in gaps)  # first n and random gaps
    text = " ".join(intent_runs["stdout"].split())
    assert text.count("every answer named option 1") == 1  # the text once


def test_taiwa_compare_and_the_leaderboard_carry_the_flag(intent_runs: dict[str, Any]) -> None:
    tmp = intent_runs["tmp"]
    block = compare_runs([tmp / "pair" / "alone", tmp / "pair" / "human"], all_methods())
    assert all(r["flags"] for r in block["rows"]) and len(block["flags"]) == 1
    proc = taiwa_main("compare", str(tmp / "pair" / "alone"), str(tmp / "pair" / "human"))
    assert proc.returncode == 0, proc.stderr
    assert "every answer named option 1" in " ".join(proc.stdout.split())
    from taiwa.report.leaderboard import write_leaderboard

    _, md = write_leaderboard(tmp / "pair", methods=all_methods())
    board = md.read_text(encoding="utf-8")
    mine = next(line for line in board.splitlines() if "alone" in line and "replay:" in line)
    assert mine.count(MARK) >= 4  # Table 1's three cells and the vs-human column(s)


def test_a_flag_on_one_pairs_comparison_travels_to_that_row_only() -> None:
    """da-distribution's correction flags a raw DAE comparison that the corrected DAE orders
    the other way (``across``, ``on: comparisons.dae``, the two systems): that pair's DAE row
    carries it, the other pairs' rows and the pair's other metrics do not, its text once."""
    from taiwa.benchmarks.da_distribution.corrected import ordering_flag
    from taiwa.display.comparison_table import flag_lines
    from taiwa.metrics.comparisons import ComparedMetric, build_comparisons
    from taiwa.metrics.flags import add
    from taiwa.metrics.paired import ActEntropy

    def system(raw: float, corrected: float) -> dict[str, Any]:
        est = {"value": corrected, "ci_low": corrected - 0.2, "ci_high": corrected + 0.2, "n": 90}
        return {"dae": {"value": raw}, "corrected": {"dae": est}}

    systems = {"a": system(2.6, 2.1), "b": system(2.4, 2.9), "c": system(0.1, 0.0)}
    across: dict[str, Any] = {}
    for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
        add(across, ordering_flag(systems, x, y, "comparisons.dae", named=True))
    assert [f["systems"] for f in across["flags"]] == [["a", "b"]]
    rng = np.random.default_rng(0)
    acts = ["質問", "応答", "提案", "挨拶"]
    values = {
        s: {
            "dae": {k: acts[int(rng.integers(4))] for k in range(90)},
            "len": {k: float(rng.normal()) for k in range(90)},
        }
        for s in systems
    }
    metrics = [
        ComparedMetric("dae", "DAE", "higher", "tag", "act", "statistic", ActEntropy()),
        ComparedMetric("len", "length", "higher", "score", "length"),
    ]
    block = build_comparisons(
        values, metrics, n_resamples=200, summary={"systems": systems, "across": across}
    )
    flagged = {(r["a"], r["b"], r["metric"]) for r in block["rows"] if r["flags"]}
    assert flagged == {("a", "b", "dae")}
    [line] = flag_lines(block)
    assert "a vs b: raw DAE orders a and b" in line


def test_the_judges_agreement_with_human_ranks_has_an_exact_p_and_none_over_3_systems() -> None:
    """ρ between a judge and human ranks over 3 systems is 1.00 at best and no p can go below
    1/3 (scipy's t approximation said 0); over 4 systems a perfect ρ has p = 2/4! exactly."""
    from taiwa.judges.analysis import agreement_with_humans

    for n, p in ((3, None), (4, 2 / 24)):
        systems = [f"s{k}" for k in range(n)]
        ranks = {f"i{k}": {s: float(r + 1) for r, s in enumerate(systems)} for k in range(6)}
        agree = {i: {s: 10.0 - r for s, r in per.items()} for i, per in ranks.items()}
        res = agreement_with_humans(agree, ranks, seed=0, n_resamples=50)
        assert res["rho"] == pytest.approx(1.0)
        assert res["p"] != res["p"] if p is None else res["p"] == pytest.approx(p), (n, res["p"])
