"""The command line: tables on the bundled samples, one-line errors with exit code 2, --help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import taiwa, taiwa_main
from taiwa.core.samples import sample_path

GOLD = sample_path("da_response/gold.jsonl")
PRED = sample_path("da_response/pred.jsonl")
TAGS = sample_path("chitchat_da/replies.jsonl")


def test_score_wed_on_samples(tmp_path: Path) -> None:
    out = tmp_path / "wed.json"
    r = taiwa_main("score", "wed", "--pred", str(PRED), "--gold", str(GOLD), "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "WED" in r.stdout and "deletion" in r.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["summary"]["wed"]["n"] == len(data["items"]) == 60
    assert 0 < data["summary"]["wed"]["value"] < 2
    assert (
        data["summary"]["wed"]["ci_low"]
        < data["summary"]["wed"]["value"]
        < data["summary"]["wed"]["ci_high"]
    )


def test_score_wlcs_reports_one_sided_ids(tmp_path: Path) -> None:
    lines = GOLD.read_text(encoding="utf-8").splitlines()
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(lines[:10]) + "\n", encoding="utf-8")
    r = taiwa_main("score", "wlcs", "--pred", str(PRED), "--gold", str(gold))
    assert r.returncode == 0, r.stderr
    assert "50 id(s) only in --pred" in r.stderr
    assert "Weighted LCS" in r.stdout


def test_gold_against_itself_is_perfect(tmp_path: Path) -> None:
    out = tmp_path / "self.json"
    r = taiwa_main("score", "wed", "--pred", str(GOLD), "--gold", str(GOLD), "--json", str(out))
    assert r.returncode == 0, r.stderr
    items = json.loads(out.read_text(encoding="utf-8"))["items"]
    assert all(it["wed"] == 0 and it["wlcs"] == pytest.approx(1.0) for it in items)


def test_score_dae_and_dami(tmp_path: Path) -> None:
    out = tmp_path / "dae.json"
    r = taiwa_main("score", "dae", str(TAGS), "--json", str(out))
    assert r.returncode == 0, r.stderr
    summary = json.loads(out.read_text(encoding="utf-8"))["summary"]
    assert summary["parrot"]["dae"]["value"] == 0.0
    assert summary["human"]["dae"]["value"] > summary["template"]["dae"]["value"] > 0
    r = taiwa_main("score", "dami", str(TAGS), "--lift")
    assert r.returncode == 0, r.stderr
    assert "DAMI" in r.stdout and "transition lift: human" in r.stdout


def test_score_rouge() -> None:
    r = taiwa_main(
        "score",
        "rouge",
        "--pred",
        str(sample_path("rouge/pred.jsonl")),
        "--ref",
        str(sample_path("rouge/ref.jsonl")),
    )
    assert r.returncode == 0, r.stderr
    assert "ROUGE-L" in r.stdout


def test_malformed_line_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        GOLD.read_text(encoding="utf-8").splitlines()[0] + "\n{not json\n", encoding="utf-8"
    )
    r = taiwa("score", "wed", "--pred", str(bad), "--gold", str(GOLD))
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0
    assert f"{bad}:2:" in r.stderr and "Traceback" not in r.stderr
    r = taiwa("--debug", "score", "wed", "--pred", str(bad), "--gold", str(GOLD))
    assert r.returncode != 0 and "Traceback" in r.stderr


def test_unknown_act_names_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "dr001", "steps": [{"act": "Banter", "importance": 1}]}\n', encoding="utf-8"
    )
    r = taiwa_main("score", "wed", "--pred", str(bad), "--gold", str(GOLD))
    assert r.returncode == 2
    assert "bad.jsonl:1: field 'steps[0].act': expected one of the assistant7 acts" in r.stderr


@pytest.mark.parametrize(
    "cmd",
    [
        [],
        ["score"],
        ["score", "wed"],
        ["score", "wlcs"],
        ["score", "dae"],
        ["score", "dami"],
        ["score", "rouge"],
        ["demo"],
        ["build"],
        ["build", "da-response"],
        ["build", "cooccurrence"],
        ["build", "calibrate-cohesion"],
        ["run"],
        ["report"],
        ["leaderboard"],
    ],
)
def test_help_everywhere(cmd: list[str]) -> None:
    r = taiwa_main(*cmd, "--help")
    assert r.returncode == 0
    assert "Usage" in r.stdout and len(r.stdout) > 200


def test_usage_error_exits_2() -> None:
    r = taiwa("score", "wed", "--gold", str(GOLD))
    assert r.returncode == 2 and "--pred" in r.stderr


@pytest.mark.slow  # the demo LLM on every method (taiwa demo)
@pytest.mark.timeout(3600)  # about 4 min of one core: over 900 s on a machine at load 7
def test_demo_prints_tables(tmp_path: Path) -> None:
    r = taiwa("demo", "--out", str(tmp_path), timeout=3600)
    assert r.returncode == 0, r.stderr
    titles = ("da-response", "da-distribution", "ROUGE", "Table 1", "Representative examples")
    for title in (*titles, "cohesion", "Pearson r"):
        assert title in r.stdout
    assert (tmp_path / "metrics" / "da_sequence.json").exists()
    run_dir = tmp_path / "da-response" / "demo"
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary["systems"]["demo"]["n"] == 12 and summary["status"] == "ok"
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8"))
    assert config["roles"] == {"annotator": "offline"}
    assert (tmp_path / "cohesion" / "summary.json").exists()
    # the demo ends with the report of every run it wrote
    report = tmp_path / "report.html"
    assert f"Report (open it in a browser): {report}" in " ".join(r.stdout.split())
    page = report.read_text(encoding="utf-8")
    for method in ("da-response", "chitchat", "da-distribution", "cohesion", "intent"):
        assert f'data-method="{method}"' in page


@pytest.mark.parametrize("metric", ["wed", "wlcs"])
@pytest.mark.parametrize("bad", [1, 2])
def test_renormalised_sequences_are_counted_once(tmp_path: Path, metric: str, bad: int) -> None:
    """Issue 24: one sequence whose importances do not sum to 1 printed "2 sequence(s)" (WED
    and WLCS each warned); each sequence now counts once."""
    rows = [json.loads(line) for line in PRED.read_text(encoding="utf-8").splitlines()]
    for row in rows[:bad]:
        for step in row["steps"]:
            step["importance"] *= 0.5
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    r = taiwa_main("score", metric, "--pred", str(pred), "--gold", str(GOLD))
    assert r.returncode == 0, r.stderr
    assert f"note: {bad} sequence(s) had importances not summing to 1" in r.stderr


def test_score_dami_notes_a_biased_estimate_at_small_n(tmp_path: Path) -> None:
    """Issue 24: DAMI 1.922 at n=5 gave no note (its jackknife bias was negative); a plug-in
    estimate under its floor of n, or with a noticeable bias of either sign, is noted."""
    rows = [json.loads(line) for line in TAGS.read_text(encoding="utf-8").splitlines()]
    small = [r for r in rows if r["system"] == "human"][:5]
    path = tmp_path / "small.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in small), "utf-8")
    r = taiwa_main("score", "dami", str(path))
    assert r.returncode == 0, r.stderr
    assert "human dami: n=5 < 50" in " ".join(r.stderr.split())
    full = taiwa_main("score", "dami", str(TAGS))
    assert "human dami:" not in " ".join(full.stderr.split())


def test_boolean_flags_are_shown_as_flags() -> None:
    """Issue 24 point 9: `--overwrite` takes no value, so help shows no `<bool>` beside it."""
    for args in (["run", "--help"], ["score", "dami", "--help"], ["da", "train", "--help"]):
        r = taiwa_main(*args)
        assert r.returncode == 0, r.stderr
        assert "<bool>" not in r.stdout, args
    r = taiwa_main("run", "--help")
    line = next(x for x in r.stdout.splitlines() if "--overwrite" in x)
    assert "Replace a run directory" in line
    assert "<int>" in next(x for x in r.stdout.splitlines() if "--limit" in x)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--limit", "-1"], "--limit: input should be greater than or equal to 1 (got -1)"),
        (["--max-tokens", "0"], "--max-tokens: input should be"),
        (["--concurrency", "0"], "--concurrency: input should be"),
        (["--retry-window", "-1"], "--retry-window: input should be"),
        (["-o", "distance=0"], "option 'distance' of cohesion (-o distance):"),
        (["-o", "nosuch=1"], "cohesion has no option 'nosuch' (-o nosuch)"),
        (["--input-mode", "audio"], "cohesion has no option 'input_mode' (--input-mode)"),
    ],
)
def test_errors_name_the_flag_typed(args: list[str], message: str) -> None:
    """Issue 24 point 9: a bad value names the flag the user typed, not a config field."""
    r = taiwa_main("run", "cohesion", *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr
    assert "field '" not in r.stderr and "Traceback" not in r.stderr


def test_errors_name_the_role_flag_or_the_file_field(tmp_path: Path) -> None:
    r = taiwa_main("run", "chitchat", "-m", "builtin:eliza", "--judge", "nope:x")
    assert r.returncode == 2 and "error: --judge: bad model spec 'nope:x'" in r.stderr
    r = taiwa_main("run", "chitchat", "-m", "nope:x")
    assert r.returncode == 2 and "error: --model: bad model spec 'nope:x'" in r.stderr
    cfg = tmp_path / "run.yaml"
    cfg.write_text("method: cohesion\nlimit: 0\noptions:\n  distance: 0\n", encoding="utf-8")
    r = taiwa_main("run", "--config", str(cfg))
    assert r.returncode == 2 and f"{cfg}: field 'limit'" in r.stderr
    r = taiwa_main("run", "--config", str(cfg), "--limit", "3")
    assert r.returncode == 2 and f"({cfg}: field 'options.distance')" in r.stderr
    r = taiwa_main("run", "--config", str(cfg), "--limit", "3", "-o", "distance=-1")
    assert r.returncode == 2 and "(-o distance)" in r.stderr
    r = taiwa_main(
        "build", "cooccurrence", str(cfg), "--out", str(tmp_path / "p.parquet"), "--window", "0"
    )
    assert r.returncode == 2 and "--window: " in r.stderr


def test_version_is_the_installed_one() -> None:
    """``taiwa --version`` prints the version written in ``taiwa/_version.py``, which is the
    one pip installed (``pyproject.toml`` reads it from there): one place, and no metadata
    lookup when taiwa is imported."""
    from importlib.metadata import version

    import taiwa
    from cli import taiwa as taiwa_command

    assert taiwa.__version__ == version("taiwa")
    res = taiwa_command("--version")
    assert res.returncode == 0
    assert res.stdout.strip() == f"taiwa {taiwa.__version__}"


def test_command_lists_show_each_summary_unbroken() -> None:
    """In the list of commands, a command's summary is its docstring's first paragraph as
    one line: typer's rich mode kept the docstring's own line breaks there, so summaries
    showed broken mid-sentence. In a terminal wide enough, each fits on one line."""
    import os
    import subprocess
    import sys

    import typer

    from taiwa.cli.app import app

    groups: list[tuple[list[str], typer.Typer]] = [([], app)]
    for g in app.registered_groups:
        if g.typer_instance is not None:
            groups.append(([g.name or ""], g.typer_instance))
    for prefix, group in groups:
        shown = subprocess.run(
            [sys.executable, "-m", "taiwa", *prefix, "--help"],
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "700"},
        ).stdout
        for info in group.registered_commands:
            summary = " ".join((info.help or info.callback.__doc__ or "").split("\n\n")[0].split())
            assert any(summary in line for line in shown.splitlines()), (prefix, info.name)


def test_score_marks_estimates_from_a_handful_of_items(tmp_path: Path) -> None:
    """`taiwa score` on 3 pairs: each CI cell is marked ⚑ and a note says why (fewer than 10
    items); on the 40 bundled pairs nothing is marked."""
    pred, ref = sample_path("rouge/pred.jsonl"), sample_path("rouge/ref.jsonl")
    few_pred, few_ref = tmp_path / "pred.jsonl", tmp_path / "ref.jsonl"
    for src, dst in ((pred, few_pred), (ref, few_ref)):
        dst.write_text("".join(src.read_text("utf-8").splitlines(True)[:3]), "utf-8")
    r = taiwa_main("score", "rouge", "--pred", str(few_pred), "--ref", str(few_ref))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("⚑") == 3
    assert "rouge1, rouge2, rougeL: n=3, below 10" in " ".join(r.stderr.split())
    r = taiwa_main("score", "rouge", "--pred", str(pred), "--ref", str(ref))
    assert r.returncode == 0 and "⚑" not in r.stdout + r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--help"],
        ["--debug", "run", "--help"],
        ["run"],
        ["run", "intent", "--no-such-option"],
        ["validate", "tagger", "--help"],
        ["score", "--help"],
        ["score", "rouge"],
        ["--help"],
        ["rn", "intent"],
        [],
    ],
)
def test_the_command_asked_alone_behaves_as_the_whole_app(args: list[str]) -> None:
    """`taiwa` builds only the command or group a call names (typer evaluates every command's
    signature when the app is called: issue 29, exec to first request); what a user sees is
    the same, usage errors, help and suggestions included."""
    from typer.testing import CliRunner

    from taiwa.cli.app import app
    from taiwa.cli.help import only_the_command_asked

    pruned = only_the_command_asked(app, args)
    named = next((a for a in args if not a.startswith("-")), None) in {"run", "validate", "score"}
    assert (pruned is not app) == named
    assert len(pruned.registered_commands) + len(pruned.registered_groups) == (
        1 if named else len(app.registered_commands) + len(app.registered_groups)
    )
    runner = CliRunner()
    whole = runner.invoke(app, args, prog_name="taiwa", env={"COLUMNS": "100"})
    alone = runner.invoke(pruned, args, prog_name="taiwa", env={"COLUMNS": "100"})
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["run", "prompts", "--limt", "3"],
         "error: no such option --limt; did you mean --limit? (taiwa run --help)"),
        (["validate", "tagger", "--tager", "x"],
         "error: no such option --tager; did you mean --tagger? (taiwa validate tagger --help)"),
        (["run", "prompts", "--limit", "x"], "error: Invalid value for '--limit': "),
        (["runn"], "error: No such command 'runn'. Did you mean 'run'? (taiwa --help)"),
    ],
)  # fmt: skip
def test_a_misspelt_flag_is_one_line_with_the_closest_flag(args: list[str], line: str) -> None:
    """Issue 42: a usage error is one line on stderr (not typer's five-line box), naming the
    closest flag and where the help is; the exit code stays 2."""
    r = taiwa(*args)
    assert r.returncode == 2 and r.stdout == "", r
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(line), r.stderr
    assert "╭" not in r.stderr and "Usage:" not in r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["run", "da-distribution", "-m", "human", "--tagger", "runs/my-bert"],
        ["validate", "tagger", "--tagger", "runs/my-bert"],
    ],
)
def test_a_tagger_directory_that_is_not_there_says_so(args: list[str], tmp_path: Path) -> None:
    """Issue 42: ``--tagger runs/my-bert`` (a path, not there) is "no such directory", not
    "bad model spec"."""
    missing = str(tmp_path / "runs" / "my-bert")
    r = taiwa_main(*[missing if a == "runs/my-bert" else a for a in args])
    assert r.returncode == 2 and "no such directory" in r.stderr, r.stderr
    assert "bad model spec" not in r.stderr and r.stderr.count("\n") == 1
