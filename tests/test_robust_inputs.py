"""Issue 25: the last bad inputs give one line and exit 2, never a traceback, a hang or a
silent exit 0: wrong-typed values at every level of a run's ``summary.json`` and damaged
stage files, broken model files, ``model: 5`` and keys given twice in run.yaml, a deeply
nested or huge-count ``build.json``, page-long ids, FIFOs and empty WAVs as audio, repeated
ids, blank token files; and a server echoing part of the key."""

from __future__ import annotations

import copy
import json
import os
import shutil
import struct
from pathlib import Path
from typing import Any

import pytest
from fuzz_random import json_paths

from taiwa.benchmarks import get_method
from taiwa.cli.app import main
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run

PROMPTS = [
    {"id": "p1", "prompt": "明日の天気はどうなりそうですか。"},
    {"id": "p2", "prompt": "近所でおいしいパン屋を知っていますか。", "reference": "駅前の店です。"},
    {"id": "p3", "prompt": "週末は何をして過ごしましたか。"},
]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """``taiwa ARGV`` in this process: (exit code, stderr); a traceback fails the test."""
    capsys.readouterr()
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return code, capsys.readouterr().err


def _one_error(code: int, err: str, *names: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error:"), (code, err)
    for name in names:
        assert name in lines[0], (name, err)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("robust")
    data = _jsonl(root / "prompts.jsonl", PROMPTS)
    out = root / "run"
    cfg = RunConfig(method="prompts", models=["builtin:parrot"], data=data, out=out, no_cache=True)
    run(cfg, get_method("prompts"), show_progress=False)
    return out


def _damaged(finished_run: Path, tmp_path: Path, edit: Any) -> Path:
    copy_dir = tmp_path / "damaged"
    shutil.copytree(finished_run, copy_dir)
    summary = json.loads((copy_dir / "summary.json").read_text("utf-8"))
    edit(summary)
    (copy_dir / "summary.json").write_text(json.dumps(summary, indent=2), "utf-8")
    return copy_dir


def _put(path: tuple[Any, ...], value: Any) -> Any:
    def edit(summary: dict[str, Any]) -> None:
        obj = summary
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value

    return edit


WRONG = [[], "x", 5, None, {}, float("nan"), True]


def _finite_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and v == v


def test_wrong_typed_summary_values_at_every_level(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every field of a real summary set to each wrong type: never a traceback; the numbers
    (NaN, null, an object, a string where a number was) are refused naming summary.json."""
    summary = json.loads((finished_run / "summary.json").read_text("utf-8"))
    target = tmp_path / "damaged"
    shutil.copytree(finished_run, target)
    refused = 0
    for k, path in enumerate(json_paths(summary, width=1)):
        original: Any = summary
        for key in path:
            original = original[key]
        for value in (WRONG[k % len(WRONG)], WRONG[(k + 3) % len(WRONG)]):  # two per field
            if type(value) is type(original) and not isinstance(value, float):
                continue
            if _finite_number(value) and _finite_number(original):
                continue  # another number is no wrong type
            edited = copy.deepcopy(summary)
            _put(path, value)(edited)
            (target / "summary.json").write_text(json.dumps(edited, indent=2), "utf-8")
            code, err = _cli(capsys, "report", str(target), "--out", str(tmp_path / "r.html"))
            number = isinstance(original, int | float) and not isinstance(original, bool)
            if number and path[-1] in ("value", "n", "ci_low", "ci_high", "requests"):
                assert code == 2, (path, value)
            assert code in (0, 2), (path, value, err)
            if code == 2:
                _one_error(code, err, "summary.json")
                refused += 1
    assert refused > 20


def test_calls_a_list_of_strings_and_a_system_block_a_string(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for path, value, field in [
        (("calls", 0), "x", "calls.0"),
        (("systems", "builtin:parrot"), "x", "systems.builtin:parrot"),
        (("calls", 0, "seconds"), "fast", "calls.0.seconds"),
        (("systems",), {}, "systems"),
    ]:
        target = _damaged(finished_run, tmp_path / field, _put(path, value))
        code, err = _cli(capsys, "report", str(target), "--out", str(tmp_path / "r.html"))
        _one_error(code, err, "summary.json", field)
        code, err = _cli(capsys, "leaderboard", str(target))
        _one_error(code, err, "summary.json", field)


def test_unknown_extra_blocks_are_accepted(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def edit(summary: dict[str, Any]) -> None:
        summary["a_later_block"] = {"rows": [{"a": "x", "b": "y", "difference": 0.1}]}
        summary["calls"][0]["tokens_in"] = 12

    target = _damaged(finished_run, tmp_path, edit)
    code, err = _cli(capsys, "report", str(target), "--out", str(tmp_path / "r.html"))
    assert code == 0, err


@pytest.fixture(scope="module")
def compared_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-system run: its summary has a ``comparisons`` block."""
    root = tmp_path_factory.mktemp("compared")
    data = _jsonl(root / "prompts.jsonl", PROMPTS)
    out = root / "run"
    models = ["builtin:parrot", "builtin:fixed"]
    cfg = RunConfig(method="prompts", models=models, data=data, out=out, no_cache=True)
    run(cfg, get_method("prompts"), show_progress=False)
    return out


def test_damaged_comparisons_block_is_one_located_line(
    compared_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 after issue 27: the ``comparisons`` block's table and forest plot read fields
    of fixed types; a damaged one names the field, as the rest of the summary does."""
    summary = json.loads((compared_run / "summary.json").read_text("utf-8"))
    assert summary["comparisons"]["rows"], "the fixture must have compared something"
    cases = [
        (("comparisons",), [1, 2], "comparisons"),
        (("comparisons", "rows"), "x", "comparisons.rows"),
        (("comparisons", "rows", 0), 5, "comparisons.rows.0"),
        (("comparisons", "rows", 0, "difference"), 5, "comparisons.rows.0.difference"),
        (("comparisons", "rows", 0, "significant"), "yes", "comparisons.rows.0.significant"),
        (("comparisons", "rows", 0, "mdd"), "x", "comparisons.rows.0.mdd"),
        (("comparisons", "rows", 0, "a"), [1], "comparisons.rows.0.a"),
        (("comparisons", "alpha"), "x", "comparisons.alpha"),
    ]
    for path, value, field in cases:
        target = _damaged(compared_run, tmp_path / field, _put(path, value))
        code, err = _cli(capsys, "report", str(target), "--out", str(tmp_path / "r.html"))
        _one_error(code, err, "summary.json", f"'{field}'")

    def drop_label(s: dict[str, Any]) -> None:
        del s["comparisons"]["rows"][0]["label"]

    target = _damaged(compared_run, tmp_path / "no-label", drop_label)
    code, err = _cli(capsys, "report", str(target), "--out", str(tmp_path / "r.html"))
    _one_error(code, err, "summary.json", "comparisons.rows.0.label", "present")
    code, err = _cli(capsys, "report", str(compared_run), "--out", str(tmp_path / "ok.html"))
    assert code == 0, err


def test_damaged_stage_file_is_refused(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for k, damage in enumerate(("NaN", '"x"', "{}", "-Infinity")):
        target = tmp_path / f"stage-{k}"
        shutil.copytree(finished_run, target)
        scores = target / "scores.jsonl"
        lines = scores.read_text("utf-8").splitlines()
        row = json.loads(lines[1])
        row["n"] = "__X__"
        lines[1] = json.dumps(row).replace('"__X__"', damage)
        scores.write_text("\n".join(lines) + "\n", "utf-8")
        code, err = _cli(capsys, "report", str(target), "--out", str(tmp_path / "r.html"))
        _one_error(code, err, "scores.jsonl:2")


def test_run_yaml_model_five_and_keys_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    five = tmp_path / "five.yaml"
    five.write_text("method: prompts\nmodel: 5\n", "utf-8")
    code, err = _cli(capsys, "run", "--config", str(five), "--out", str(tmp_path / "o1"))
    _one_error(code, err, "five.yaml", "models")
    twice = tmp_path / "twice.yaml"
    twice.write_text("method: prompts\nmodel: builtin:parrot\nmodel: builtin:eliza\n", "utf-8")
    code, err = _cli(capsys, "run", "--config", str(twice), "--out", str(tmp_path / "o2"))
    _one_error(code, err, "twice.yaml:3", "'model'", "line 2")


def test_long_ids_are_refused_at_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long_id = "x" * 100_000
    pred = _jsonl(tmp_path / "pred.jsonl", [{"id": long_id, "text": "こんにちは"}])
    code, err = _cli(capsys, "score", "rouge", "--pred", str(pred), "--ref", str(pred))
    _one_error(code, err, "pred.jsonl:1", "'id'", "1,000")
    assert len(err) < 500
    steps = [{"act": "質問", "importance": 1.0}]
    seq = _jsonl(tmp_path / "seq.jsonl", [{"id": long_id, "steps": steps}])
    for metric in ("wed", "wlcs"):
        code, err = _cli(capsys, "score", metric, "--pred", str(seq), "--gold", str(seq))
        assert code == 2 and len(err) < 500, err


def _wav_header(frames: int) -> bytes:
    data = b"\x00\x00" * frames
    fmt = struct.pack("<IHHIIHH", 16, 1, 1, 24000, 48000, 2, 16)
    body = b"WAVE" + b"fmt " + fmt + b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_audio_parts_checked_before_any_model_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo.wav"
    os.mkfifo(fifo)
    empty = tmp_path / "empty.wav"
    empty.write_bytes(_wav_header(0))
    for wav, why in ((fifo, "not a file"), (empty, "no samples")):
        part = {"type": "audio", "audio_path": str(wav)}
        data = _jsonl(
            tmp_path / f"{wav.stem}.jsonl",
            [{"id": "a", "messages": [{"role": "user", "content": [part]}]}],
        )
        out = tmp_path / f"out-{wav.stem}"
        code, err = _cli(
            capsys, "run", "prompts", "-m", "builtin:parrot", "--data", str(data), "--out", str(out)
        )
        _one_error(code, err, f"{wav.stem}.jsonl:1", "audio_path", why)


def test_repeated_or_blank_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    row = {"id": "a", "context": "こんにちは", "reply": "どうも", "act": "あいさつ"}
    for rows, name in (([row, row], "twice"), ([{**row, "id": " "}], "blank")):
        data = _jsonl(tmp_path / f"{name}.jsonl", rows)
        code, err = _cli(capsys, "validate", "tagger", "--data", str(data))
        _one_error(code, err, f"{name}.jsonl", "'id'")
    item = {"id": "d1", "input": {"text": "タイマーを三分でお願い"}}
    data = _jsonl(tmp_path / "audio.jsonl", [item, item])
    code, err = _cli(capsys, "build", "audio", "--data", str(data), "--out", str(tmp_path / "a"))
    _one_error(code, err, "audio.jsonl:2", "'id'", "line 1")


def test_cooccurrence_on_blank_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text("\n   \n\n", "utf-8")
    out = tmp_path / "pairs.parquet"
    code, err = _cli(
        capsys, "build", "cooccurrence", str(blank), "--kind", "tokens", "--out", str(out)
    )
    _one_error(code, err, "blank.txt")
    assert not out.exists()


def test_broken_model_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    magic = tmp_path / "magic.gguf"
    magic.write_bytes(b"GGUF")
    broken = tmp_path / "hf"
    broken.mkdir()
    (broken / "config.json").write_text("{not json", "utf-8")
    for spec, name in ((f"gguf:{magic}", "magic.gguf"), (f"hf:{broken}", str(broken))):
        out = tmp_path / f"out-{len(name)}"
        code, err = _cli(capsys, "run", "prompts", "-m", spec, "--out", str(out), "--no-cache")
        _one_error(code, err, name, "expected a")


def test_key_fragments_are_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    from taiwa.core.redact import redact

    key = "sk-Zq81xLmP04vRtY6nHs3K"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    said = "Incorrect API key provided: sk-Zq8**************Hs3K; ends with vRtY6nHs3K"
    shown = redact(said)
    assert "sk-Zq8" not in shown and "vRtY6n" not in shown and "Hs3K" in shown, shown
    assert redact("no key in this message at all") == "no key in this message at all"
    for k in range(len(key) - 5):
        assert key[k : k + 6] not in redact(f"echo {key[k : k + 6]} end")


def test_summary_schema_keeps_real_summaries(finished_run: Path) -> None:
    from taiwa.harness.summary_schema import check_summary

    text = (finished_run / "summary.json").read_text("utf-8")
    summary = json.loads(text)
    check_summary(finished_run / "summary.json", copy.deepcopy(summary), text)
