"""The shipped chitchat11 tagger on real recorded chats and on system-style replies (issue 38),
computed here from a real run of the shipped model on the bundled held-out files, and what
``taiwa validate tagger`` reports about them: each split beside its own majority act and the
char-n-gram LR trained on the same data, the two-labeller κ ceiling beside the real-chat split,
the data the tagger was trained and validated on with their licences."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from cli import taiwa_main
from taiwa.annotators.da_classifier import recipe
from taiwa.annotators.da_classifier.model import DAClassifier, default_classifier
from taiwa.annotators.da_classifier.training import class_report

REAL_ACCURACY, REAL_MACRO_F1 = 0.65, 0.50
"""Issue 38's bar on the real-chat held-out split (the hidden 240 real utterances: 0.62 /
0.45)."""
SYSTEM_ACCURACY, SYSTEM_MACRO_F1 = 0.75, 0.70
"""Floors on the system-style held-out split, below the figures reached (docs/tagger.md), so a
model falling back fails (the hidden GPT-3.5/4 replies: 0.55 / 0.40)."""


@pytest.fixture(scope="module")
def shipped() -> DAClassifier:
    return default_classifier()


def _figures(shipped: DAClassifier, name: str) -> dict[str, Any]:
    test = recipe.held_out_sets()[name]
    gold = [e.act for e in test]
    pred = shipped.tag_many([e.context for e in test], [e.reply for e in test])
    report = class_report(gold, pred, list(shipped.acts))
    true_n, pred_n = Counter(gold), Counter(pred)
    print(
        f"\n{name} held-out (n={len(test)}): accuracy {report['accuracy']:.3f}, macro-F1 "
        f"{report['macro_f1']:.3f}; predicted/true "
        + ", ".join(f"{a} {pred_n[a]}/{true_n[a]}" for a in shipped.acts)
    )
    return {"n": len(test), "report": report, "true": true_n, "predicted": pred_n}


@pytest.fixture(scope="module")
def real(shipped: DAClassifier) -> dict[str, Any]:
    return _figures(shipped, recipe.REAL)


@pytest.fixture(scope="module")
def system(shipped: DAClassifier) -> dict[str, Any]:
    return _figures(shipped, recipe.SYSTEM)


def test_real_chat_accuracy_and_macro_f1(real: dict[str, Any]) -> None:
    assert real["n"] >= 600
    assert real["report"]["accuracy"] >= REAL_ACCURACY
    assert real["report"]["macro_f1"] >= REAL_MACRO_F1


@pytest.mark.parametrize("split", ["real", "system"])
def test_no_act_predicted_more_than_twice_as_often_as_it_occurs(
    split: str, request: pytest.FixtureRequest
) -> None:
    """Issue 38: no act predicted more than twice as often as it occurs. An act that never
    occurs in the split may be predicted once (the real-chat split has no その他 and the tagger
    says その他 once, for 「なんていうか、多分磁石の問題っていうか。」, labelled 意見: one error,
    reported as such in docs/tagger.md, not an act the tagger leans to)."""
    figures = request.getfixturevalue(split)
    over = {
        a: (n, figures["true"][a])
        for a, n in figures["predicted"].items()
        if n > max(2 * figures["true"][a], 1)
    }
    assert not over, over


def test_system_style_accuracy_macro_f1_and_questions(system: dict[str, Any]) -> None:
    per = system["report"]["per_class"]
    assert system["report"]["accuracy"] >= SYSTEM_ACCURACY
    assert system["report"]["macro_f1"] >= SYSTEM_MACRO_F1
    # the GPT replies: 質問 recall 3/19, advice 7/31 with the tagger before
    assert per["質問"]["recall"] >= 0.9 and per["アドバイス・注意"]["recall"] >= 0.6


def test_the_recorded_figures_are_the_shipped_models(
    shipped: DAClassifier, real: dict[str, Any], system: dict[str, Any]
) -> None:
    recorded = shipped.meta["held_out_metrics"]
    for name, figures in ((recipe.REAL, real), (recipe.SYSTEM, system)):
        for key in ("accuracy", "macro_f1"):
            assert recorded[name]["default"][key] == pytest.approx(figures["report"][key])
        top = recipe.own_majority(recipe.held_out_sets()[name])
        assert recorded[name]["majority"]["act"] == top


def test_own_majority_is_the_evaluated_sets() -> None:
    sets = recipe.held_out_sets()
    train, _, _ = recipe.training_sets()
    for name, test in sets.items():
        counts = Counter(e.act for e in test)
        assert counts[recipe.own_majority(test)] == max(counts.values()), name
    # the point of it: the system-style split's majority is not the training data's
    assert recipe.own_majority(sets[recipe.SYSTEM]) != recipe.own_majority(train)


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    out = tmp_path_factory.mktemp("validate") / "tagger.json"
    proc = taiwa_main("validate", "tagger", "--tagger", "default", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    return json.loads(Path(out).read_text("utf-8")), proc.stdout


def test_validate_tagger_reports_every_split_beside_its_own_majority(
    validated: tuple[dict[str, Any], str],
) -> None:
    report, stdout = validated
    sets = recipe.held_out_sets()
    assert list(report["sets"]) == [f"{name} bundled held-out split" for name in sets]
    for name, test in sets.items():
        block = report["sets"][f"{name} bundled held-out split"]
        top = recipe.own_majority(test)
        label = f"majority act of this set ({top})"
        assert block["majority_act"] == top and label in block["labels"]
        share = sum(e.act == top for e in test) / len(test)
        assert block["labels"][label]["accuracy"]["value"] == pytest.approx(share)
        assert "char-n-gram LR (same data)" in block["labels"]
        assert top in stdout
    assert "majority act of this set (質問)" in json.dumps(report, ensure_ascii=False)


def test_validate_tagger_prints_the_kappa_ceiling_beside_real_chat(
    validated: tuple[dict[str, Any], str],
) -> None:
    report, stdout = validated
    ceiling = report["sets"][f"{recipe.REAL} bundled held-out split"]["ceiling"]
    assert ceiling["n"] == 241 and ceiling["kappa"] == pytest.approx(0.955, abs=5e-4)
    assert "same kind" in ceiling["note"]
    assert "Cohen's κ 0.955" in stdout and "optimistic" in stdout
    others = [b for k, b in report["sets"].items() if not k.startswith(recipe.REAL)]
    assert all("ceiling" not in b for b in others)


def test_validate_tagger_says_what_the_tagger_was_trained_and_validated_on(
    validated: tuple[dict[str, Any], str],
) -> None:
    report, stdout = validated
    provenance = report["provenance"]
    trained = {row["file"]: row["licence"] for row in provenance["trained_on"]}
    assert set(trained) == set(recipe.TRAINING_FILES)
    assert trained[recipe.REAL_TRAIN_PATH].startswith("CC-BY-SA-4.0")
    assert trained[recipe.DATA_PATH].startswith("Apache-2.0")
    held = {row["split"]: row for row in provenance["validated_on"]}
    assert list(held) == list(recipe.HELD_OUT_FILES)
    assert held[recipe.REAL]["n"] == 721
    for text in (
        "trained and validated on",
        "realchat_train.jsonl",
        "CC-BY-SA-4.0",
        "RealPersonaChat",
    ):
        assert text in stdout, text
