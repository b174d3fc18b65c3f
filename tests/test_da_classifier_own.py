"""``taiwa da train`` without ``--base``: the default recipe on a user's labelled utterances,
then ``taiwa validate tagger --tagger DIR`` and ``--tagger DIR`` in a run (issue 26, point 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import taiwa
from taiwa.annotators.da_classifier_own import FORMAT, is_own, load_own, train_own
from taiwa.annotators.da_classifier_recipe import CHAT_TRAIN_PATH, bundled


@pytest.fixture(scope="module")
def data_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A user's labelled file (the first 60 chat-style dialogues) and a held-out one (the
    next 12)."""
    rows = bundled(CHAT_TRAIN_PATH)
    dialogues = sorted({e.id.rsplit("-", 1)[0] for e in rows})
    train = [e for e in rows if e.id.rsplit("-", 1)[0] in set(dialogues[:60])]
    held = [e for e in rows if e.id.rsplit("-", 1)[0] in set(dialogues[60:72])]
    base = tmp_path_factory.mktemp("own")
    paths = base / "mine.jsonl", base / "held.jsonl"
    for path, part in zip(paths, (train, held), strict=True):
        path.write_text(
            "".join(
                json.dumps(
                    {"id": e.id, "context": e.context, "reply": e.reply, "act": e.act},
                    ensure_ascii=False,
                )
                + "\n"
                for e in part
            ),
            "utf-8",
        )
    return paths


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, data_files: tuple[Path, Path]) -> Path:
    out = tmp_path_factory.mktemp("tagger") / "mine"
    proc = taiwa("da", "train", "--data", str(data_files[0]), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "← chosen" in proc.stdout and "temperature" in proc.stdout
    return out


def test_train_writes_a_loadable_tagger(trained: Path, data_files: tuple[Path, Path]) -> None:
    meta = json.loads((trained / "taiwa_da.json").read_text("utf-8"))
    assert meta["format"] == FORMAT and is_own(trained)
    assert meta["training_data"]["path"] == str(data_files[0])
    n = len(data_files[0].read_text("utf-8").splitlines())
    assert meta["training_data"]["n"] == meta["training"]["n_fit"] == n
    tagger = load_own(trained)
    assert tagger.name == "classifier:mine"
    assert tagger.temperature == meta["calibration"]["temperature"]
    assert tagger.tag_many(["明日ひま？"], ["ひまひま"])[0] in tagger.acts


def test_validate_and_run_with_the_trained_tagger(
    trained: Path, data_files: tuple[Path, Path], tmp_path: Path
) -> None:
    report_path = tmp_path / "report.json"
    proc = taiwa(
        "validate", "tagger", "--tagger", str(trained), "--data", str(data_files[1]),
        "--json", str(report_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(report_path.read_text("utf-8"))
    block = report["sets"][str(data_files[1])]
    mine = block["labels"]["classifier:mine"]
    assert mine["n"] == len(data_files[1].read_text("utf-8").splitlines())
    assert set(block["labels"]) == {
        "classifier:mine",
        "char-n-gram LR (same data)",
        *(k for k in block["labels"] if k.startswith("majority act")),
    }
    assert sum(c["predicted"] for c in block["counts"].values()) == mine["n"]
    assert f"{mine['macro_f1_ci']['value']:.3f}" in proc.stdout
    data = tmp_path / "ctx.jsonl"
    rows = [{"id": f"c{k}", "context": f"昨日は{k}時まで起きてたよ"} for k in range(4)]
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    out = tmp_path / "run"
    run = taiwa(
        "run", "da-distribution", "-m", "builtin:parrot", "--tagger", str(trained),
        "--data", str(data), "--out", str(out), "--no-cache", "-q",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    assert summary["systems"]["builtin:parrot"]["tagged"] == 4
    assert summary["across"]["tagger"]["kind"] == "classifier (taiwa da train)"


def test_too_little_data_is_one_line(tmp_path: Path) -> None:
    rows = bundled(CHAT_TRAIN_PATH)[:5]
    with pytest.raises(Exception, match="too few examples"):
        train_own(rows, tmp_path / "o", sha256="x", data_path="tiny.jsonl")


def test_char_ngram_flag_trains_the_fast_tagger(
    tmp_path: Path, data_files: tuple[Path, Path]
) -> None:
    """``--char-ngram``: the reply's character n-grams only (no MeCab pass, no vectors), the
    README's faster option; it loads and tags like any ``--tagger DIR``."""
    out = tmp_path / "fast"
    proc = taiwa("da", "train", "--char-ngram", "--data", str(data_files[0]), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((out / "taiwa_da.json").read_text("utf-8"))
    assert meta["training"]["features"] == "char-ngram"
    tagger = load_own(out)
    s = tagger.featurizer.settings
    assert not (s.use_vectors or s.use_context or s.use_extras or s.word_bits or s.casual)
    assert tagger.tag_many(["明日ひま？"], ["ひまひま"])[0] in tagger.acts
