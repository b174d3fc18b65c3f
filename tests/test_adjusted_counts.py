"""Adjusted classify-and-count (issue 26): on synthetic data with a known act distribution and
a known tagger confusion, the corrected DAE, shares and DAMI are unbiased where the raw ones
are not, the joint bootstrap covers the truth, and da-distribution reports the corrected
figures beside the raw ones with the validation set named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli import taiwa_main
from taiwa.metrics.adjusted_counts import (
    adjusted_joint,
    adjusted_shares,
    confusion_counts,
    confusion_from_table,
    entropy_bits,
    misclassification,
    mutual_information_bits,
)
from taiwa.metrics.corrected_estimates import adjusted_estimates

K = 6
TRUE = np.array([0.35, 0.25, 0.15, 0.1, 0.1, 0.05])


def _confusion() -> np.ndarray:
    """A tagger that calls 30 % of everything act 0 and mixes acts 1 and 2 up."""
    m = np.eye(K) * 0.6
    m[:, 0] += 0.3
    m[1, 2] += 0.1
    m[2, 1] += 0.1
    m[3:, 4] += 0.1
    m[0, 0] = 0.9
    m[0, 5] = 0.1
    return m / m.sum(axis=1, keepdims=True)


def _tag(rng: np.random.Generator, gold: np.ndarray, m: np.ndarray) -> np.ndarray:
    cum = m.cumsum(axis=1)[gold]
    return (rng.random(gold.size)[:, None] > cum).sum(axis=1).clip(0, K - 1)


def _validation(rng: np.random.Generator, m: np.ndarray, n: int = 3000) -> np.ndarray:
    gold = rng.integers(0, K, n)
    out = np.zeros((K, K), dtype=np.int64)
    np.add.at(out, (gold, _tag(rng, gold, m)), 1)
    return out


def test_corrected_dae_and_shares_are_unbiased_where_raw_ones_are_not() -> None:
    rng = np.random.default_rng(7)
    m = _confusion()
    truth = float(entropy_bits(TRUE))
    raw_err, fixed_err, share_err = [], [], []
    for _ in range(150):
        gold = rng.choice(K, size=4000, p=TRUE)
        counts = np.bincount(_tag(rng, gold, m), minlength=K)[None, :]
        p = adjusted_shares(counts, misclassification(_validation(rng, m)))[0]
        raw_err.append(float(entropy_bits(counts[0] / counts.sum())) - truth)
        fixed_err.append(float(entropy_bits(p)) - truth)
        share_err.append(p - TRUE)
    assert abs(np.mean(fixed_err)) < 0.01
    assert np.mean(raw_err) < -0.1
    assert np.abs(np.mean(share_err, axis=0)).max() < 0.005


def test_corrected_dami_is_unbiased_where_raw_is_not() -> None:
    rng = np.random.default_rng(3)
    m = _confusion()
    # the reply repeats the previous act 60 % of the time, else follows TRUE
    joint = 0.6 * np.diag(TRUE) + 0.4 * np.outer(TRUE, TRUE)
    truth = float(mutual_information_bits(joint[None])[0])
    raw_err, fixed_err = [], []
    for _ in range(60):
        cells = rng.choice(K * K, size=6000, p=joint.ravel())
        prev, gold = np.divmod(cells, K)
        tagged = np.zeros((1, K, K))
        np.add.at(tagged[0], (prev, _tag(rng, gold, m)), 1)
        fixed = adjusted_joint(tagged, misclassification(_validation(rng, m)))
        raw_err.append(float(mutual_information_bits(tagged)[0]) - truth)
        fixed_err.append(float(mutual_information_bits(fixed)[0]) - truth)
    assert abs(np.mean(fixed_err)) < 0.03
    assert np.mean(raw_err) < -0.15


def test_joint_bootstrap_covers_the_truth() -> None:
    rng = np.random.default_rng(11)
    m = _confusion()
    truth = float(entropy_bits(TRUE))
    covered = 0
    for draw in range(20):
        gold = rng.choice(K, size=800, p=TRUE)
        est = adjusted_estimates(
            _tag(rng, gold, m).tolist(), _validation(rng, m, 600), seed=draw, n_resamples=300
        )
        covered += est.entropy.low <= truth <= est.entropy.high
        assert est.n_validation == 600 and est.entropy.n == 800
    assert covered >= 17


def test_a_perfect_tagger_changes_nothing() -> None:
    """The shares are the counted ones; the entropy moves only by the small-sample bias of a
    plug-in entropy of 100 items over 3 acts (Miller-Madow: (3 − 1) / (2 · 100 · ln 2) =
    0.014 bits), which the bias correction adds back."""
    counts = np.array([[30, 10, 0, 60]])
    p = adjusted_shares(counts, np.eye(4))
    assert np.allclose(p, counts / 100)
    est = adjusted_estimates([0] * 30 + [1] * 10 + [3] * 60, np.eye(4, dtype=np.int64) * 50)
    assert [x.value for x in est.shares] == pytest.approx([0.3, 0.1, 0.0, 0.6], abs=1e-3)
    plug_in = float(entropy_bits(counts[0] / 100))
    assert est.entropy_plug_in == pytest.approx(plug_in, abs=2e-3)
    assert 0.0 < est.entropy.value - plug_in < 0.03


def test_confusion_helpers() -> None:
    labels = ["a", "b", "c"]
    c = confusion_counts(["a", "a", "b", "x"], ["a", "b", "b", "a"], labels)
    assert c.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 0]]
    table = {"a": {"a": 1, "b": 1, "∅": 4}, "b": {"b": 1}}
    assert confusion_from_table(table, labels).tolist() == c.tolist()
    m = misclassification(c)
    assert np.allclose(m.sum(axis=1), 1) and m[2].tolist() == [0.0, 0.0, 1.0]


# ------------------------------------------------------------------------ in da-distribution


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corr") / "run"
    r = taiwa_main(
        "run", "da-distribution", "-m", "builtin:parrot", "-m", "human", "--limit", "80",
        "--out", str(out), "--no-cache", "-o", "consistency_repetitions=100",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "DAE corr." in r.stdout and "realchat_heldout.jsonl" in r.stdout
    return out


def test_the_default_tagger_reports_corrected_beside_raw(run_dir: Path) -> None:
    s = json.loads((run_dir / "summary.json").read_text("utf-8"))
    v = s["across"]["tagger_validation"]
    assert "tagger_validation_systems" not in s["across"]  # no system-style split yet
    assert v["style"] == "real chat" and v["n"] >= 600
    assert "realchat_heldout.jsonl" in v["name"]
    human = s["systems"]["human"]
    for key in ("dae", "dami"):
        c = human["corrected"][key]
        assert c["ci_low"] <= c["value"] <= c["ci_high"] and c["n"] == human["dae"]["n"]
    assert sum(x["value"] for x in human["corrected"]["shares"].values()) == pytest.approx(1)
    # the bias-corrected DAMI sits below the plug-in of the same corrected table
    assert human["corrected"]["dami"]["value"] < human["corrected"]["dami"]["plug_in"]
    assert s["systems"]["builtin:parrot"]["corrected"]["dae"]["value"] < 0.01


def test_the_default_confusion_is_the_shipped_models_on_real_chat() -> None:
    """Computed at run time from the shipped model on the real-chat held-out split, so it
    cannot go stale when the model changes."""
    from taiwa.annotators.da_classifier.model import default_classifier
    from taiwa.benchmarks.da_distribution.correction import (
        REAL_CHAT,
        default_validations,
        style_set,
    )
    from taiwa.core.taxonomies import load_taxonomy

    tax = load_taxonomy("chitchat11")
    v = default_validations(tax, default_classifier().tag_many)
    held, _ = style_set(REAL_CHAT)
    assert int(v.human.confusion.sum()) == len(held) and v.human.style == REAL_CHAT
    pred = default_classifier().tag_many([e.context for e in held], [e.reply for e in held])
    assert v.human.confusion.trace() == sum(p == e.act for p, e in zip(pred, held, strict=True))


def test_a_user_validation_file_and_a_validate_report(tmp_path: Path) -> None:
    gold = tmp_path / "gold.jsonl"
    rows = [
        {"id": "g1", "context": "おはよう", "reply": "おはようございます", "act": "あいさつ"},
        {"id": "g2", "context": "明日どうする？", "reply": "映画でも見に行こうよ", "act": "提案"},
        {"id": "g3", "context": "駅まで遠い？", "reply": "歩いて十分くらいかな", "act": "知識"},
    ]
    gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    report = tmp_path / "report.json"
    r = taiwa_main(
        "validate", "tagger", "--tagger", "default", "--data", str(gold), "--json", str(report)
    )
    assert r.returncode == 0, r.stderr
    for path, name in ((gold, str(gold)), (report, "taiwa validate tagger")):
        out = tmp_path / f"run-{path.stem}"
        r = taiwa_main(
            "run", "da-distribution", "-m", "human", "--limit", "20", "--out", str(out),
            "-o", f"tagger_validation={path}", "-o", "consistency_repetitions=10", "-q",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        s = json.loads((out / "summary.json").read_text("utf-8"))
        v = s["across"]["tagger_validation"]
        assert name in v["name"] and v["n"] == 3


def test_a_bad_validation_file_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "gold.jsonl"
    bad.write_text('{"id": "1", "context": "a", "reply": "b", "act": "挨拶もどき"}\n', "utf-8")
    r = taiwa_main(
        "run", "da-distribution", "-m", "human", "-o", f"tagger_validation={bad}", "-q"
    )  # fmt: skip
    assert r.returncode == 2
    assert f"{bad}:1" in r.stderr and "act" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_gold_human_acts_are_not_corrected(tmp_path: Path) -> None:
    out = tmp_path / "run"
    r = taiwa_main(
        "run", "da-distribution", "-m", "human", "-m", "builtin:parrot", "--limit", "20",
        "--out", str(out), "-o", "human_acts=labels", "-o", "consistency_repetitions=10", "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    s = json.loads((out / "summary.json").read_text("utf-8"))
    assert "corrected" not in s["systems"]["human"]
    assert "corrected" in s["systems"]["builtin:parrot"]


def test_the_default_taggers_validation_is_tagged_once_and_handed_out_as_copies() -> None:
    """The shipped tagger's validations are computed once per process: the same counts as
    tagging them now, and each run gets its own arrays."""
    from taiwa.benchmarks.da_distribution import DADistributionOptions
    from taiwa.benchmarks.da_distribution.correction import default_validations, run_validations
    from taiwa.benchmarks.da_distribution.tagging import DEFAULT, load_classifier
    from taiwa.core.taxonomies import load_taxonomy

    options = DADistributionOptions()
    first, second = run_validations(DEFAULT, options), run_validations(DEFAULT, options)
    assert first is not None and second is not None
    taxonomy = load_taxonomy(options.taxonomy)
    fresh = default_validations(taxonomy, load_classifier(None, taxonomy).tag_many)
    for got in (first, second):
        assert (got.human.name, got.human.lengths) == (fresh.human.name, fresh.human.lengths)
        assert np.array_equal(got.human.confusion, fresh.human.confusion)
        assert got.systems_style == fresh.systems_style
    first.human.confusion[0, 0] += 1
    assert not np.array_equal(first.human.confusion, second.human.confusion)


def test_the_run_flags_what_the_simulation_does_not_vouch_for(run_dir: Path) -> None:
    """80 replies are below the correction's floor (both systems); the parrot's replies are
    corrected through the real-chat split, of another style, while the package has no
    system-style split; Table 2 shows the corrected columns with the marks."""
    from taiwa.benchmarks.da_distribution.tables import table2
    from taiwa.display.cells import clip
    from taiwa.metrics.correction_flags import CORRECTION_N, VALIDATION_STYLE

    s = json.loads((run_dir / "summary.json").read_text("utf-8"))
    human = {(f["on"], f["code"]) for f in s["systems"]["human"]["flags"]}
    parrot = {(f["on"], f["code"]) for f in s["systems"]["builtin:parrot"]["flags"]}
    assert ("corrected.dae", CORRECTION_N) in human and ("corrected.dae", CORRECTION_N) in parrot
    assert ("corrected.dae", VALIDATION_STYLE) in parrot
    assert ("corrected.dae", VALIDATION_STYLE) not in human
    t = table2(s)
    heads = [c.header for c in t.columns]
    assert heads[-2:] == ["DAE corr.", "DAMI corr."]
    cells = {clip(s_): i for i, s_ in enumerate(s["systems"])}
    corrected_cell = t.columns[-2]._cells[cells["human"]]
    assert "⚑" in corrected_cell
