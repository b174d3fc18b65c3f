"""Annotators you can trust (issue 16): the offline assistant7 annotator, ``taiwa validate``,
repairs of LLM annotations counted by kind, bad gold files refused with one line."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from taiwa.annotators.steps_json import DROPPED_UNKNOWN_ACT, RENORMALISED, parse_steps
from taiwa.annotators.validation import Pair, sequence_report
from taiwa.benchmarks import get_method
from taiwa.benchmarks.da_response import shipped_annotator
from taiwa.benchmarks.da_response.validate import validate_annotator
from taiwa.core.samples import sample_path
from taiwa.core.schema import DASequence, DAStep
from taiwa.core.taxonomies import load_taxonomy
from taiwa.harness.config import RunConfig
from taiwa.harness.runner import run
from taiwa.testing.stub_server import StubState, serve

TAX = load_taxonomy("assistant7")
ROOT = Path(__file__).resolve().parents[1]


def _taiwa(*args: str) -> subprocess.CompletedProcess[str]:
    env_path = str(ROOT / "src")
    return subprocess.run(
        [sys.executable, "-m", "taiwa", *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": env_path, "COLUMNS": "200", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


def test_parse_steps_counts_repairs_by_kind() -> None:
    text = json.dumps(
        {
            "steps": [
                {"act": "Answer", "importance": 0.5},
                {"act": "Banter", "importance": 0.1},
                {"act": "Suggestion", "importance": 0.2},
            ]
        }
    )
    parsed = parse_steps(text, TAX)
    assert parsed.sequence.acts == ["Answer", "Suggestion"]
    assert parsed.repairs == {DROPPED_UNKNOWN_ACT: 1, RENORMALISED: 1}
    assert sum(s.importance for s in parsed.sequence.steps) == pytest.approx(1.0)
    exact = parse_steps('{"steps": [{"act": "Answer", "importance": 1.0}]}', TAX)
    assert exact.repairs == {}


def test_run_summary_counts_renormalised_llm_output(tmp_path: Path) -> None:
    # the LLM tagger's importances sum to 0.7: accepted, renormalised, and counted
    seventy = json.dumps(
        {
            "steps": [
                {"act": "Commissive", "importance": 0.5},
                {"act": "Question", "importance": 0.2},
            ]
        }
    )
    gold = sample_path("da_response/gold.jsonl")
    first = gold.read_text("utf-8").splitlines()[0]
    data = tmp_path / "ds.jsonl"
    data.write_text(first + "\n", "utf-8")
    replies = tmp_path / "replies.jsonl"
    rid = json.loads(first)["id"]
    replies.write_text(json.dumps({"id": rid, "text": "セットしました。"}) + "\n", "utf-8")
    state = StubState(replies=["だめ", seventy])
    with serve(state) as url:
        res = run(
            RunConfig(
                method="da-response",
                models=[f"replay:{replies}"],
                roles={"annotator": "openai:stub"},
                base_url=url,
                max_retries=0,
                data=data,
                out=tmp_path / "run",
                cache_dir=tmp_path / "c",
            ),
            get_method("da-response"),
            show_progress=False,
        )
    [calls] = [c for c in res.summary["calls"] if c["role"] == "annotator"]
    assert calls["repairs"] == {RENORMALISED: 1, "re_asked": 1}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text("utf-8"))
    [stored] = [c for c in summary["calls"] if c["role"] == "annotator"]
    assert stored["repairs"] == {RENORMALISED: 1, "re_asked": 1}
    assert summary["across"]["annotator"] == {"spec": "openai:stub", "validated": None}


def test_sequence_report_alignment_counts_omissions() -> None:
    gold = DASequence(
        steps=[DAStep(act="Answer", importance=0.8), DAStep(act="Question", importance=0.2)]
    )
    pred = DASequence(steps=[DAStep(act="Answer", importance=1.0)])
    r = sequence_report([Pair(pred, gold), Pair(None, gold)], TAX.names)
    assert r["failed"] == 1 and r["n_steps"] == 4
    assert r["per_act"]["Answer"]["recall"] == pytest.approx(0.5)
    assert r["per_act"]["Answer"]["precision"] == pytest.approx(1.0)
    assert r["confusion"]["Question"]["∅"] == 2
    assert r["wed"]["value"] == pytest.approx((0.2 + 1.0) / 2)
    assert r["exact_sequence"]["value"] == 0.0


def test_shipped_offline_annotator_meets_the_issue_targets() -> None:
    meta = shipped_annotator.default_annotator().classifier.meta
    raw = sample_path(shipped_annotator.TRAIN).read_bytes()
    assert meta["training_data"]["sha256"] == hashlib.sha256(raw).hexdigest()
    assert meta["taxonomy"] == "assistant7" and meta["features"]["use_position"]
    held = meta["held_out"]
    name = held["annotator"]
    seq, ranking = held["sequence"], held["ranking"]
    baselines = [k for k in seq if k != name]
    assert len(baselines) == 2
    for b in baselines:
        assert seq[name]["macro_f1"] >= seq[b]["macro_f1"] + 0.2
        assert ranking[name]["all"]["wins"] > ranking[b]["all"]["wins"]
    assert seq[name]["wed"]["value"] <= 0.06
    assert seq[name]["macro_f1"] >= 0.94
    # 79 of 79 before issue 38's retraining; it loses av033 (a road described in reply to
    # 大丈夫？, labelled Inform here, read as Answer) and wins three varied pairs
    # (docs/da-response.md)
    assert ranking[name]["all"]["gold_first"]["n"] == 79
    assert ranking[name]["all"]["wins"] >= 78 and ranking[name]["all"]["ties"] == 0
    assert set(seq[name]["per_act"]) == set(TAX.names)
    assert held["files"] == [shipped_annotator.HELD_OUT, shipped_annotator.ALTERNATIVES]


def test_offline_annotator_on_the_varied_split() -> None:
    """Issue 26: on the held-out replies written in more varied styles than the training set
    (casual, polite, unpunctuated speech, questions ending in か。 or nothing, lists), Question
    recall is at least 0.9 and gold beats its flawed variants in at least 59 of 60 pairs (the
    60th, 今日は水曜日です for the time, ties for any text classifier; 56 wins before issue 38's
    retraining, docs/da-response.md); macro-F1 at least 0.87 and mean WED at most 0.11; the
    figures are computed here, from the shipped annotator."""
    report = validate_annotator("offline", shipped_annotator.split_files("varied"))
    name = report["annotator"]
    seq = report["sequence"][name]
    question = seq["per_act"]["Question"]
    assert question["support"] >= 25
    assert question["recall"] >= 0.9, question
    assert seq["macro_f1"] >= 0.87 and seq["wed"]["value"] <= 0.11, seq["wed"]
    ranking = report["ranking"][name]["all"]
    pairs = ranking["wins"] + ranking["ties"] + ranking["losses"]
    assert pairs == 60
    assert ranking["wins"] >= 59 and ranking["losses"] == 0, ranking
    for baseline in (k for k in report["sequence"] if k != name):
        assert seq["macro_f1"] >= report["sequence"][baseline]["macro_f1"] + 0.2
    shipped = shipped_annotator.default_annotator().classifier.meta["held_out_varied"]
    assert shipped["files"] == list(shipped_annotator.SPLITS["varied"])
    assert shipped["ranking"][name]["all"] == ranking


def test_offline_annotator_on_the_probe_split() -> None:
    """Issue 38: on pairs written apart from the training set (a content-free reaction in place
    of an answer or an action; gold replies made of two questions beside a left-out, offered or
    decided one), gold is ranked first in every pair; computed here, and as the sidecar says."""
    report = validate_annotator("offline", shipped_annotator.split_files("probe"))
    name = report["annotator"]
    ranking = report["ranking"][name]["all"]
    assert ranking["gold_first"]["n"] >= 60
    assert ranking["wins"] == ranking["gold_first"]["n"], ranking
    for baseline in (k for k in report["ranking"] if k != name):
        assert report["ranking"][baseline]["all"]["wins"] < ranking["wins"]
    shipped = shipped_annotator.default_annotator().classifier.meta["held_out_probe"]
    assert shipped["files"] == list(shipped_annotator.SPLITS["probe"])
    assert shipped["ranking"][name]["all"] == ranking


def test_validate_reports_each_bundled_split_apart() -> None:
    from taiwa.benchmarks.da_response.validate import format_report, validate_by_split

    files = shipped_annotator.split_files("tidy") + shipped_annotator.split_files("varied")
    report = validate_by_split("offline", files)
    assert report["split"] == "tidy" and list(report["splits"]) == ["varied"]
    assert report["files"] == [str(p) for p in shipped_annotator.split_files("tidy")]
    varied = report["splits"]["varied"]
    assert varied["files"] == [str(p) for p in shipped_annotator.split_files("varied")]
    assert varied["sequence"] != report["sequence"]
    text = format_report(report)
    for split in ("tidy", "varied"):
        assert f"({split} held-out split)" in text
    single = validate_by_split("offline", shipped_annotator.split_files("varied"))
    assert single["split"] == "varied" and "splits" not in single


def test_validate_reproduces_the_shipped_figures() -> None:
    report = validate_annotator("offline", shipped_annotator.held_out_files())
    shipped = shipped_annotator.default_annotator().classifier.meta["held_out"]
    name = report["annotator"]
    assert report["sequence"][name]["wed"] == pytest.approx(shipped["sequence"][name]["wed"])
    assert report["ranking"][name]["all"] == shipped["ranking"][name]["all"]
    assert report["sequence"][name]["macro_f1_ci"] == shipped["sequence"][name]["macro_f1_ci"]


def test_cli_validate_annotator_prints_tables_and_baselines(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    heldout = str(sample_path(shipped_annotator.HELD_OUT))
    alts = str(sample_path(shipped_annotator.ALTERNATIVES))
    res = _taiwa(
        "validate",
        "annotator",
        "--annotator",
        "offline",
        "--data",
        heldout,
        "--data",
        alts,
        "--json",
        str(out),
    )
    assert res.returncode == 0, res.stderr
    for text in (
        "per act",
        "confusion",
        "majority act per sentence",
        "one Inform per sentence",
        "gold ranked first",
        "Commissive",
        "missing",
        "substituted",
    ):
        assert text in res.stdout, text
    report = json.loads(out.read_text("utf-8"))
    assert report["method"] == "da-response" and report["spec"] == "offline"


def test_cli_validate_tagger_beside_majority() -> None:
    res = _taiwa("validate", "tagger")
    assert res.returncode == 0, res.stderr
    assert "majority act" in res.stdout and "macro-F1" in res.stdout
    assert "⚑" not in res.stdout  # 245 and 677 labelled utterances


def test_cli_validate_on_a_handful_of_items_says_so(tmp_path: Path) -> None:
    """Five labelled utterances: every macro-F1 and accuracy cell is marked ⚑ and one line
    under the tables says why (fewer than 10 items)."""
    held_out = sample_path("da_distribution/chatstyle_heldout.jsonl").read_text("utf-8")
    tiny = tmp_path / "tiny.jsonl"
    tiny.write_text("".join(held_out.splitlines(True)[:5]), "utf-8")
    res = _taiwa("validate", "tagger", "--data", str(tiny))
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("⚑") >= 6  # macro-F1 and accuracy of the tagger and 2 baselines
    assert "⚑ validation · sets: n=5, below 10" in " ".join(res.stdout.split())


def _alt_item(**over: object) -> dict[str, object]:
    def variant(kind: str, text: str, steps: list[dict[str, object]]) -> dict[str, object]:
        return {
            "kind": kind,
            "output": {"role": "ASSISTANT", "text": text},
            "output_dialogue_acts": {"steps": steps},
        }

    item: dict[str, object] = {
        "id": "zz1",
        "scenario_context": {"background": "料理中。"},
        "input": {"role": "USER", "text": "3分タイマーかけて", "locale": "ja-JP"},
        "alternatives": [
            variant("gold", "セットしました。", [{"act": "Commissive", "importance": 1.0}]),
            variant("missing", "はい。", [{"act": "Answer", "importance": 1.0}]),
        ],
    }
    item.update(over)
    return item


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (
            lambda i: i["alternatives"][0]["output_dialogue_acts"]["steps"][0].update(act="Banter"),
            "alternatives[0].output_dialogue_acts.steps[0].act",
        ),
        (
            lambda i: i["alternatives"][1]["output_dialogue_acts"]["steps"][0].update(
                importance=-0.5
            ),
            "alternatives[1].output_dialogue_acts.steps[0].importance",
        ),
        (
            lambda i: i["alternatives"][0]["output_dialogue_acts"]["steps"][0].update(importance=0),
            "alternatives[0].output_dialogue_acts.steps",
        ),
        (lambda i: i.update(alternatives=[]), "alternatives"),
        (lambda i: i["alternatives"].pop(0), "alternatives"),
    ],
)
def test_bad_gold_file_is_one_line_naming_file_line_field(
    tmp_path: Path, mutate: object, field: str
) -> None:
    good = _alt_item(id="zz0")
    bad = _alt_item()
    mutate(bad)  # type: ignore[operator]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in (good, bad)), "utf-8")
    res = _taiwa("validate", "annotator", "--data", str(path))
    assert res.returncode == 2
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr
    assert f"{path}:2" in lines[0] and f"field '{field}'" in lines[0]


def test_run_summary_names_the_offline_annotator_and_its_figures(tmp_path: Path) -> None:
    res = run(
        RunConfig(method="da-response", models=["builtin:fixed"], limit=2, out=tmp_path / "r"),
        get_method("da-response"),
        show_progress=False,
    )
    ann = res.summary["across"]["annotator"]
    held = shipped_annotator.default_annotator().classifier.meta["held_out"]
    assert ann["spec"] == "offline" and ann["name"] == held["annotator"]
    assert ann["validated"]["macro_f1"] == held["sequence"][held["annotator"]]["macro_f1"]
    assert (
        ann["validated"]["gold_first"]["n"]
        == held["ranking"][held["annotator"]]["all"]["gold_first"]["n"]
    )
    assert ann["validated"]["files"] == ["heldout.jsonl", "alternatives.jsonl"]
    assert ann["validated_varied"]["files"] == [
        "varied_heldout.jsonl",
        "varied_alternatives.jsonl",
    ]
    assert ann["validated_probe"]["files"] == ["probe_alternatives.jsonl"]


def test_validate_llm_annotator_counts_its_repairs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = sample_path("da_response/gold.jsonl").read_text("utf-8").splitlines()[0]
    data = tmp_path / "gold.jsonl"
    data.write_text(first + "\n", "utf-8")
    unknown = json.dumps(
        {"steps": [{"act": "Promise", "importance": 0.2}, {"act": "Commissive", "importance": 0.8}]}
    )
    state = StubState(replies=["だめ", unknown])
    with serve(state) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        report = validate_annotator("openai:stub", [data])
    # the dropped step leaves 0.8: renormalised too
    assert report["repairs"] == {"re_asked": 1, DROPPED_UNKNOWN_ACT: 1, RENORMALISED: 1}
    main = report["sequence"]["openai:stub"]
    assert main["failed"] == 0 and main["exact_sequence"]["value"] == 1.0


def test_shipped_assistant7_weights_minimise_their_training_problem() -> None:
    # the full rebuild (`python -m taiwa.benchmarks.da_response.offline --check`) takes minutes;
    # here: the training problem rebuilt from the bundled file has the shipped idf, the shipped
    # weights sit at its minimum (gradient ~ 0, the recorded loss) and the importance model
    # refitted from the file is the shipped one
    import numpy as np

    from taiwa.annotators.da_classifier.features import FeatureSettings
    from taiwa.annotators.da_classifier.model import final_problem
    from taiwa.annotators.sentence_annotator import ImportanceModel, sentence_examples
    from taiwa.benchmarks.da_response.labelled import load_labelled

    shipped = shipped_annotator.default_annotator()
    replies, _ = load_labelled([sample_path(shipped_annotator.TRAIN)])
    training = shipped.classifier.meta["training"]
    settings = FeatureSettings(**shipped.classifier.meta["features"])
    assert settings == shipped.classifier.featurizer.settings
    feat, objective = final_problem(
        sentence_examples(replies), list(shipped.classifier.acts), settings, training["l2"]
    )
    np.testing.assert_array_equal(
        feat.idf_reply.astype(np.float32), shipped.classifier.featurizer.idf_reply
    )
    loss, grad = objective(objective.theta(shipped.classifier.model))
    assert loss == pytest.approx(training["optimizer"]["loss"], rel=1e-5)
    assert np.abs(grad).max() < 1e-6
    _, off = objective(objective.theta(shipped.classifier.model) * 0.99)
    assert np.abs(off).max() > np.abs(grad).max() * 5
    refit = json.loads(json.dumps(ImportanceModel.fit(replies).to_json()))
    assert refit == shipped.classifier.meta["importance"]


def test_confusion_table_numbers_its_columns_and_fits_80_columns() -> None:
    """Eleven Japanese act names as column heads would not fit a terminal: the columns are
    numbered, each row says its number and name, ∅ keeps its sign, empty gold rows go."""
    import io

    from rich.console import Console

    from taiwa.display.tables import confusion_table

    acts = ["あいさつ", "うなずき・おうむ返し", "身の回りに関する事実", "その他", "∅"]
    conf = {g: {p: (3 if g == p else 1) for p in acts} for g in acts[:3]}
    conf["その他"] = dict.fromkeys(acts, 0)
    conf["∅"] = {p: int(p == "その他") for p in acts}
    out = io.StringIO()
    Console(file=out, width=80).print(confusion_table(conf))
    lines = out.getvalue().splitlines()
    assert all(len(line.rstrip()) <= 80 for line in lines)
    assert "∅ = none" in out.getvalue()
    head = next(line for line in lines if line.startswith("gold"))
    assert head.split()[-5:] == ["1", "2", "3", "4", "∅"]
    rows = {line.split()[1] if line[0].isdigit() else line.split()[0]: line.split()[-5:]
            for line in lines if line[:1].isdigit() or line.startswith("∅")}  # fmt: skip
    assert rows == {
        "あいさつ": ["3", "1", "1", "1", "1"],
        "うなずき・おうむ返し": ["1", "3", "1", "1", "1"],
        "身の回りに関する事実": ["1", "1", "3", "1", "1"],
        "∅": ["0", "0", "0", "1", "0"],
    }  # その他 never occurs as gold: no row


def test_sentence_endings_share_a_question_however_it_is_punctuated() -> None:
    from taiwa.annotators.da_classifier.endings import ending_columns, ending_keys

    forms = ["何時にしますか？", "何時にしますか。", "何時にしますか"]
    keys = [set(ending_keys(f)) for f in forms]
    shared = keys[0] & keys[1] & keys[2]
    assert {"sfx1:か", "sfx3:ますか", "wh", "wh_last_clause"} <= shared
    assert [k for k in keys[0] if k.startswith("end:")] == ["end:?"]
    assert "end:none" in keys[2] and "sfx2|すか|none" in keys[2]
    assert "wh" not in ending_keys("セットしました。")
    cols = ending_columns("セットしました。", "3分タイマーかけて", 10, 1.0)
    assert all(0 <= c < 1024 for c in cols)
    assert sum(v * v for v in cols.values()) == pytest.approx(1.0, abs=0.3)


def test_cross_keys_tell_an_answer_from_a_task_done() -> None:
    """Issue 26: 〜ました after a question (勝った？) and after a request (〜して) share their
    plain ending keys but not their cross keys, nor do first sentences after the two."""
    from taiwa.annotators.da_classifier.endings import cross_keys, ending_columns, ending_keys

    after_question = cross_keys("3対1で勝ちました。", "昨日の試合勝った？", "only")
    after_request = cross_keys("アラームを止めました。", "アラーム止めといて", "only")
    assert after_question == ["x|した|?|た", "xp|only|?|た"]
    assert after_request == ["x|した|none|て", "xp|only|none|て"]
    assert "sfx2:した" in set(ending_keys("3対1で勝ちました。")) & set(
        ending_keys("アラームを止めました。")
    )
    assert cross_keys("はい。", "", "first") == ["x|はい|-", "xp|first|-"]
    plain = ending_columns("勝ちました。", "勝った？", 10, 1.0)
    crossed = ending_columns("勝ちました。", "勝った？", 10, 1.0, "only")
    assert set(plain) <= set(crossed) and crossed != plain
    assert sum(v * v for v in crossed.values()) == pytest.approx(1.0, abs=0.3)


def test_importance_follows_the_classifiers_confidence() -> None:
    """A sentence the classifier is unsure of weighs less (prior × p ** confidence_power),
    weights still sum to 1; power 0 (models saved before) ignores the confidence."""
    from taiwa.annotators.sentence_annotator import ImportanceModel

    model = ImportanceModel({"Answer": 1.0, "Inform": 1.0}, {}, confidence_power=2.0)
    steps = model.steps(["Answer", "Inform"], ["a", "b"], [1.0, 0.5])
    assert [s.importance for s in steps] == pytest.approx([0.8, 0.2])
    flat = ImportanceModel({"Answer": 1.0, "Inform": 1.0}, {}, confidence_power=0.0)
    assert [s.importance for s in flat.steps(["Answer", "Inform"], ["a", "b"], [1.0, 0.5])] == (
        pytest.approx([0.5, 0.5])
    )
    assert [s.importance for s in model.steps(["Answer", "Inform"], ["a", "b"])] == (
        pytest.approx([0.5, 0.5])
    )
    shipped = shipped_annotator.default_annotator()
    assert shipped.importance.confidence_power == 2.0
    assert shipped.annotate("", "").steps == []
