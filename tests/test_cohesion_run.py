"""The cohesion method (seed 003) through the runner: run directory, options, CLI, calibration."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli import taiwa_main
from taiwa.benchmarks import get_method
from taiwa.benchmarks.cohesion.calibration import best, calibrate, splice
from taiwa.benchmarks.cohesion.dataset import load_dialogues
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import RunResult, run
from taiwa.resources.vectors import DEFAULT_THRESHOLD

DIALOGUES = sample_path("cohesion/dialogues.jsonl")


def _run(out: Path, data: Path | None = None, **options: Any) -> RunResult:
    cfg = RunConfig(method="cohesion", data=data, out=out, options=options)
    return run(cfg, get_method(cfg.method), show_progress=False)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_run_directory_rows_and_summary(tmp_path: Path) -> None:
    res = _run(tmp_path)
    rows = _rows(tmp_path / "scores.jsonl")
    dialogues = load_dialogues(DIALOGUES)
    assert [r["id"] for r in rows] == [d.id for d in dialogues]
    utt = rows[0]["utterances"]
    assert len(utt) == len(dialogues[0].utterances)
    assert {"index", "role", "cohesive", "conditions", "pairs"} <= set(utt[0])
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert set(summary["systems"]) == {"human", "eliza", "interviewer"}
    human = summary["systems"]["human"]
    assert human["cohesive_share"]["n"] == 74 and human["precision"]["value"] > 0.9
    assert human["dialogue_mean"]["n"] == 10 and set(human["conditions"]) == {"a", "b", "c"}
    precision = human["precision"]
    assert precision["ci_low"] <= precision["value"] <= precision["ci_high"] <= 1.0
    across = summary["across"]
    assert across["correlation_all"]["n"] == 30
    assert across["correlation_agents_only"]["n"] == 20
    assert across["correlation_agents_only"]["excluded_systems"] == ["human"]
    fired = [p for r in rows for u in r["utterances"] for p in u["pairs"]]
    assert {p["kind"] for p in fired} == {"reiteration", "association"}
    assert res.summary == summary
    assert summary["seconds"]["aggregate"] > 0 and summary["calls"] == []
    config = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    for key in ("config", "taiwa_version", "git_commit", "seeds", "prompt_sha256", "input_sha256"):
        assert key in config
    assert config["options"]["distance"] == 3 and str(DIALOGUES) in config["input_sha256"]


def test_conditions_option_selects_what_counts(tmp_path: Path) -> None:
    every = _run(tmp_path / "abc").summary["systems"]
    ab = _run(tmp_path / "ab", conditions="a,b").summary["systems"]
    for system in every:
        assert ab[system]["cohesive_share"]["value"] <= every[system]["cohesive_share"]["value"]
        assert ab[system]["conditions"] == every[system]["conditions"]
    rows = _rows(tmp_path / "ab" / "scores.jsonl")
    only_c = [u for r in rows for u in r["utterances"] if u["conditions"] == ["c"]]
    assert only_c and not any(u["cohesive"] for u in only_c)


def test_file_without_agent_utterances(tmp_path: Path) -> None:
    lines = DIALOGUES.read_text(encoding="utf-8").splitlines()
    one = json.loads(lines[0])
    for u in one["utterances"]:
        u["role"] = "human"
    no_agent = tmp_path / "no_agent.jsonl"
    no_agent.write_text(json.dumps(one, ensure_ascii=False) + "\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "taiwa", "run", "cohesion", "--data", str(no_agent), "-q"]
    r = subprocess.run([*cmd, "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 2 and "no agent utterance" in r.stderr and "Traceback" not in r.stderr
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps(one, ensure_ascii=False) + "\n" + lines[1] + "\n", encoding="utf-8")
    res = _run(tmp_path / "m", mixed)
    assert any("1 dialogue(s) have no agent utterance" in n for n in res.summary["notes"])


def test_strict_mode_counts_fewer_cohesive(tmp_path: Path) -> None:
    loose = _run(tmp_path / "a").summary
    strict = _run(tmp_path / "b", strict=True).summary
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


def test_cli_cohesion_options_and_errors(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "taiwa", "run", "cohesion", "--out", str(tmp_path), "-q"]
    env = {**os.environ, "COLUMNS": "200"}
    r = subprocess.run(
        [*cmd, "-o", "resource=vectors:0.7", "-o", "distance=2"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert "interviewer" in r.stdout and "Pearson" in r.stdout
    config = json.loads((tmp_path / "config.json").read_text(encoding="utf-8"))
    assert config["options"]["distance"] == 2 and config["options"]["resource"] == "vectors:0.7"
    for extra, message in (
        (["-o", "resource=vectors:7"], "vectors:THRESHOLD"),
        (["-o", "distance=0"], "option 'distance' of cohesion"),
        (["-o", "conditions=a,d"], "option 'conditions.1' of cohesion"),
        (["-o", "nosuch=1"], "cohesion has no option 'nosuch'"),
        (["-o", "distance"], "-o expects KEY=VALUE"),
        (["--cache-dir", str(tmp_path / "c")], "calls no model"),
        (["-m", "builtin:parrot"], "cohesion takes no --model"),
        (["--annotator", "offline"], "cohesion has no role 'annotator'"),
    ):
        r = taiwa_main(*cmd[3:], *extra)  # the real command's run above; its errors in-process
        assert r.returncode == 2 and message in r.stderr, (extra, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


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

    res = _run(tmp_path / "run", resource=str(table), strict=True)
    rows = _rows(tmp_path / "run" / "scores.jsonl")
    fired = [p for row in rows for u in row["utterances"] for p in u["pairs"]]
    assert fired, "a table mined from these very dialogues must explain some utterances"
    assert all(p["w1"] != p["w2"] and p["kind"] != "reiteration" for p in fired)
    assert res.summary["across"]["resource"].startswith("llr-pairs:")
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert str(table) in config["input_sha256"]  # the resource file is hashed too

    r = subprocess.run(
        [*taiwa, "build", "cooccurrence", str(corpus), "--out", str(table), "--kind", "ngrams"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 2 and "sentences" in r.stderr and "Traceback" not in r.stderr
