"""The chitchat method end to end through the runner: systems answering the seed 001 prompts
on the stub server, extraction counted per system, a scripted judge (single and pairwise),
human rankings, and the one-line errors for bad human-ranking files."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cli import taiwa_main
from taiwa.benchmarks import get_method
from taiwa.benchmarks.chitchat.dataset import load_tasks
from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.samples import sample_path
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import RunResult, prepare, run
from taiwa.testing.stub_server import StubState, serve

MARK = "★"
SYSTEMS = ["openai:good", "openai:plain", "openai:wrong", "human"]


def _user(body: Mapping[str, Any]) -> str:
    return str(next(m for m in body["messages"] if m["role"] == "user")["content"])


def _section(text: str, name: str) -> str:
    found = re.search(rf"\[{name}の開始\]\n(.*?)\n\[{name}の終了\]", text, re.S)
    return found.group(1) if found else ""


def _system_reply(model: str, prompt: str) -> str:
    """good: an enjoyable line (marked); plain: a dull one; wrong: speaks as someone else."""
    labels = re.findall(r"^([^\s:：]+): ", prompt.split("入力:\n", 1)[1], re.M)
    continuation = prompt.rstrip().endswith("出力:")
    text = {"good": f"{MARK}それ楽しそうですね！", "plain": "そうですか。"}.get(model)
    if model == "wrong":
        return "司会: では次の話題に移りましょう"
    if continuation:
        return f"{labels[-1]}: {text}\n{labels[0]}: ですよね"
    return str(text)


def _judge(body: Mapping[str, Any]) -> str:
    user = _user(body)
    if "システムAの応答" in user:
        a, b = (MARK in _section(user, f"システム{x}の応答") for x in "AB")
        return "判定：" + ("[[A]]" if a and not b else "[[B]]" if b and not a else "[[C]]")
    return "評価：[[9]]" if MARK in _section(user, "評価対象の応答") else "評価：[[4]]"


def _script(body: dict[str, Any]) -> str:
    if body["model"] == "judge":
        return _judge(body)
    return _system_reply(body["model"], _user(body))


@contextmanager
def _server() -> Iterator[str]:
    with serve(StubState(script=_script)) as url:
        yield url


def _run(tmp_path: Path, url: str, **options: Any) -> RunResult:
    cfg = RunConfig(
        method="chitchat",
        models=SYSTEMS,
        roles={"judge": "openai:judge"},
        options={"per_task": 2, **options},
        base_url=url,
        out=tmp_path / "run",
        cache_dir=tmp_path / "cache",
        concurrency=8,
    )
    return run(cfg, get_method(cfg.method), show_progress=False)


def test_a_judged_run_counts_extraction_and_ranks_the_systems(tmp_path: Path) -> None:
    with _server() as url:
        res = _run(tmp_path, url)
    s = res.summary
    systems = s["systems"]
    assert s["n_samples"] == 6 and s["across"]["tasks"] == dict.fromkeys(
        ["next_utterance", "next_speaker", "continuation"], 2
    )
    # 「正規表現 抜き出し成功」: the system speaking as someone else fails every item, counted
    assert systems["openai:wrong"]["extracted"]["ok"] == 0
    assert systems["openai:good"]["extracted"]["ok"] == 6 == systems["human"]["extracted"]["ok"]
    assert systems["openai:wrong"]["rougeL"]["value"] == 0.0  # failures score, not dropped
    # single: 9 for the marked reply, 4 for the plain one, the lowest for no answer
    assert systems["openai:good"]["single"]["value"] == 9.0
    assert systems["openai:plain"]["single"]["value"] == 4.0
    wrong = systems["openai:wrong"]["single"]
    assert wrong["value"] == 1.0 and wrong["missing"] == 6 and wrong["n"] == 6
    # pairwise: good beats everyone in both orders; plain vs human is a tie (no marker)
    wins = s["across"]["win_rates"]["wins"]
    assert wins["openai:good"]["openai:plain"]["value"] == 1.0
    # no answer loses by forfeit: counted apart, never as a judged win (issue 24)
    assert wins["openai:plain"]["openai:wrong"]["n"] == 0
    assert s["across"]["win_rates"]["forfeits"]["openai:plain"]["openai:wrong"] == 6
    assert systems["openai:wrong"]["pairwise_detail"]["forfeit_losses"] == 6 * 3
    wrong_flags = {(f["on"], f["code"]) for f in systems["openai:wrong"]["flags"]}
    assert ("pairwise", "no-pair-judged") in wrong_flags
    assert ("single", "all-imputed") in wrong_flags  # every rating the no-answer stand-in
    assert "all-imputed" not in {f["code"] for f in systems["openai:good"]["flags"]}
    ties = s["across"]["win_rates"]["ties"]
    assert ties["openai:plain"]["human"]["value"] == 1.0
    for r in SYSTEMS:
        for c in SYSTEMS:
            if r != c and wins[r][c]["n"]:
                total = wins[r][c]["value"] + wins[c][r]["value"] + ties[r][c]["value"]
                assert total == pytest.approx(1.0)
    q = s["across"]["judge_quality"]
    assert q["flip_rate"]["value"] == 0.0 and not q["flagged"]
    assert s["across"]["rankings"]["single"]["openai:good"] == 1
    assert s["across"]["consistency"]["single~pairwise"]["rho"] > 0.9
    # judged ratings only: wrong's two continuation ratings were given by rule (issue 39)
    continuation = s["across"]["task_difficulty"]["tasks"]["continuation"]
    assert continuation["n"] == 2 * (len(SYSTEMS) - 1) and continuation["imputed"] == 2
    assert s["status"] == "ok"
    written = {p.name for p in (tmp_path / "run").iterdir()}
    assert {"scores.jsonl", "single_judgments.jsonl", "pairwise_judgments.jsonl"} <= written
    # both orders asked for every pair of every item: 6 pairs x 2 x 6 items (less those
    # decided without the judge: wrong has no answer in any pair)
    [judge] = [c for c in s["calls"] if c["role"] == "judge"]
    assert judge["requests"] == 6 * 3 + 6 * 3 * 2  # single: 3 answering systems; pairs: 3


def _rankings(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "ranks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_human_rankings_give_mean_ranks_and_agreement(tmp_path: Path) -> None:
    tasks = load_tasks(sample_path("chitchat/tasks.jsonl"))
    items = [it.id for it in tasks if it.task == "next_utterance"]
    other = next(it.id for it in tasks if it.task == "continuation")
    order = {"openai:good": 1, "human": 2, "openai:plain": 3, "openai:wrong": 4}
    rows = [{"id": i, "annotator": a, "ranks": order} for i in items[:4] for a in ("a1", "a2")]
    rows.append({"id": other, "annotator": "a1", "ranks": order})  # an item not in the run
    ranks = _rankings(tmp_path, rows)
    with _server() as url:
        res = _run(tmp_path, url, human_ranks=str(ranks), per_task=None, tasks="next_utterance")
    h = res.summary["across"]["human"]
    assert list(h["mean_ranks"]) == list(order)  # best first
    assert h["mean_ranks"]["openai:good"]["mean_rank"]["value"] == 1.0
    assert h["rankings_for_other_items"] == 1 and any(
        "did not evaluate" in n for n in res.summary["notes"]
    )
    # single ratings 9 (good), 4 (human), 4 (plain), 1 (wrong): the tie human = plain against
    # human ranks 2 and 3 gives Spearman ρ = 0.949 (average ranks 1, 2.5, 2.5, 4 vs 1, 2, 3, 4)
    assert h["vs_human"]["single"]["rho"] == pytest.approx(0.9486833)
    assert h["vs_human"]["single"]["n"] == 4


def test_a_human_ranking_of_an_unknown_system_stops_before_any_call(tmp_path: Path) -> None:
    ranks = _rankings(
        tmp_path,
        [{"id": "x", "annotator": "a1", "ranks": {"human": 1, "openai:good": 2}},
         {"id": "y", "annotator": "a1", "ranks": {"human": 1, "gpt-9": 2}}],
    )  # fmt: skip
    cfg = RunConfig(
        method="chitchat",
        models=["openai:good", "human"],
        options={"human_ranks": str(ranks)},
        base_url="http://127.0.0.1:9/v1",
        out=tmp_path / "o",
    )
    with pytest.raises(InputError) as info:
        prepare(cfg, get_method(cfg.method))
    assert (info.value.line, info.value.field) == (2, "ranks.gpt-9")
    proc = taiwa_main(
        "run", "chitchat", "-m", "builtin:parrot", "-m", "human", "-o", f"human_ranks={ranks}",
        "--out", str(tmp_path / "o2"),
    )  # fmt: skip
    err = proc.stderr
    assert proc.returncode == 2 and "ranks.openai:good" in err, err
    assert len(err.strip().splitlines()) == 1


def test_without_a_judge_only_rouge_and_extraction(tmp_path: Path) -> None:
    res = run(
        RunConfig(
            method="chitchat",
            models=["builtin:parrot", "builtin:eliza", "human"],
            out=tmp_path / "r",
            cache_dir=tmp_path / "c",
        ),
        get_method("chitchat"),
        show_progress=False,
    )
    s = res.summary
    assert s["n_samples"] == 60 and "win_rates" not in s["across"]
    assert s["systems"]["human"]["rougeL"]["value"] == pytest.approx(1.0)
    assert set(s["across"]["rankings"]) == {"rougeL"}
    assert s["systems"]["builtin:parrot"]["extracted"]["n"] == 60


@pytest.mark.parametrize(
    ("systems", "judge", "rows"),
    [
        # rankings only for items the run did not evaluate
        (
            ["builtin:parrot", "human"],
            "builtin:parrot",
            [("zz1", {"human": 1, "builtin:parrot": 2})],
        ),
        # rankings of the run's items, but every verdict on them failed (no rating to compare)
        (["human", "builtin:eliza"], "builtin:fixed", [("", {"human": 1, "builtin:eliza": 2})]),
    ],
)
def test_judge_agreement_with_humans_over_no_item(
    tmp_path: Path, systems: list[str], judge: str, rows: list[tuple[str, dict[str, int]]]
) -> None:
    """No item both judged and ranked: agreement_with_humans got arrays without an item axis
    and the run ended in a traceback (found by the fuzzer); now the block is empty."""
    first = load_tasks(sample_path("chitchat/tasks.jsonl"))[0].id
    ranks = _rankings(
        tmp_path, [{"id": i or first, "annotator": "a1", "ranks": r} for i, r in rows]
    )
    cfg = RunConfig(
        method="chitchat",
        models=systems,
        roles={"judge": judge},
        options={"human_ranks": str(ranks), "per_task": 1, "judge_modes": "single"},
        out=tmp_path / "run",
        cache_dir=tmp_path / "cache",
    )
    res = run(cfg, get_method(cfg.method), show_progress=False)
    agreement = res.summary["across"]["human"]["judge_vs_human_items"]["single"]
    assert agreement["n_items"] == 0 and agreement["systems"] == {}


@pytest.mark.parametrize("value", ["", "~", "null"])
def test_an_empty_human_ranks_option_is_an_error(tmp_path: Path, value: str) -> None:
    """``-o human_ranks=`` (an unset variable) ran without the human evaluation, exit 0."""
    cfg = RunConfig(
        method="chitchat",
        models=["builtin:parrot", "human"],
        options={"human_ranks": value},
        out=tmp_path / "o",
    )
    with pytest.raises(TaiwaError, match="'human_ranks' of chitchat: a rankings file"):
        prepare(cfg, get_method(cfg.method))


def _five(body: dict[str, Any]) -> str:
    """A judge that rates every reply 5 and calls every pair a tie."""
    return "判定：[[C]]" if "システムAの応答" in _user(body) else "評価：[[5]]"


def test_a_forfeit_is_no_win_and_a_constant_rating_is_flagged(tmp_path: Path) -> None:
    """Issue 24: with `-m human -m builtin:parrot` the parrot never passes extraction, so no
    pair is judged: the win rate says so (not 1.00), the matrix's footnote does not claim both
    orders were judged, the flip rate is flagged as "no pair judged"; a judge that gave one
    rating to every reply is flagged; human's own row carries no flag."""
    from rich.console import Console

    from taiwa.display.tables import print_result

    cfg = RunConfig(
        method="chitchat",
        models=["human", "builtin:parrot"],
        roles={"judge": "openai:five"},
        options={"per_task": 2},
        out=tmp_path / "run",
        cache_dir=tmp_path / "cache",
    )
    with serve(StubState(script=_five)) as url:
        res = run(
            cfg.model_copy(update={"base_url": url}), get_method("chitchat"), show_progress=False
        )
    s = res.summary
    human, parrot = s["systems"]["human"], s["systems"]["builtin:parrot"]
    assert parrot["extracted"]["ok"] == 0
    assert human["pairwise"]["n"] == 0 and human["pairwise_detail"]["forfeit_wins"] == 6
    assert human["pairwise"]["value"] != human["pairwise"]["value"]  # NaN, not 1.0
    codes = {f["code"] for f in s["across"]["flags"]}
    assert codes - {"small-n"} == {"no-pair-judged", "constant-rating"}
    judged = [f["code"] for f in human["flags"] if f["code"] != "small-n"]  # n=6: all small
    assert judged == ["no-pair-judged"]  # the rate, not the system
    console = Console(record=True, width=200)
    print_result(console, res)
    out = console.export_text()
    from taiwa.benchmarks.chitchat.tables import pairwise_cell

    assert pairwise_cell(human) == "no pair judged ⚑\nforfeits +6 −0"
    assert "both orders" not in out
    assert "forfeits +6 −0" in out and "no pair judged: the judge decided no pair" in out
    assert "judge order-flip rate no pair judged (n=0 pairs)" in out
    assert "the judge gave rating 5 to 6 of 6 replies" in out
    from taiwa.benchmarks.chitchat.tables import automatic_table, judge_lines

    table = automatic_table(s)
    single = dict(zip(table.columns[0]._cells, table.columns[2]._cells, strict=True))
    assert not any(f["on"] == "single" and f["code"] != "small-n" for f in human["flags"])
    assert "⚑" in str(single["builtin:parrot"]) or single["builtin:parrot"] == "–"
    q, constant = s["across"]["judge_quality"], True
    assert [str(t) for t in judge_lines(q, constant=constant)][-1].endswith("(n=6) ⚑")


def test_a_judge_whose_every_judgment_fails_still_renders(tmp_path: Path) -> None:
    """Issue 24: `--judge builtin:fixed` reads no judgment (exit 1); the run's tables and
    `taiwa report` on it render (ρ of a constant ranking is undefined, said so), not a
    format error."""
    out, cache = tmp_path / "run", tmp_path / "c"
    systems = ["-m", "builtin:eliza", "-m", "builtin:fixed", "-m", "builtin:parrot"]
    args = ["run", "chitchat", *systems, "--judge", "builtin:fixed", "-o", "per_task=3"]
    r = taiwa_main(*args, "--out", str(out), "--cache-dir", str(cache), "-q")
    code, stdout, err = r.returncode, r.stdout, r.stderr
    assert code == 1 and "failed sample(s) exceed" in stdout, err
    assert "Traceback" not in err and "NoneType" not in stdout + err
    assert "undefined: a ranking is constant" in stdout
    r = taiwa_main("report", str(out), "--out", str(tmp_path / "r.html"))
    assert r.returncode == 0, r.stderr
    assert "undefined: a ranking is constant" in (tmp_path / "r.html").read_text(encoding="utf-8")
