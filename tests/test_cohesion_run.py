"""``taiwa run cohesion`` on the bundled labelled dialogues, and the threshold calibration."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from taiwa.cohesion_eval import load_dialogues
from taiwa.cohesion_run import run_cohesion
from taiwa.resources.calibration import best, calibrate, splice
from taiwa.resources.vectors import DEFAULT_THRESHOLD
from taiwa.samples import sample_path

DIALOGUES = sample_path("cohesion/dialogues.jsonl")


def test_run_directory_rows_and_summary(tmp_path: Path) -> None:
    res = run_cohesion(None, out=tmp_path, show_progress=False)
    rows = [
        json.loads(x) for x in (tmp_path / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(rows) == sum(len(d.utterances) for d in load_dialogues(DIALOGUES))
    assert {"dialogue_id", "index", "role", "cohesive", "conditions", "pairs"} <= set(rows[0])
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert set(summary["systems"]) == {"human", "eliza", "interviewer"}
    human = summary["systems"]["human"]
    assert human["cohesive_share"]["n"] == 74 and human["precision"]["value"] > 0.9
    precision = human["precision"]
    assert precision["ci_low"] <= precision["value"] <= precision["ci_high"] <= 1.0
    assert summary["correlation_all"]["n"] == 30
    fired = [p for r in rows for p in r["pairs"]]
    assert {p["kind"] for p in fired} == {"reiteration", "association"}
    assert res.summary == summary


def test_strict_mode_counts_fewer_cohesive(tmp_path: Path) -> None:
    loose = run_cohesion(DIALOGUES, out=tmp_path / "a", show_progress=False).summary
    strict = run_cohesion(DIALOGUES, out=tmp_path / "b", strict=True, show_progress=False).summary
    for system in ("human", "eliza", "interviewer"):
        assert (
            strict["systems"][system]["cohesive_share"]["value"]
            < loose["systems"][system]["cohesive_share"]["value"]
        )


def test_splice_keeps_humans_and_replaces_agents() -> None:
    dialogues = load_dialogues(DIALOGUES)[:5]
    spliced = splice(dialogues, seed=1)
    for real, fake in zip(dialogues, spliced, strict=True):
        assert [u.role for u in real.utterances] == [u.role for u in fake.utterances]
        assert all(
            a == b
            for a, b in zip(real.utterances, fake.utterances, strict=True)
            if a.role == "human"
        )
        assert any(
            a != b
            for a, b in zip(real.utterances, fake.utterances, strict=True)
            if a.role == "agent"
        )


def test_default_threshold_is_the_calibrated_one() -> None:
    points = calibrate(load_dialogues(DIALOGUES))
    assert best(points).threshold == DEFAULT_THRESHOLD
    assert best(points).separation > 0.9 > points[0].separation


def test_cli_cohesion_and_bad_resource(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "taiwa", "run", "cohesion", "--out", str(tmp_path), "-q"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "interviewer" in r.stdout and "Pearson" in r.stdout
    r = subprocess.run(
        [*cmd, "--resource", "vectors:7"], capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 2 and "vectors:THRESHOLD" in r.stderr


def test_mined_pair_table_as_cohesion_resource(tmp_path: Path) -> None:
    """``taiwa build cooccurrence`` → ``taiwa run cohesion --resource TABLE`` end to end."""
    corpus = tmp_path / "corpus.txt"
    texts = [u.text for d in load_dialogues(DIALOGUES) for u in d.utterances]
    corpus.write_text("\n".join(texts) + "\n", encoding="utf-8")
    table = tmp_path / "pairs.parquet"
    taiwa = [sys.executable, "-m", "taiwa"]
    r = subprocess.run(
        [*taiwa, "build", "cooccurrence", str(corpus), "--out", str(table), "--llr-threshold", "3"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    meta = json.loads((tmp_path / "pairs.parquet.meta.json").read_text(encoding="utf-8"))
    assert meta["F"] == len(texts) and meta["config"]["llr_threshold"] == 3.0
    assert meta["counts"]["pairs_out"] > 20

    res = run_cohesion(None, resource=str(table), strict=True, out=tmp_path / "run")
    rows = [json.loads(x) for x in (tmp_path / "run" / "scores.jsonl").read_text().splitlines()]
    fired = [p for row in rows for p in row["pairs"]]
    assert fired, "a table mined from these very dialogues must explain some utterances"
    assert all(p["w1"] != p["w2"] and p["kind"] != "reiteration" for p in fired)
    assert res.summary["resource"].startswith("llr-pairs:")

    r = subprocess.run(
        [*taiwa, "build", "cooccurrence", str(corpus), "--out", str(table), "--kind", "ngrams"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2 and "sentences" in r.stderr and "Traceback" not in r.stderr
