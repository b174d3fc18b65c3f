"""The LLM tagger of da-distribution (issue 26): the prompt carries the seed's definitions and
examples, answers are parsed with repairs counted, the tag stage calls the model through the
runner (re-asking invalid answers), and ``taiwa validate tagger`` scores it like a classifier
(against the project's stub server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from taiwa.annotators.llm_tagger import ACT_FROM_TEXT, ALIAS_ACT, parse_act, system_prompt
from taiwa.benchmarks import get_method
from taiwa.benchmarks.da_distribution.llm_tagging import few_shot, tag_prompt
from taiwa.benchmarks.da_distribution.validate_tagger import validate_tagger
from taiwa.core.taxonomies import load_taxonomy
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.testing.stub_server import StubState, serve

CHITCHAT11 = load_taxonomy("chitchat11")


def _answer(body: dict[str, Any]) -> str:
    """A rule tagger: a question mark → 質問 (as its English alias), else 意見."""
    asked = body["messages"][1]["content"]  # the first user turn (repair turns come after)
    utterance = asked.rsplit("判定する発話: ", 1)[1]
    act = "Question" if "？" in utterance or "?" in utterance else "意見"
    return json.dumps({"act": act}, ensure_ascii=False)


def test_parse_act_repairs_and_refusals() -> None:
    assert parse_act('{"act": "提案"}', CHITCHAT11).act == "提案"
    alias = parse_act('```json\n{"act": " Opinion "}\n```', CHITCHAT11)
    assert (alias.act, alias.repairs) == ("意見", {ALIAS_ACT: 1})
    loose = parse_act("これは「質問」です", CHITCHAT11)
    assert (loose.act, loose.repairs) == ("質問", {ACT_FROM_TEXT: 1})
    for bad in ('{"act": "雑談"}', '{"label": "意見"}', "意見か質問"):
        with pytest.raises(ValueError):
            parse_act(bad, CHITCHAT11)


def test_prompt_has_every_definition_and_held_out_free_examples() -> None:
    from taiwa.annotators.da_classifier.model import held_out_split, load_examples

    text = system_prompt(CHITCHAT11, few_shot())
    for act in CHITCHAT11.acts:
        assert act.definition in text
    held = {e.reply for e in held_out_split(load_examples()[0])[1]}
    assert len(few_shot()) == len(CHITCHAT11.acts)
    assert not {e.utterance for e in few_shot()} & held
    schema = tag_prompt(CHITCHAT11, 0).params.json_schema
    assert schema is not None and schema["properties"]["act"]["enum"] == CHITCHAT11.names


def test_the_tag_stage_calls_the_model_and_counts_repairs(tmp_path: Path) -> None:
    state = StubState(replies=["だめ"], script=_answer)
    with serve(state) as url:
        res = run(
            RunConfig(
                method="da-distribution",
                models=["human", "builtin:parrot"],
                roles={"tagger": "openai:stub"},
                base_url=url,
                max_retries=0,
                limit=6,
                options={"consistency_repetitions": 10, "prev_acts": "tagger"},
                out=tmp_path / "run",
                cache_dir=tmp_path / "c",
            ),
            get_method("da-distribution"),
            show_progress=False,
        )
    rows = list(res.results.rows("tag", ""))
    assert len(rows) == 6 and all("error" not in r for r in rows)
    for row in rows:
        assert set(row["acts"]) == {"human", "builtin:parrot"} and row["prev_from"] == "tagger"
        assert set(row["acts"].values()) <= {"質問", "意見"}
    [calls] = [c for c in res.summary["calls"] if c["role"] == "tagger"]
    # 6 contexts × (2 replies + the context) + the first context asked again
    assert calls["requests"] == 6 * 3 + 3 and calls["repaired"] == 1
    assert calls["repairs"]["re_asked"] == 1 and calls["repairs"][ALIAS_ACT] >= 1
    assert res.summary["across"]["tagger"]["kind"].startswith("chat model")
    # no validation set for a model without -o tagger_validation: raw figures only
    assert "tagger_validation" not in res.summary["across"]


def test_validate_tagger_scores_a_chat_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold = tmp_path / "gold.jsonl"
    rows = [
        ("駅まで歩く？", "今日は歩こうかな", "意見"),
        ("昨日は何してた？", "何してたと思う？", "質問"),
        ("ラーメン好き？", "こってりしたのはちょっと苦手", "意見"),
        ("暑いね", "アイスでも食べに行かない？", "提案"),
    ]
    gold.write_text(
        "".join(
            json.dumps({"id": f"v{k}", "context": c, "reply": r, "act": a}, ensure_ascii=False)
            + "\n"
            for k, (c, r, a) in enumerate(rows)
        ),
        "utf-8",
    )
    state = StubState(replies=['{"act": "わからない"}'], script=_answer)
    with serve(state) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        report = validate_tagger("openai:stub", [gold], 0)
    (block,) = report["sets"].values()  # one --data file: one gold set
    main = block["labels"]["openai:stub"]
    assert main["n"] == 4 and main["failed"] == 0
    # right on 1, 2 and 3 (the first answer re-asked), wrong on the suggestion with "？"
    assert main["accuracy"]["value"] == pytest.approx(0.75)
    assert report["repairs"]["re_asked"] == 1 and report["repairs"][ALIAS_ACT] == 2
    from rich.console import Console

    from taiwa.benchmarks.da_distribution.validate_tagger import report_tables

    console = Console(record=True, width=100)
    for t in report_tables(report):
        console.print(t)
    assert "repairs of the model's answers: " in console.export_text()


@pytest.mark.slow  # the demo LLM
def test_the_demo_llm_tags_a_handful_of_replies(tmp_path: Path) -> None:
    """The embedded demo model through the same stage: schema-constrained, so every reply
    gets an act of the taxonomy (or is counted untagged), through the runner's cache."""
    cfg = RunConfig(
        method="da-distribution",
        models=["human"],
        roles={"tagger": "demo"},
        limit=3,
        options={"consistency_repetitions": 10},
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    res = run(cfg, get_method(cfg.method), show_progress=False)
    rows = list(res.results.rows("tag", ""))
    assert len(rows) == 3 and all("error" not in r for r in rows)
    for row in rows:
        assert set(row["acts"]) | set(row.get("untagged", {})) == {"human"}
        assert set(row["acts"].values()) <= set(CHITCHAT11.names)
    assert any(row["acts"] for row in rows)
    [calls] = [c for c in res.summary["calls"] if c["role"] == "tagger"]
    assert calls["requests"] >= 3
    again = run(cfg, get_method(cfg.method), show_progress=False)
    [cached] = [c for c in again.summary["calls"] if c["role"] == "tagger"]
    assert cached["calls"] == 0


def test_a_gold_file_for_an_llm_tagger_asks_for_a_report(tmp_path: Path) -> None:
    from cli import taiwa_main

    gold = tmp_path / "gold.jsonl"
    row = {"id": "1", "context": "暑いね", "reply": "ほんとに", "act": "うなずき・おうむ返し"}
    gold.write_text(json.dumps(row, ensure_ascii=False) + "\n", "utf-8")
    r = taiwa_main(
        "run", "da-distribution", "-m", "human", "--tagger", "openai:x",
        "-o", f"tagger_validation={gold}", "-q",
    )  # fmt: skip
    assert r.returncode == 2
    assert "taiwa validate tagger --tagger openai:x" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
