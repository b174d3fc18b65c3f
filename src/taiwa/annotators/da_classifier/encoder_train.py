"""``taiwa da train``: a transformers encoder fine-tuned as a chit-chat dialogue-act classifier
(seed 002 §5.2).

Seed 002 §5.2 trains a BERT classifier: every act upsampled to the size of the largest, the
data split train/validation 4:1, and the epoch with the lowest validation cross-entropy kept.
:func:`train_encoder` follows that recipe on a local base model (never downloaded):

1. a seeded stratified 4:1 train/validation split
   (:func:`~taiwa.annotators.da_classifier.training.stratified_split`);
2. the training part's acts upsampled to the largest
   (:func:`~taiwa.annotators.da_classifier.training.upsample`);
3. ``AutoModelForSequenceClassification`` on the pair (previous utterance, reply), AdamW at a
   constant learning rate, shuffled batches (seeded), the validation cross-entropy after every
   epoch; the weights of the best epoch are what is saved.

The output directory (written atomically) is what
:class:`~taiwa.annotators.da_classifier.encoder.EncoderTagger` loads.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taiwa.annotators.da_classifier.encoder import (
    FORMAT,
    META_FILE,
    VERSION,
    encode,
    predict_proba,
    quiet_hf,
    require_hf,
)
from taiwa.annotators.da_classifier.model import TAXONOMY, Example, load_examples, taxonomy_acts
from taiwa.core.errors import InputError, TaiwaError

VALIDATION = 0.2
"""Seed 002 §5.2: train and validation 4:1."""
FIELDS = ("id", "context", "reply", "act")

Progress = Callable[[int, int, int], None]
"""``progress(epoch, steps_done, steps_per_epoch)``: called at the start of each epoch (0 done)
and after every optimiser step."""


def read_training_data(path: Path | None = None) -> tuple[list[Example], str]:
    """Labelled examples (JSONL ``{"id","context","reply","act"}``, the bundled set by default)
    and the SHA-256 of the file. Every line of a given file is checked: broken JSON, a missing
    or non-string field, an act outside ``chitchat11`` are an :class:`InputError` naming the
    file, the line and the field."""
    if path is None:
        return load_examples()
    examples = checked_examples(path)
    return examples, hashlib.sha256(path.read_bytes()).hexdigest()


def checked_examples(path: Path) -> list[Example]:
    """:func:`read_training_data`'s examples of a file, checked line by line."""
    from taiwa.core.io import check_id, iter_rows, require_file, shown

    require_file(path)
    acts = set(taxonomy_acts())
    if path.suffix.lower() not in (".jsonl", ".ndjson", ".json"):
        raise InputError(str(path), None, None, "a JSONL file", f"'{path.suffix}'")
    examples = []
    seen: dict[str, int] = {}
    for line, row in iter_rows(path):
        check_id(path, line, row.get("id"), seen)
        for name in FIELDS:
            value = row.get(name)
            if not isinstance(value, str):
                got = "nothing" if name not in row else shown(value)
                raise InputError(str(path), line, name, "a string", got)
        if row["act"] not in acts:
            raise InputError(
                str(path), line, "act", f"one of the {TAXONOMY} acts", shown(row["act"])
            )
        group = str(row.get("dialogue") or "")  # optional: keeps a dialogue in one fold
        examples.append(Example(row["id"], row["context"], row["reply"], row["act"], group=group))
    return examples


def check_base(base: Path) -> None:
    """A :class:`TaiwaError` unless ``base`` is a local model directory with a config."""
    from taiwa.core.io import path_kind

    if path_kind(base) != "directory" or path_kind(base / "config.json") != "file":
        raise TaiwaError(
            f"--base {base}: not a local model directory with a config.json (--base takes a "
            "directory written by save_pretrained; nothing is downloaded)"
        )


def check_out(out: Path, overwrite: bool) -> None:
    """A :class:`TaiwaError` when ``out`` is a file, or a non-empty directory without
    ``overwrite``."""
    from taiwa.core.io import path_kind

    kind = path_kind(out)
    if out.is_symlink():
        raise TaiwaError(f"--out {out}: is a symbolic link (give the directory itself)")
    if kind not in ("missing", "directory"):
        raise TaiwaError(f"--out {out}: exists and is not a directory")
    if kind == "directory" and any(out.iterdir()) and not overwrite:
        raise TaiwaError(f"--out {out}: exists and is not empty (pass --overwrite to replace it)")
    from taiwa.core.io import check_writable

    check_writable(out / META_FILE, "--out")  # a place where the directory can be made


def check_examples(examples: Sequence[Example], acts: Sequence[str]) -> None:
    unknown = sorted({e.act for e in examples} - set(acts))
    if unknown:
        raise TaiwaError(f"acts not in {TAXONOMY}: {', '.join(unknown)}")


def examples_sha256(examples: Sequence[Example]) -> str:
    """SHA-256 of the examples as JSONL (when no file's hash is given)."""
    text = "".join(
        json.dumps(e.__dict__, ensure_ascii=False, sort_keys=True) + "\n" for e in examples
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Split:
    """Seed 002 §5.2's split: the upsampled training part and the validation part."""

    train: list[Example]
    validation: list[Example]
    counts: dict[str, int]
    counts_upsampled: dict[str, int]


def split_examples(examples: Sequence[Example], acts: Sequence[str], seed: int) -> Split:
    """Stratified 4:1 train/validation (seeded), the training part upsampled to its largest
    act (seed 002 §5.2)."""
    from taiwa.annotators.da_classifier.training import stratified_split, upsample

    tr, va = stratified_split([e.act for e in examples], VALIDATION, seed)
    if not tr or not va:
        raise TaiwaError(
            f"{len(examples)} examples are too few for a 4:1 train/validation split "
            "(an act needs at least 3 examples to reach the validation part)"
        )
    train = [examples[i] for i in tr]
    ups = [train[i] for i in upsample([e.act for e in train], seed + 1)]
    return Split(ups, [examples[i] for i in va], act_counts(train, acts), act_counts(ups, acts))


def act_counts(examples: Sequence[Example], acts: Sequence[str]) -> dict[str, int]:
    return {a: sum(e.act == a for e in examples) for a in acts if any(e.act == a for e in examples)}


def load_base(base: Path, acts: Sequence[str]) -> tuple[Any, Any]:
    """Tokenizer and a sequence classifier with ``len(acts)`` labels from the local ``base``
    (``local_files_only``; a new classification head where the base has none)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    check_base(base)
    try:
        with quiet_hf():  # "newly initialised weights" is what fine-tuning expects
            tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
            model = AutoModelForSequenceClassification.from_pretrained(
                base,
                num_labels=len(acts),
                id2label=dict(enumerate(acts)),
                label2id={a: k for k, a in enumerate(acts)},
                ignore_mismatched_sizes=True,
                local_files_only=True,
            )
    except (OSError, ValueError, KeyError) as exc:
        raise TaiwaError(f"{base}: cannot load a tokenizer and model: {exc}") from None
    return tokenizer, model


def train_epoch(
    model: Any,
    tokenizer: Any,
    optimizer: Any,
    batches: list[list[Example]],
    labels: dict[str, int],
    max_length: int,
    step: Callable[[int], None],
) -> float:
    """One pass over ``batches``; the mean training loss per example."""
    import torch

    model.train(True)
    total, n = 0.0, 0
    for k, batch in enumerate(batches, start=1):
        y = torch.tensor([labels[e.act] for e in batch])
        loss = model(**encode(tokenizer, batch, max_length), labels=y).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += float(loss.detach()) * len(batch)
        n += len(batch)
        step(k)
    return total / n


def shuffled_batches(
    examples: Sequence[Example], batch_size: int, generator: Any
) -> list[list[Example]]:
    import torch

    order = torch.randperm(len(examples), generator=generator).tolist()
    return [
        [examples[i] for i in order[s : s + batch_size]] for s in range(0, len(order), batch_size)
    ]


def validate(
    model: Any, tokenizer: Any, val: Sequence[Example], acts: Sequence[str], max_length: int
) -> tuple[float, dict[str, Any]]:
    """Validation cross-entropy (nats) and the per-class report."""
    import numpy as np

    from taiwa.annotators.da_classifier.training import class_report, cross_entropy

    contexts, replies = [e.context for e in val], [e.reply for e in val]
    proba = predict_proba(model, tokenizer, contexts, replies, max_length=max_length)
    y = np.array([acts.index(e.act) for e in val])
    pred = [acts[int(k)] for k in proba.argmax(axis=1)]
    return cross_entropy(proba, y), class_report([e.act for e in val], pred, acts)


@dataclass
class Best:
    epoch: int = 0
    loss: float = float("inf")
    state: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)

    def offer(self, epoch: int, loss: float, model: Any, report: dict[str, Any]) -> None:
        """Keep a copy of the weights when ``loss`` is the lowest so far."""
        if loss < self.loss:
            self.epoch, self.loss, self.report = epoch, loss, report
            self.state = {k: v.detach().clone() for k, v in model.state_dict().items()}


def train_encoder(
    examples: Sequence[Example],
    base: Path,
    out: Path,
    *,
    epochs: int = 4,
    batch_size: int = 16,
    lr: float = 5e-5,
    max_length: int = 128,
    seed: int = 0,
    progress: Progress | None = None,
    overwrite: bool = False,
    sha256: str | None = None,
    data_path: str | None = None,
) -> dict[str, Any]:
    """Fine-tune the local ``base`` encoder as a ``chitchat11`` classifier by seed 002 §5.2's
    recipe (see the module docstring), save the best epoch's model to ``out`` and return what
    ``out/taiwa_da.json`` records. ``sha256``/``data_path`` describe the training file (by
    default the examples' own hash). Deterministic on the CPU for the same seed."""
    check_settings(epochs, batch_size, lr, max_length)
    acts = taxonomy_acts()
    check_examples(examples, acts)
    check_base(base)
    check_out(out, overwrite)
    split = split_examples(examples, acts, seed)
    require_hf()
    import torch

    torch.manual_seed(seed)
    tokenizer, model = load_base(base, acts)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed + 2)
    labels = {a: k for k, a in enumerate(acts)}
    best, log = Best(), []
    for epoch in range(1, epochs + 1):
        batches = shuffled_batches(split.train, batch_size, generator)
        tick = progress_step(progress, epoch, len(batches))
        loss = train_epoch(model, tokenizer, optimizer, batches, labels, max_length, tick)
        val_loss, report = validate(model, tokenizer, split.validation, acts, max_length)
        log.append({"epoch": epoch, "train_loss": loss, "validation_cross_entropy": val_loss})
        best.offer(epoch, val_loss, model, report)
    if not best.state:
        raise TaiwaError("the validation cross-entropy was not finite in any epoch")
    model.load_state_dict(best.state)
    settings = {"epochs": epochs, "batch_size": batch_size, "lr": lr, "max_length": max_length}
    meta = describe(split, base, seed, settings, log, best)
    meta["training_data"] = {
        "path": data_path,
        "sha256": sha256 or examples_sha256(examples),
        "n": len(examples),
    }
    save(model, tokenizer, meta, out)
    return meta


def check_settings(epochs: int, batch_size: int, lr: float, max_length: int) -> None:
    """Option values (named as the CLI options) that cannot train."""
    for name, value in (("epochs", epochs), ("batch-size", batch_size), ("max-length", max_length)):
        if value < 1:
            raise TaiwaError(f"--{name} must be at least 1 (got {value})")
    if not lr > 0 or lr == float("inf"):
        raise TaiwaError(f"--lr must be a positive number (got {lr})")


def progress_step(progress: Progress | None, epoch: int, steps: int) -> Callable[[int], None]:
    if progress is None:
        return lambda _done: None
    progress(epoch, 0, steps)
    return lambda done: progress(epoch, done, steps)


def describe(
    split: Split,
    base: Path,
    seed: int,
    settings: dict[str, Any],
    log: list[dict[str, Any]],
    best: Best,
) -> dict[str, Any]:
    """``taiwa_da.json`` (without the training data's description)."""
    import torch
    import transformers

    from taiwa import __version__

    return {
        "format": FORMAT,
        "version": VERSION,
        "taxonomy": TAXONOMY,
        "acts": taxonomy_acts(),
        "base": str(base.resolve()),
        "seed": seed,
        **settings,
        "optimizer": "AdamW, constant learning rate",
        "split": {
            "validation_fraction": VALIDATION,
            "n_train": sum(split.counts.values()),
            "n_train_upsampled": len(split.train),
            "n_validation": len(split.validation),
            "train_counts": split.counts,
            "train_counts_upsampled": split.counts_upsampled,
        },
        "epoch_log": log,
        "chosen_epoch": best.epoch,
        "validation": best.report,
        "versions": {
            "taiwa": __version__,
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        },
    }


def save(model: Any, tokenizer: Any, meta: dict[str, Any], out: Path) -> None:
    """Write into a temporary sibling directory, then rename it to ``out`` (an existing ``out``
    is moved aside first and removed once the new one is in place)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        with quiet_hf():
            model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
        text = json.dumps(meta, ensure_ascii=False, indent=1) + "\n"
        (tmp / META_FILE).write_text(text, "utf-8")
        os.chmod(tmp, 0o777 & ~current_umask())
        replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def replace_dir(new: Path, out: Path) -> None:
    if not out.exists():
        os.replace(new, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
    os.replace(out, old / "dir")
    try:
        os.replace(new, out)
    except BaseException:
        os.replace(old / "dir", out)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
