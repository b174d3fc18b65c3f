"""The shared LLM judge (``taiwa.judges``): verdict parsing, the swap-and-tie rule, repair
rounds, missing answers, the analysis functions, and both stages run through the real runner
against a scripted judge on the stub HTTP server."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from taiwa.benchmarks.prompts import METHOD as PROMPTS_METHOD
from taiwa.benchmarks.prompts.dataset import PromptSample
from taiwa.harness.config import RunConfig
from taiwa.harness.demo_spec import Demo
from taiwa.harness.method import Results, Role, Setup, Summary, Upstream
from taiwa.harness.runner import RunResult, run
from taiwa.harness.stages import GenerateStage
from taiwa.judges import analysis, prompts
from taiwa.judges.stages import PairwiseJudge, SingleJudge
from taiwa.judges.verdicts import (
    RATING_REASON,
    VERDICT_REASON,
    SwappedPair,
    VerdictError,
    parse_rating,
    parse_verdict,
)
from taiwa.testing.stub_server import StubState, serve

# ------------------------------------------------------------------------------------ verdicts

_FREE_TEXT = st.text(alphabet=st.characters(blacklist_characters="[]［］"), max_size=40)
_RATINGS = st.one_of(
    st.integers(1, 10).map(str),
    st.decimals(1, 10, places=1, allow_nan=False, allow_infinity=False).map(str),
)


@given(before=_FREE_TEXT, rating=_RATINGS, after=_FREE_TEXT)
def test_rating_in_brackets_is_read_wherever_it_stands(
    before: str, rating: str, after: str
) -> None:
    assert parse_rating(f"{before}評価：[[{rating}]]{after}") == float(rating)


@given(first=_RATINGS, last=_RATINGS, between=_FREE_TEXT)
def test_the_last_rating_wins(first: str, last: str, between: str) -> None:
    assert parse_rating(f"例：[[{first}]]{between}評価：[[{last}]]") == float(last)


@given(text=_FREE_TEXT)
def test_text_without_brackets_has_no_rating_and_no_verdict(text: str) -> None:
    with pytest.raises(VerdictError, match=re.escape(RATING_REASON)):
        parse_rating(text)
    with pytest.raises(VerdictError, match=re.escape(VERDICT_REASON)):
        parse_verdict(text)


@given(rating=st.one_of(st.integers(11, 10_000), st.just(0)).map(str))
def test_ratings_outside_1_to_10_are_refused(rating: str) -> None:
    with pytest.raises(VerdictError, match="outside 1-10"):
        parse_rating(f"評価：[[{rating}]]")


@given(before=_FREE_TEXT, verdicts=st.lists(st.sampled_from("ABC"), min_size=1, max_size=4))
def test_the_last_verdict_wins(before: str, verdicts: list[str]) -> None:
    text = before + "".join(f"…[[{v}]]" for v in verdicts)
    assert parse_verdict(text) == verdicts[-1]


def test_full_width_and_spaced_brackets_are_read() -> None:
    assert parse_rating("評価：［［８］］") == 8.0
    assert parse_rating("評価：[[ 7.5 ]]") == 7.5
    assert parse_verdict("判定：［［Ｂ］］") == "B"
    for bad in ("[[7/10]]", "[7]", "評価：7", "[[-3]]", "[[７点]]"):
        with pytest.raises(VerdictError):
            parse_rating(bad)
    for bad in ("[[D]]", "[[a]]", "[[AB]]", "[A]"):
        with pytest.raises(VerdictError):
            parse_verdict(bad)


_V = [None, "A", "B", "C"]


def test_swap_rule_table() -> None:
    cases = {
        ("A", "B"): ("a", False, None),  # a shown first wins, b shown first loses: a wins
        ("B", "A"): ("b", False, None),
        ("C", "C"): ("tie", False, None),
        ("A", "A"): ("tie", True, "first"),  # always the first position: flips, a tie
        ("B", "B"): ("tie", True, "second"),
        ("A", "C"): ("tie", True, None),
        ("C", "B"): ("tie", True, None),
        (None, "A"): ("unparsed", None, None),
    }
    for (first, second), want in cases.items():
        got = SwappedPair.resolve(first, second)  # type: ignore[arg-type]
        assert (got.outcome, got.flipped, got.bias) == want, (first, second)


def test_swap_rule_does_not_depend_on_which_system_is_called_a() -> None:
    mirror = {"a": "b", "b": "a", "tie": "tie", "unparsed": "unparsed"}
    for first, second in itertools.product(_V, _V):
        one = SwappedPair.resolve(first, second)  # type: ignore[arg-type]
        other = SwappedPair.resolve(second, first)  # type: ignore[arg-type]
        assert mirror[one.outcome] == other.outcome and one.flipped == other.flipped


# ------------------------------------------------------------------------------------- prompts


def test_prompts_carry_seed_001_criteria_and_mt_bench_formats() -> None:
    for text in (prompts.SINGLE_SYSTEM, prompts.PAIRWISE_SYSTEM):
        for phrase in ("楽しく、自然で、文脈に一貫した", "簡潔さや情報の正確性は評価に含めない"):
            assert phrase in text
        assert "唯一の正解ではありません" in text and "長さに" in text
    assert "[[評価]]" in prompts.SINGLE_SYSTEM and "評価：[[5]]" in prompts.SINGLE_SYSTEM
    assert all(f"[[{v}]]" in prompts.PAIRWISE_SYSTEM for v in "ABC")
    assert "順序に判定を左右されない" in prompts.PAIRWISE_SYSTEM
    assert "参照応答" not in prompts.SINGLE_SYSTEM_NO_REF + prompts.PAIRWISE_TEMPLATE_NO_REF
    assert len(set(prompts.PROMPTS.values())) == len(prompts.PROMPTS) == 8


def test_prompt_messages_place_every_field() -> None:
    system, user = prompts.pairwise_messages("指示{x}", "S1：やあ", "参照です", "答え{A}", "答えB")
    assert system.content == prompts.PAIRWISE_SYSTEM
    assert _section(user.text, "システムAの応答") == "答え{A}"
    assert _section(user.text, "システムBの応答") == "答えB"
    assert _section(user.text, "参照応答") == "参照です" and "指示{x}" in user.text
    system, user = prompts.single_messages("指示", "S1：やあ", None, "答え")
    assert system.content == prompts.SINGLE_SYSTEM_NO_REF and "参照応答" not in user.text
    assert _section(user.text, "評価対象の応答") == "答え"


def _section(text: str, title: str) -> str | None:
    found = re.search(rf"\[{title}の開始\]\n(.*?)\n\[{title}の終了\]", text, re.S)
    return found.group(1) if found else None


def test_stage_options_are_validated() -> None:
    common = (lambda s: ("", ""), lambda s: None, lambda up: None)
    with pytest.raises(ValueError, match="attempts"):
        SingleJudge(*common, attempts=0)
    with pytest.raises(ValueError, match="missing_rating"):
        SingleJudge(*common, missing_rating=11)
    with pytest.raises(ValueError, match="missing"):
        PairwiseJudge(*common, missing="wins")  # type: ignore[arg-type]


# ------------------------------------------------------------------- a judged method, end to end

MARK = "★"
SYSTEM_REPLIES = {
    "alpha": "いいですね！週末は何をする予定ですか？",
    "beta": f"{MARK}わかります、私も先週同じことを考えてました！",
    "gamma": "そうですか。",
    "mute": "（無言）",
}


class JudgeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["single", "pairwise"] = "pairwise"
    attempts: int = 3
    missing: Literal["loses", "excluded"] = "loses"


def _answer(up: Upstream) -> str | None:
    """The system's reply; "（無言）" stands for a reply whose extraction failed."""
    text = up["generate"]["text"]
    return None if text == SYSTEM_REPLIES["mute"] else str(text)


class JudgedMethod:
    """A method that exists only in this test: generate, then one of the two judges."""

    name = "judged-toy"
    seed = "-"
    title = "replies judged by an LLM"
    takes_systems = True
    roles = (Role("judge", "the LLM judge", required=True),)
    options = JudgeOptions
    prompts: Mapping[str, str] = prompts.PROMPTS

    def default_data(self) -> Path:
        return PROMPTS_METHOD.default_data()

    def load(self, path: Path, options: Any) -> Any:
        return PROMPTS_METHOD.load(path, options)

    def reference(self, sample: PromptSample) -> str | None:
        return sample.reference

    def stages(self, setup: Setup) -> list[Any]:
        o = setup.options
        common = (lambda s: ("雑談を続けてください。", s.prompt), lambda s: s.reference, _answer)
        judge: Any = (
            SingleJudge(*common, attempts=o.attempts)
            if o.mode == "single"
            else PairwiseJudge(*common, attempts=o.attempts, missing=o.missing)
        )
        return [GenerateStage(lambda s: s.chat(), setup.params), judge]

    def aggregate(self, samples: Any, results: Results, setup: Setup) -> Summary:
        if setup.options.mode == "single":
            rows = {s: list(results.rows("single_judge", s)) for s in results.systems}
            quality = analysis.judge_quality(single=itertools.chain(*rows.values()))
            means = {s: {"rating": analysis.mean_rating(r)} for s, r in rows.items()}
            return Summary(means, {"quality": quality})
        pairs = list(results.rows("pairwise_judge"))
        quality = analysis.judge_quality(pairwise=pairs)
        across = {
            "matrix": analysis.win_rate_matrix(pairs, results.systems),
            "overall": analysis.overall_win_rates(pairs, results.systems),
            "quality": quality,
        }
        return Summary({s: {} for s in results.systems}, across, analysis.quality_notes(quality))

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        return []

    def demo(self) -> Demo:
        """No demo."""
        return Demo()


def _user(body: Mapping[str, Any]) -> str:
    return str(next(m for m in body["messages"] if m["role"] == "user")["content"])


def _repairing(body: Mapping[str, Any]) -> bool:
    return len(body["messages"]) > 2  # the runner appended the reply and the reason


def _marker_verdict(body: Mapping[str, Any]) -> str:
    a = MARK in (_section(_user(body), "システムAの応答") or "")
    b = MARK in (_section(_user(body), "システムBの応答") or "")
    return "[[A]]" if a and not b else "[[B]]" if b and not a else "[[C]]"


def _judge(body: Mapping[str, Any]) -> str:
    """Scripted judges, chosen by the model name the request asks for."""
    model = body["model"]
    answers = {_section(_user(body), f"システム{x}の応答") for x in "AB"}
    if model == "first":  # always prefers the answer shown first
        return "どちらも自然ですが、Aの方が少し楽しいです。判定：[[A]]"
    if model == "marker":  # prefers the answer with the marker, wherever it stands
        return f"★のある応答の方が楽しいです。判定：{_marker_verdict(body)}"
    if model == "late":  # beta-gamma: never a verdict; alpha-beta: only once repaired;
        if SYSTEM_REPLIES["gamma"] in answers and SYSTEM_REPLIES["beta"] in answers:
            return "うーん、難しいですね。"
        if SYSTEM_REPLIES["gamma"] in answers:  # alpha-gamma: at once, another verdict if re-asked
            return "判定：[[A]]" if _repairing(body) else "同程度です。[[C]]"
        return f"判定：{_marker_verdict(body)}" if _repairing(body) else "Bが良いと思います。"
    rated = _section(_user(body), "評価対象の応答") or ""
    if model == "rate-late":  # a rating only when repaired
        return "評価：[[7]]" if _repairing(body) else "とても楽しい応答です。"
    if model == "rate-marker":
        return "評価：[[9]]" if MARK in rated else "評価：[[3.5]]"
    return "評価できません。"  # "rate-never"


def _script(body: dict[str, Any]) -> str:
    return SYSTEM_REPLIES.get(body["model"]) or _judge(body)


def _data(tmp_path: Path, n: int = 3) -> Path:
    path = tmp_path / "items.jsonl"
    lines = [
        {
            "id": f"i{k}",
            "prompt": f"S1：最近{k}回目の旅行に行きました",
            "reference": "どこに行ったの？",
        }
        for k in range(n)
    ]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    return path


@contextmanager
def _server() -> Iterator[tuple[StubState, str]]:
    state = StubState(script=_script)
    with serve(state) as url:
        yield state, url


def _run(
    tmp_path: Path,
    url: str,
    judge: str,
    systems: Sequence[str] = ("openai:alpha", "openai:beta", "openai:gamma"),
    out: str = "run",
    **options: Any,
) -> RunResult:
    cfg = RunConfig(
        method="judged-toy",
        models=list(systems),
        roles={"judge": f"openai:{judge}"},
        options=options,
        base_url=url,
        data=_data(tmp_path),
        out=tmp_path / out,
        cache_dir=tmp_path / "cache",
        concurrency=8,
    )
    return run(cfg, method=JudgedMethod(), show_progress=False)


def _judge_calls(res: RunResult) -> dict[str, Any]:
    [calls] = [c for c in res.summary["calls"] if c["role"] == "judge"]
    return dict(calls)


def _pairs(res: RunResult) -> dict[tuple[str, str], list[dict[str, Any]]]:
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in res.results.rows("pairwise_judge"):
        for p in row["pairs"]:
            out.setdefault((p["a"].split(":")[1], p["b"].split(":")[1]), []).append(p)
    return out


def test_a_judge_preferring_position_a_flips_every_pair_into_a_tie(tmp_path: Path) -> None:
    with _server() as (state, url):
        res = _run(tmp_path, url, "first")
        judge_bodies = [b for b in state.bodies if b["model"] == "first"]
    assert _judge_calls(res)["calls"] == 3 * 3 * 2  # items x pairs x both orders
    # both orders were asked: each pair's answers appear once as A and once as B
    shown = {
        (_section(_user(b), "システムAの応答"), _section(_user(b), "システムBの応答"))
        for b in judge_bodies
    }
    for x, y in itertools.combinations(["alpha", "beta", "gamma"], 2):
        assert (SYSTEM_REPLIES[x], SYSTEM_REPLIES[y]) in shown
        assert (SYSTEM_REPLIES[y], SYSTEM_REPLIES[x]) in shown
    for pairs in _pairs(res).values():
        for p in pairs:
            assert (p["verdicts"], p["outcome"], p["flipped"], p["bias"]) == (
                ["A", "A"],
                "tie",
                True,
                "first",
            )
    across = res.summary["across"]
    flip = across["quality"]["flip_rate"]
    assert (flip["value"], flip["n"], flip["n_items"], flip["first"]) == (1.0, 9, 3, 9)
    assert flip["flagged"] and across["quality"]["flagged"]
    assert any("swapped places on 100% of pairs" in n for n in res.summary["notes"])
    wins, ties = across["matrix"]["wins"], across["matrix"]["ties"]
    for r, c in itertools.permutations(res.results.systems, 2):
        assert (wins[r][c]["value"], ties[r][c]["value"], wins[r][c]["n"]) == (0.0, 1.0, 3)
    for system in res.results.systems:
        assert across["overall"][system]["win_rate_adjusted"]["value"] == 0.5


def test_a_judge_preferring_the_marked_reply_gives_a_consistent_winner(tmp_path: Path) -> None:
    with _server() as (state, url):
        res = _run(tmp_path, url, "marker")
        params = {
            (b["temperature"], b["max_tokens"]) for b in state.bodies if b["model"] == "marker"
        }
        again = _run(tmp_path, url, "marker", out="again")
    assert params == {(0.0, 1024)}
    pairs = _pairs(res)
    assert {p["winner"] for p in pairs["alpha", "beta"] + pairs["beta", "gamma"]} == {"openai:beta"}
    assert [p["verdicts"] for p in pairs["alpha", "beta"]] == [["B", "A"]] * 3
    assert all(p["outcome"] == "tie" and not p["flipped"] for p in pairs["alpha", "gamma"])
    across = res.summary["across"]
    wins, ties = across["matrix"]["wins"], across["matrix"]["ties"]
    assert wins["openai:beta"]["openai:alpha"]["value"] == 1.0
    assert wins["openai:alpha"]["openai:beta"]["value"] == 0.0
    assert ties["openai:alpha"]["openai:gamma"]["value"] == 1.0
    overall = across["overall"]
    assert overall["openai:beta"]["win_rate"]["value"] == 1.0
    assert overall["openai:alpha"]["win_rate_adjusted"]["value"] == 0.25  # lost 1, tied 1
    flip = across["quality"]["flip_rate"]
    assert (flip["value"], flip["flagged"], res.summary["notes"]) == (0.0, False, [])
    assert across["quality"]["unparsed_pairwise"]["value"] == 0.0
    # a second run is answered by the cache, with the same rows
    assert (_judge_calls(again)["calls"], _judge_calls(again)["cache_hits"]) == (0, 18)
    assert [r["pairs"] for r in again.results.rows("pairwise_judge")] == [
        r["pairs"] for r in res.results.rows("pairwise_judge")
    ]


def test_unparseable_verdicts_are_re_asked_then_counted_per_pair(tmp_path: Path) -> None:
    with _server() as (_, url):
        res = _run(tmp_path, url, "late", attempts=2)
    pairs = _pairs(res)
    # alpha-beta: read once repaired; beta wins both orders
    assert [(p["verdicts"], p["winner"]) for p in pairs["alpha", "beta"]] == [
        (["B", "A"], "openai:beta")
    ] * 3
    # alpha-gamma: read in the first round and kept, although the repair round answered [[A]]
    assert [p["verdicts"] for p in pairs["alpha", "gamma"]] == [["C", "C"]] * 3
    # beta-gamma: never readable: unparsed, counted, decided for nobody
    assert all(
        p["outcome"] == "unparsed" and p["verdicts"] == [None, None] for p in pairs["beta", "gamma"]
    )
    assert "難しい" in pairs["beta", "gamma"][0]["judgments"][0]
    calls = _judge_calls(res)
    assert (calls["requests"], calls["repaired"], calls["invalid"]) == (2 * 18, 3, 0)
    assert res.summary["failures"]["pairwise_judge"] == 0
    unparsed = res.summary["across"]["quality"]["unparsed_pairwise"]
    assert (unparsed["value"], unparsed["n"], unparsed["failed_items"]) == (
        pytest.approx(1 / 3),
        18,
        0,
    )
    assert res.summary["across"]["matrix"]["wins"]["openai:beta"]["openai:gamma"]["n"] == 0


def test_a_system_without_an_answer_loses_its_pairs_without_asking(tmp_path: Path) -> None:
    replay = tmp_path / "broken.jsonl"
    replay.write_text('{"id": "other", "text": "…"}\n', encoding="utf-8")  # no reply for any item
    systems = ("openai:alpha", "openai:beta", "openai:mute", f"replay:{replay}")
    with _server() as (state, url):
        res = _run(tmp_path, url, "marker", systems=systems)
        judged = [b for b in state.bodies if b["model"] == "marker"]
        excluded = _run(
            tmp_path, url, "marker", systems=systems, out="excluded", missing="excluded"
        )
    assert _judge_calls(res)["calls"] == 3 * 2  # only alpha-beta is asked
    assert not any(SYSTEM_REPLIES["mute"] in _user(b) for b in judged)
    rows = list(res.results.rows("pairwise_judge"))
    assert rows[0]["missing"] == ["openai:mute", f"replay:{replay}"]
    by_pair = {(p["a"], p["b"]): p for p in rows[0]["pairs"]}
    assert by_pair["openai:alpha", "openai:mute"]["winner"] == "openai:alpha"
    assert by_pair["openai:alpha", "openai:mute"]["basis"] == "missing"
    assert by_pair["openai:mute", f"replay:{replay}"]["outcome"] == "tie"
    # a pair decided by a forfeit is counted apart, never as a judged win (issue 24)
    matrix = res.summary["across"]["matrix"]
    wins = matrix["wins"]
    assert wins["openai:beta"]["openai:mute"]["n"] == 0
    assert matrix["forfeits"]["openai:beta"]["openai:mute"] == 3
    assert matrix["forfeits"]["openai:mute"]["openai:alpha"] == 0
    assert wins["openai:beta"]["openai:alpha"]["n"] == 3
    overall = res.summary["across"]["overall"]
    assert overall["openai:beta"]["forfeit_wins"] == 6 and overall["openai:beta"]["wins"] <= 3
    assert overall["openai:mute"]["win_rate"]["n"] == 0
    ex = excluded.summary["across"]["matrix"]["wins"]
    assert (
        ex["openai:beta"]["openai:mute"]["n"] == 0 and ex["openai:beta"]["openai:alpha"]["n"] == 3
    )
    outcomes = {p["outcome"] for r in excluded.results.rows("pairwise_judge") for p in r["pairs"]}
    assert outcomes == {"b", "excluded"}


def test_single_rating_is_read_after_a_repair_round(tmp_path: Path) -> None:
    with _server() as (state, url):
        res = _run(
            tmp_path, url, "rate-late", systems=("openai:alpha", "openai:mute"), mode="single"
        )
        repairs = [b for b in state.bodies if b["model"] == "rate-late" and _repairing(b)]
    # the repair turn asks for the verdict format, not for JSON (the runner's default)
    assert repairs and all(
        "判定の形式が不正でした" in b["messages"][-1]["content"] for b in repairs
    )
    assert not any("JSON" in b["messages"][-1]["content"] for b in repairs)
    rows = {s: list(res.results.rows("single_judge", s)) for s in res.results.systems}
    assert [(r["rating"], r["attempts"], r["missing"]) for r in rows["openai:alpha"]] == [
        (7.0, 2, False)
    ] * 3
    assert "[[7]]" in rows["openai:alpha"][0]["judgment"]
    # the reply whose extraction failed is scored as a failure (1), without asking the judge
    assert [(r["rating"], r["missing"], r["judgment"]) for r in rows["openai:mute"]] == [
        (1.0, True, None)
    ] * 3
    calls = _judge_calls(res)
    assert (calls["requests"], calls["repaired"], calls["invalid"]) == (6, 3, 0)
    quality = res.summary["across"]["quality"]
    assert quality["unparsed_single"]["value"] == 0.0 and quality["unparsed_single"]["n"] == 3
    assert quality["rating_histogram"]["bins"]["7"] == 3 and quality["rating_histogram"]["n"] == 3
    assert res.summary["systems"]["openai:mute"]["rating"]["value"] == 1.0


def test_single_judge_without_a_rating_fails_after_the_bound(tmp_path: Path) -> None:
    with _server() as (_, url):
        res = _run(tmp_path, url, "rate-never", systems=("openai:alpha",), mode="single")
    rows = list(res.results.rows("single_judge", "openai:alpha"))
    assert all(r["error"].startswith("invalid output after 3 attempt(s): no rating") for r in rows)
    calls = _judge_calls(res)
    assert (calls["requests"], calls["invalid"], res.summary["failures"]["single_judge"]) == (
        9,
        3,
        3,
    )
    unparsed = res.summary["across"]["quality"]["unparsed_single"]
    assert (unparsed["value"], unparsed["n"], unparsed["failed"]) == (1.0, 3, 0)


def test_single_ratings_histogram_and_means(tmp_path: Path) -> None:
    with _server() as (_, url):
        res = _run(
            tmp_path, url, "rate-marker", systems=("openai:alpha", "openai:beta"), mode="single"
        )
    quality = res.summary["across"]["quality"]
    assert quality["rating_histogram"]["bins"] == {
        **{str(k): 0 for k in range(1, 11)},
        "3": 3,
        "9": 3,
    }
    means = {s: b["rating"]["value"] for s, b in res.summary["systems"].items()}
    assert means == {"openai:alpha": 3.5, "openai:beta": 9.0}


# ------------------------------------------------------------------------------------ analysis

SEED_001_SINGLE = {
    "CA": 6.08, "JStable": 3.35, "youri": 2.64, "ELYZA": 5.07, "LLMJP": 3.62,
    "nekomata": 3.13, "GPT3.5": 7.50, "GPT4": 8.13, "H0": 7.55, "H1": 7.52,
    "H2": 7.23, "H3": 7.25, "H4": 7.75,
}  # fmt: skip
SEED_001_PAIRWISE = {
    "CA": 41, "JStable": 20, "youri": 16, "ELYZA": 37, "LLMJP": 24, "nekomata": 21,
    "GPT3.5": 73, "GPT4": 93, "H0": 65, "H1": 64, "H2": 54, "H3": 56, "H4": 75,
}  # fmt: skip
SEED_001_HUMAN_MEAN_RANK = {
    "H4": 3.74, "H1": 3.81, "H2": 4.20, "H0": 4.42, "H3": 4.58, "GPT4": 6.13, "CA": 6.87,
    "GPT3.5": 7.13, "ELYZA": 8.36, "nekomata": 10.07, "LLMJP": 10.43, "JStable": 10.78,
    "youri": 11.02,
}  # fmt: skip


def test_spearman_against_human_ranks_reproduces_seed_001() -> None:
    single = analysis.spearman_vs_human_ranks(SEED_001_SINGLE, SEED_001_HUMAN_MEAN_RANK)
    pairwise = analysis.spearman_vs_human_ranks(SEED_001_PAIRWISE, SEED_001_HUMAN_MEAN_RANK)
    assert (round(single.r, 2), round(pairwise.r, 2), single.n) == (0.82, 0.78, 13)


def test_agreement_with_humans_over_items() -> None:
    systems = ["s1", "s2", "s3", "s4"]
    ranks = {f"i{k}": {s: float(r + 1) for r, s in enumerate(systems)} for k in range(12)}
    agree = {i: {s: 10.0 - r for s, r in per.items()} for i, per in ranks.items()}
    res = analysis.agreement_with_humans(agree, ranks, seed=1)
    assert (res["rho"], res["ci_low"], res["ci_high"]) == pytest.approx((1.0, 1.0, 1.0))
    assert (res["n_items"], res["n_systems"]) == (12, 4)
    assert res["systems"]["s1"] == {"judge": 9.0, "human_mean_rank": 1.0}
    reverse = analysis.agreement_with_humans(
        {i: {s: -v for s, v in per.items()} for i, per in agree.items()}, ranks
    )
    assert reverse["rho"] == pytest.approx(-1.0)
    # noisy items: the CI widens around the point and is seeded
    noisy = {i: {**per, "s4": 9.5 if k % 2 else 0.0} for k, (i, per) in enumerate(agree.items())}
    one = analysis.agreement_with_humans(noisy, ranks, seed=3, n_resamples=300)
    assert one == analysis.agreement_with_humans(noisy, ranks, seed=3, n_resamples=300)
    assert one["ci_low"] < one["rho"] <= one["ci_high"]
    two = analysis.agreement_with_humans(agree, {"i0": ranks["i0"]})
    assert two["n_items"] == 1 and two["n_systems"] == 4


def _pair_row(item: str, a: str, b: str, verdicts: tuple[Any, Any]) -> dict[str, Any]:
    sw = SwappedPair.resolve(*verdicts)
    pair = {
        "a": a,
        "b": b,
        "verdicts": list(verdicts),
        "outcome": sw.outcome,
        "winner": {"a": a, "b": b}.get(sw.outcome),
        "flipped": sw.flipped,
        "bias": sw.bias,
        "basis": "judged",
    }
    return {"id": item, "pairs": [pair]}


@settings(max_examples=40)
@given(
    st.lists(
        st.tuples(st.sampled_from(["x", "y", "z"]), st.sampled_from(_V), st.sampled_from(_V)),
        max_size=30,
    )
)
def test_win_tie_and_loss_shares_add_up(draws: list[tuple[str, Any, Any]]) -> None:
    pairs = {"x": ("p", "q"), "y": ("q", "r"), "z": ("p", "r")}
    rows = [_pair_row(f"i{k}", *pairs[name], (f, s)) for k, (name, f, s) in enumerate(draws)]
    m = analysis.win_rate_matrix(rows, ["p", "q", "r"], seed=0)
    for r, c in itertools.permutations(["p", "q", "r"], 2):
        w, lo, t = m["wins"][r][c], m["wins"][c][r], m["ties"][r][c]
        decided = sum(1 for n, f, s in draws if set(pairs[n]) == {r, c} and None not in (f, s))
        assert w["n"] == lo["n"] == t["n"] == decided
        if decided:
            assert w["value"] + lo["value"] + t["value"] == pytest.approx(1.0)
            assert w["ci_low"] <= w["value"] <= w["ci_high"]
    flip = analysis.flip_rate(rows)
    read = [(f, s) for _, f, s in draws if None not in (f, s)]
    assert flip["n"] == len(read)
    if read:
        flips = sum(SwappedPair.resolve(f, s).flipped is True for f, s in read)
        assert flip["value"] == pytest.approx(flips / len(read))
    unparsed = analysis.unparsed_share_pairwise(rows)
    assert unparsed["n"] == 2 * len(draws)


def test_failed_rows_are_counted_not_used() -> None:
    rows = [
        _pair_row("i0", "p", "q", ("A", "B")),
        {"id": "i1", "error": "HTTP 500"},
    ]
    assert analysis.unparsed_share_pairwise(rows)["failed_items"] == 1
    assert analysis.win_rate_matrix(rows, ["p", "q"])["wins"]["p"]["q"]["n"] == 1
    single: list[dict[str, Any]] = [
        {"id": "i0", "rating": 8.0, "missing": False},
        {"id": "i1", "rating": 1.0, "missing": True},
        {"id": "i2", "error": "invalid output after 3 attempt(s): no rating"},
        {"id": "i3", "error": "generate: HTTP 500", "skipped": True},
    ]
    share = analysis.unparsed_share_single(single)
    assert (share["value"], share["n"], share["failed"]) == (0.5, 2, 1)
    assert analysis.mean_rating(single)["value"] == 4.5
    assert analysis.mean_rating(single, include_missing=False)["value"] == 8.0
    assert analysis.rating_histogram(single)["n"] == 1
    by_item = analysis.item_ratings({"s": single})
    assert by_item == {"i0": {"s": 8.0}, "i1": {"s": 1.0}}
    shares = analysis.item_win_shares([_pair_row("i0", "p", "q", ("C", "C"))])
    assert shares == {"i0": {"p": 0.5, "q": 0.5}}
