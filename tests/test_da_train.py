"""``taiwa da train`` (seed 002 §5.2) with a tiny randomly initialised BERT and a character
tokenizer built here (no hub, a few seconds on the CPU)."""

from __future__ import annotations

import hashlib
import inspect
import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from cli import taiwa, taiwa_main
from taiwa.annotators.da_classifier.encoder import EncoderTagger, require_hf
from taiwa.annotators.da_classifier.encoder_train import (
    read_training_data,
    split_examples,
    train_encoder,
    validate,
)
from taiwa.annotators.da_classifier.model import DAClassifier, load_examples, taxonomy_acts
from taiwa.core.errors import TaiwaError

pytest.importorskip("transformers")
pytest.importorskip("torch")

EPOCHS, LR, SEED = 2, 1e-3, 0


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every 8th bundled example (~150, all eleven acts)."""
    examples, _ = load_examples()
    path = tmp_path_factory.mktemp("data") / "subset.jsonl"
    rows = [json.dumps(e.__dict__, ensure_ascii=False) + "\n" for e in examples[::8]]
    path.write_text("".join(rows), "utf-8")
    return path


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer BERT (hidden 32) and a one-character-per-token fast tokenizer."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    examples, _ = load_examples()
    chars = sorted({c for e in examples for c in e.context + e.reply})
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = {t: i for i, t in enumerate(specials + chars)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Split(pattern="", behavior="isolated")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        model_input_names=["input_ids", "token_type_ids", "attention_mask"],
    )
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=256,
    )
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny-bert")
    fast.save_pretrained(path)
    BertModel(config).save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def trained(
    tmp_path_factory: pytest.TempPathFactory, base: Path, data_file: Path
) -> tuple[Path, dict[str, Any]]:
    examples, sha = read_training_data(data_file)
    out = tmp_path_factory.mktemp("runs") / "out"
    meta = train_encoder(
        examples, base, out, epochs=EPOCHS, lr=LR, seed=SEED, sha256=sha, data_path=str(data_file)
    )
    return out, meta


def test_tokenizer_sees_kana(base: Path) -> None:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(base, local_files_only=True)
    enc = tok("お昼ご飯まだ食べてない", "え、もう3時だよ？大丈夫？")
    tokens = tok.convert_ids_to_tokens(enc["input_ids"])
    assert tokens.count("[UNK]") == 0 and len(tokens) == 11 + 13 + 3
    assert set(enc["token_type_ids"]) == {0, 1}


def test_output_directory(trained: tuple[Path, dict[str, Any]], data_file: Path) -> None:
    out, meta = trained
    names = {p.name for p in out.iterdir()}
    assert {"config.json", "model.safetensors", "taiwa_da.json", "tokenizer.json"} <= names
    assert json.loads((out / "taiwa_da.json").read_text("utf-8")) == json.loads(json.dumps(meta))
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".out.")]  # no temp left
    assert meta["acts"] == taxonomy_acts() and meta["taxonomy"] == "chitchat11"
    data = meta["training_data"]
    assert data["sha256"] == hashlib.sha256(data_file.read_bytes()).hexdigest()
    assert data["n"] == len(data_file.read_text("utf-8").splitlines())
    assert read_training_data(data_file) == load_examples(data_file)  # the same reading
    assert {"torch", "transformers"} <= set(meta["versions"])
    assert set(meta["validation"]["per_class"]) == set(taxonomy_acts())
    assert 0.0 <= meta["validation"]["macro_f1"] <= 1.0


def test_best_epoch_is_chosen_and_saved(trained: tuple[Path, dict[str, Any]]) -> None:
    out, meta = trained
    losses = [row["validation_cross_entropy"] for row in meta["epoch_log"]]
    assert len(losses) == EPOCHS and all(math.isfinite(x) for x in losses)
    assert meta["chosen_epoch"] == 1 + losses.index(min(losses))
    # the saved weights are the chosen epoch's: they give its validation loss again
    tagger = EncoderTagger.load(out)
    examples, _ = read_training_data(Path(meta["training_data"]["path"]))
    split = split_examples(examples, taxonomy_acts(), SEED)
    loss, _ = validate(tagger.model, tagger.tokenizer, split.validation, taxonomy_acts(), 128)
    assert loss == pytest.approx(min(losses), rel=1e-5)


def test_training_part_is_upsampled_to_the_largest_act(
    trained: tuple[Path, dict[str, Any]],
) -> None:
    split = trained[1]["split"]
    assert set(split["train_counts"]) == set(taxonomy_acts())
    assert set(split["train_counts_upsampled"].values()) == {max(split["train_counts"].values())}
    assert split["n_train_upsampled"] == sum(split["train_counts_upsampled"].values())
    assert split["n_train"] + split["n_validation"] == trained[1]["training_data"]["n"]
    assert split["n_validation"] == pytest.approx(0.2 * trained[1]["training_data"]["n"], abs=6)


def test_tagger_tags_like_the_default_classifier(trained: tuple[Path, dict[str, Any]]) -> None:
    tagger = EncoderTagger.load(trained[0])
    contexts = ["お昼ご飯まだ食べてない", "明日何時集合？", "こんにちは"]
    replies = ["え、もう3時だよ？大丈夫？", "10時に駅前で", "こんにちは！"]
    acts = tagger.tag_many(contexts, replies)
    assert len(acts) == 3 and set(acts) <= set(taxonomy_acts())
    assert tagger.tag_many(contexts, replies, batch_size=1) == acts
    assert tagger.tag_many([], []) == [] and tagger.tag(contexts[0], replies[0]) == acts[0]
    assert tagger.name == "encoder:out" and tagger.acts == tuple(taxonomy_acts())
    ours = list(inspect.signature(EncoderTagger.tag_many).parameters)
    theirs = list(inspect.signature(DAClassifier.tag_many).parameters)
    assert ours[:3] == theirs[:3] == ["self", "contexts", "replies"]  # the same call shape


def test_cli_trains_and_reproduces(
    trained: tuple[Path, dict[str, Any]], base: Path, data_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "cli-out"
    args = ["da", "train", "--base", str(base), "--out", str(out), "--data", str(data_file)]
    r = taiwa(*args, "--epochs", str(EPOCHS), "--lr", str(LR), "--seed", str(SEED))
    assert r.returncode == 0, r.stderr
    assert "← chosen" in r.stdout and "macro-F1" in r.stdout and f"wrote {out}" in r.stdout
    meta = json.loads((out / "taiwa_da.json").read_text("utf-8"))
    assert meta["epoch_log"] == trained[1]["epoch_log"]  # same seed, same losses
    assert meta["chosen_epoch"] == trained[1]["chosen_epoch"]


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """``taiwa ARGS`` in this process: the exit code and stderr."""
    from taiwa.cli.app import main

    with pytest.raises(SystemExit) as exc:
        main(list(args))
        raise SystemExit(0)
    return int(exc.value.code or 0), capsys.readouterr().err


def test_existing_output_needs_overwrite(
    capsys: pytest.CaptureFixture[str], base: Path, data_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "busy"
    out.mkdir()
    (out / "keep.txt").write_text("x", "utf-8")
    args = ["da", "train", "--base", str(base), "--out", str(out), "--data", str(data_file)]
    code, err = run_cli(capsys, *args, "--epochs", "1")
    assert code == 2 and "--overwrite" in err and err.count("\n") == 1
    assert (out / "keep.txt").exists()
    code, err = run_cli(capsys, *args, "--epochs", "1", "--overwrite")
    assert code == 0, err
    assert not (out / "keep.txt").exists() and (out / "taiwa_da.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy"]  # nothing left beside it


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"id": "x1", "context": "a", "reply": "b", "act": "雑談"}\n', ":2: field 'act'"),
        ('{"id": "x1", "context": "a", "reply": "b", "act": \n', ":2: expected one JSON"),
        ('{"id": "x1", "context": "a", "act": "質問"}\n', ":2: field 'reply'"),
        ('{"id": "x1", "context": 3, "reply": "b", "act": "質問"}\n', ":2: field 'context'"),
    ],
    ids=["unknown-act", "broken-json", "missing-field", "not-a-string"],
)
def test_bad_data_names_file_and_line(
    capsys: pytest.CaptureFixture[str], base: Path, tmp_path: Path, line: str, expected: str
) -> None:
    data = tmp_path / "bad.jsonl"
    good = '{"id": "x0", "context": "おはよう", "reply": "おはよう！", "act": "あいさつ"}\n'
    data.write_text(good + line, "utf-8")
    out = tmp_path / "out"
    code, err = run_cli(
        capsys, "da", "train", "--base", str(base), "--out", str(out), "--data", str(data)
    )
    assert code == 2 and f"{data}{expected}" in err and err.count("\n") == 1
    assert not out.exists()


def test_missing_base_is_one_line(
    capsys: pytest.CaptureFixture[str], data_file: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-model"
    args = ["da", "train", "--base", str(missing), "--out", str(tmp_path / "o")]
    code, err = run_cli(capsys, *args, "--data", str(data_file))
    assert code == 2 and str(missing) in err and "config.json" in err and err.count("\n") == 1


def test_too_few_examples(base: Path, tmp_path: Path) -> None:
    examples, _ = load_examples()
    with pytest.raises(TaiwaError, match="too few"):
        train_encoder(examples[:2], base, tmp_path / "o", epochs=1)


def test_load_needs_taiwa_da_json(tmp_path: Path) -> None:
    with pytest.raises(TaiwaError, match=r"is not a `taiwa da train` output \(no taiwa_da.json\)"):
        EncoderTagger.load(tmp_path)


def test_missing_hf_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(TaiwaError, match=r"pip install 'taiwa\[hf\]'"):
        require_hf()
    base = tmp_path / "base"  # a model directory, so the --base check passes and hf is needed
    base.mkdir()
    (base / "config.json").write_text("{}", encoding="utf-8")
    code, err = run_cli(capsys, "da", "train", "--base", str(base), "--out", str(tmp_path / "o"))
    assert code == 2 and "pip install 'taiwa[hf]'" in err and err.count("\n") == 1


def test_a_trained_encoder_tags_a_da_distribution_run(
    trained: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """``--tagger PATH``: the encoder labels every reply and, without labels, the contexts."""
    out, meta = trained
    data = tmp_path / "ctx.jsonl"
    rows = [{"id": f"c{k}", "context": f"昨日は{k}時まで起きてたよ"} for k in range(4)]
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    run = tmp_path / "run"
    r = taiwa_main(
        "run", "da-distribution", "-m", "builtin:parrot", "--tagger", str(out),
        "--data", str(data), "--out", str(run), "--no-cache", "-q",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    summary = json.loads((run / "summary.json").read_text("utf-8"))
    assert summary["across"]["tagger"]["kind"] == "encoder (taiwa da train)"
    assert summary["across"]["tagger"]["validation_macro_f1"] == meta["validation"]["macro_f1"]
    assert summary["across"]["prev_acts"] == {"tagger": 4}
    tags = [json.loads(x) for x in (run / "tags.jsonl").read_text("utf-8").splitlines()]
    assert all(t["acts"]["builtin:parrot"] in meta["acts"] for t in tags)
    assert summary["systems"]["builtin:parrot"]["tagged"] == 4
