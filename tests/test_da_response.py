"""da-response (seed 000): dataset schema, annotators, generator, the method end to end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from taiwa.annotators.sentence_annotator import split_sentences
from taiwa.annotators.steps_json import parse_steps
from taiwa.benchmarks import get_method
from taiwa.benchmarks.da_response import messages
from taiwa.benchmarks.da_response import prompts as seed000
from taiwa.benchmarks.da_response.builder import build_items, parse_item, read_instructions
from taiwa.benchmarks.da_response.dataset import load_da_response
from taiwa.benchmarks.da_response.shipped_annotator import default_annotator
from taiwa.core.errors import InputError
from taiwa.core.samples import sample_path
from taiwa.core.taxonomies import load_taxonomy
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.metrics.da_steps import ImportanceWarning
from taiwa.models import ModelOptions, load_model
from taiwa.testing.stub_server import StubState, serve

TAX = load_taxonomy("assistant7")

GOLD = sample_path("da_response/gold.jsonl")
GOOD_STEPS = json.dumps(
    {
        "steps": [
            {"act": "Commissive", "importance": 0.7, "rationale": "r"},
            {"act": "Question", "importance": 0.3},
        ]
    }
)


def _item(**over: object) -> dict[str, object]:
    item: dict[str, object] = {
        "id": "x1",
        "scenario_context": {"background": "料理中。"},
        "input": {"role": "USER", "text": "3分タイマーかけて", "locale": "ja-JP"},
        "output": {"role": "ASSISTANT", "text": "3分のタイマーをセットしました。"},
        "output_dialogue_acts": {
            "steps": [{"act": "Commissive", "importance": 1.0, "rationale": "r"}]
        },
    }
    item.update(over)
    return item


def _write(tmp_path: Path, *items: dict[str, object]) -> Path:
    p = tmp_path / "ds.jsonl"
    p.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    return p


def test_bundled_sample_set() -> None:
    items = load_da_response(GOLD)
    assert len(items) >= 60
    acts = {a for it in items for a in it.gold.acts}
    assert acts == {
        "Question",
        "Check-Question",
        "Answer",
        "Inform",
        "Request",
        "Suggestion",
        "Commissive",
    }
    assert {len(it.gold.steps) for it in items} == {1, 2, 3, 4}


def test_schema_renormalises_with_warning(tmp_path: Path) -> None:
    steps = [{"act": "Commissive", "importance": 0.6}, {"act": "Question", "importance": 0.2}]
    with pytest.warns(ImportanceWarning):
        [item] = load_da_response(_write(tmp_path, _item(output_dialogue_acts={"steps": steps})))
    assert [s.importance for s in item.gold.steps] == pytest.approx([0.75, 0.25])


@pytest.mark.parametrize(
    ("steps", "field"),
    [
        ([{"act": "Commissive", "importance": 0.0}], "output_dialogue_acts.steps"),
        ([], "output_dialogue_acts.steps"),
        ([{"act": "Greeting", "importance": 1.0}], "output_dialogue_acts.steps[0].act"),
        ([{"act": "Answer", "importance": -1}], "output_dialogue_acts.steps[0].importance"),
    ],
)
def test_schema_errors_name_the_field(tmp_path: Path, steps: list[object], field: str) -> None:
    with pytest.raises(InputError) as info:
        load_da_response(
            _write(tmp_path, _item(), _item(id="x2", output_dialogue_acts={"steps": steps}))
        )
    assert (info.value.line, info.value.field) == (2, field)


def test_requests_use_appendix_b_prompts() -> None:
    first = load_da_response(GOLD)[0]
    system, user = messages(first)
    assert system.content == "あなたは親切な日本語音声対話アシスタントです。"
    assert user.text.endswith(seed000.RESPONSE_USER)
    assert user.text.startswith(first.input.text)


def test_gold_replies_with_gold_annotations_are_perfect(tmp_path: Path) -> None:
    items = load_da_response(GOLD)
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"id": it.id, "text": it.output.text}, ensure_ascii=False) + "\n"
            for it in items
        ),
        encoding="utf-8",
    )
    spec = f"replay:{replies}"
    cfg = RunConfig(
        method="da-response",
        models=[spec, "human"],
        roles={"annotator": f"replay:{GOLD}"},
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    res = run(cfg, get_method(cfg.method), show_progress=False)
    rows = [
        json.loads(x)
        for x in (tmp_path / "run" / "scores.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(rows) == 2 * len(items) and not any("error" in r for r in rows)
    assert {r["system"] for r in rows} == {spec, "human"}
    assert all(r["wlcs"] == pytest.approx(1.0) and r["wed"] == 0.0 for r in rows)
    for system in (spec, "human"):
        block = res.summary["systems"][system]
        assert block["wed"]["value"] == 0.0 and block["failures"] == {
            "generate": 0,
            "annotate": 0,
            "score": 0,
        }
    assert (tmp_path / "run" / "annotations.jsonl").exists()


def test_fixed_baseline_summary_and_examples(tmp_path: Path) -> None:
    cfg = RunConfig(
        method="da-response",
        models=["builtin:fixed"],
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    summary = run(cfg, get_method(cfg.method), show_progress=False).summary
    s = summary["systems"]["builtin:fixed"]
    assert s["n"] == 60 and s["scored"] == 60
    assert json.loads((tmp_path / "run" / "config.json").read_text())["roles"] == {
        "annotator": "offline"
    }
    for key in ("wlcs", "wed", "deletion", "insertion", "substitution"):
        assert {"value", "ci_low", "ci_high", "n", "sd"} <= set(s[key])
    ex = s["examples"]
    assert ex["max_insertion"]["insertion"] >= ex["min_wed"]["insertion"]
    assert ex["min_wed"]["wed"] <= s["wed"]["value"] <= max(e["wed"] for e in ex.values())


def test_parse_steps_repairs_and_rejects() -> None:
    parsed = parse_steps("```json\n" + GOOD_STEPS + "\n```", TAX)
    assert parsed.sequence.acts == ["Commissive", "Question"] and parsed.repairs == {}
    with pytest.raises(ValueError, match="act"):
        parse_steps('{"steps": [{"act": "Banter", "importance": 1}]}', TAX)
    with pytest.raises(ValueError, match="JSON"):
        parse_steps("はい、わかりました", TAX)
    with pytest.raises(ValueError, match="sum to 0"):
        parse_steps('{"steps": [{"act": "Answer", "importance": 0}]}', TAX)


def _stub_model(url: str):  # type: ignore[no-untyped-def]
    model = load_model("openai:stub", ModelOptions(base_url=url, max_retries=0))
    return model


def _replies(tmp_path: Path, n: int) -> tuple[Path, Path]:
    items = load_da_response(GOLD)[:n]
    data = _write(tmp_path, *(json.loads(it.model_dump_json()) for it in items))
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(json.dumps({"id": it.id, "text": "消しました。"}) + "\n" for it in items),
        encoding="utf-8",
    )
    return data, replies


def _annotated_run(tmp_path: Path, url: str, attempts: int = 3):  # type: ignore[no-untyped-def]
    data, replies = _replies(tmp_path, 1)
    cfg = RunConfig(
        method="da-response",
        models=[f"replay:{replies}"],
        roles={"annotator": "openai:stub"},
        options={"annotator_attempts": attempts},
        base_url=url,
        max_retries=0,
        data=data,
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    return run(cfg, get_method(cfg.method), show_progress=False)


def test_llm_annotator_repairs_malformed_json_on_retry(tmp_path: Path) -> None:
    state = StubState(replies=['{"steps": [{"act": "Commissive", "importance": 1.0', GOOD_STEPS])
    with serve(state) as url:
        res = _annotated_run(tmp_path, url)
    [system] = res.summary["systems"]
    [ann] = res.results.rows("annotate", system)
    assert [s["act"] for s in ann["steps"]] == ["Commissive", "Question"]
    assert ann["attempts"] == 2 and state.hits == 2
    [calls] = [c for c in res.summary["calls"] if c["role"] == "annotator"]
    assert (calls["requests"], calls["calls"], calls["repaired"], calls["invalid"]) == (2, 2, 1, 0)


def test_llm_annotator_records_failure_after_attempts(tmp_path: Path) -> None:
    state = StubState(replies=["だめ"] * 3)
    with serve(state) as url:
        res = _annotated_run(tmp_path, url, attempts=3)
    [system] = res.summary["systems"]
    [ann] = res.results.rows("annotate", system)
    assert "JSON" in ann["error"] and "3 attempt(s)" in ann["error"] and state.hits == 3
    assert res.summary["failures"]["annotate"] == 1 and res.summary["status"] == "failures"
    [score] = res.results.rows("score", system)
    assert score["skipped"] and "JSON" in score["error"]


def test_generator_repairs_and_deduplicates(tmp_path: Path) -> None:
    good = json.dumps({k: v for k, v in _item().items() if k != "id"}, ensure_ascii=False)
    bad_act = good.replace("Commissive", "Promise")
    state = StubState(replies=[bad_act, good, good])
    with serve(state) as url:
        report = asyncio.run(
            build_items(_stub_model(url), ["タイマーの場面", "同じ場面"], attempts=2)
        )
    assert len(report.items) == 1 and report.duplicates == 1 and not report.failures
    assert report.items[0].id == "gen0001"


def test_parse_item_and_instructions(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="scenario_context"):
        parse_item('{"input": {"text": "a"}}')
    instructions = read_instructions(sample_path("da_response/scenarios.txt"))
    assert len(instructions) >= 10 and not any(i.startswith("#") for i in instructions)


def test_offline_tagger() -> None:
    assert split_sentences('英語では "Can I get the check?" と言います。次にどうぞ！') == [
        '英語では "Can I get the check?" と言います。',
        "次にどうぞ！",
    ]
    seq = default_annotator().annotate(
        "3分タイマーかけて", "3分のタイマーをセットしました。名前を付けますか？"
    )
    assert seq.acts == ["Commissive", "Question"]
    assert sum(s.importance for s in seq.steps) == pytest.approx(1.0)
    assert seq.steps[0].importance > seq.steps[1].importance


def test_split_sentences_of_an_unpunctuated_transcript() -> None:
    # a speech assistant's reply: sentences end at a space after a sentence-final kana, but a
    # short opener (はい) stays with its sentence and a space inside Latin text splits nothing
    assert split_sentences("タイマーをセットしました 名前を付けますか") == [
        "タイマーをセットしました",
        "名前を付けますか",
    ]
    assert split_sentences("はい 持っていったほうがいいです") == ["はい 持っていったほうがいいです"]
    # a sentence the next one starts with a number after (issue 26)
    assert split_sentences("いつもの温度でいいですか 15分ほどで沸きます") == [
        "いつもの温度でいいですか",
        "15分ほどで沸きます",
    ]
    assert split_sentences("明日は 3時から") == ["明日は 3時から"]
    assert split_sentences("`a[::-1]` か `reversed(a)` を使います。") == [
        "`a[::-1]` か `reversed(a)` を使います。"
    ]
    assert split_sentences("予定は2件です。\n- 10時 会議\n- 15時 歯医者") == [
        "予定は2件です。",
        "- 10時 会議",
        "- 15時 歯医者",
    ]
