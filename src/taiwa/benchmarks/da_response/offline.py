"""Training the ``offline`` annotator of da-response (issue 16): the shared dialogue-act
classifier (:mod:`taiwa.annotators.da_classifier.model`) trained on ``assistant7`` sentence by
sentence, with an act × position importance model (:mod:`taiwa.annotators.sentence_annotator`).
The shipped model, and loading it, are :mod:`.shipped_annotator`.

Training data: ``data/samples/assistant_da/train.jsonl`` (team-written replies labelled one
step per sentence, separate from the 60 benchmark items); held-out figures on two splits,
reported apart: ``tidy`` (``assistant_da/heldout.jsonl`` and the gold-vs-flawed
``assistant_da/alternatives.jsonl``, written like the training set) and ``varied`` (issue 26:
``assistant_da/varied_heldout.jsonl`` and ``assistant_da/varied_alternatives.jsonl``: casual
and polite assistants, unpunctuated speech transcripts, questions ending in か。 or in nothing,
clarifying questions mid-reply, lists and markdown, long and short replies) and ``probe``
(issue 38: ``assistant_da/probe_alternatives.jsonl``, content-free reactions in place of an
answer or an action, gold replies made of two questions).
The weights ship as ``data/models/da_assistant7.npz`` + ``.json``. Rebuild, check and print
them with ``python -m taiwa.benchmarks.da_response.offline --train|--check|--evaluate``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.benchmarks.da_response.shipped_annotator import (
    MODEL_NAME,
    SIDECAR_KEYS,
    SPLITS,
    TAXONOMY,
    TRAIN,
    acts,
    default_annotator,
    model_path,
    sample_file,
    split_files,
)
from taiwa.core.errors import TaiwaError

if TYPE_CHECKING:
    from taiwa.annotators.sentence_annotator import SentenceAnnotator


def train(out_dir: Path | None = None) -> tuple[SentenceAnnotator, dict[str, Any]]:
    """Fit on the bundled training file, evaluate on the held-out files, record both in the
    sidecar and (with ``out_dir``) write the model there. Deterministic."""
    from taiwa.annotators.sentence_annotator import train_sentence_annotator
    from taiwa.benchmarks.da_response.labelled import load_labelled
    from taiwa.benchmarks.da_response.validate import validate_annotator

    path = sample_file(TRAIN)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    replies, _ = load_labelled([path])
    annotator, info = train_sentence_annotator(replies, acts(), TAXONOMY, endings=True, cross=True)
    if hashlib.sha256(path.read_bytes()).hexdigest() != sha:
        raise TaiwaError(f"{path} changed while the model was trained on it: train again")
    annotator.classifier.meta = {
        "training_data": {
            "path": TRAIN,
            "sha256": sha,
            "n_replies": len(replies),
            "n_sentences": sum(len(r.sentences) for r in replies),
        },
        "training": info,
    }
    for split, key in SIDECAR_KEYS.items():
        report = validate_annotator(annotator, split_files(split))
        report["files"] = list(SPLITS[split])
        annotator.classifier.meta[key] = report
    report = annotator.classifier.meta["held_out"]
    if out_dir is not None:
        annotator.save(out_dir, MODEL_NAME)
    return annotator, report


def differences(fresh: SentenceAnnotator, shipped: SentenceAnnotator) -> list[str]:
    """What differs between a retrained and the shipped model (empty: reproduced)."""
    from taiwa.annotators.da_classifier.report import differences as classifier_differences

    out = [
        d
        for d in classifier_differences(fresh.classifier, shipped.classifier)
        if not d.startswith(("held_out_metrics", "split"))
    ]
    if json.loads(json.dumps(fresh.importance.to_json())) != shipped.classifier.meta.get(
        "importance"
    ):
        out.append("importance model differs")
    for key in SIDECAR_KEYS.values():
        if json.loads(json.dumps(fresh.classifier.meta[key])) != shipped.classifier.meta.get(key):
            out.append(f"{key.replace('_', '-')} figures differ")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    from taiwa.benchmarks.da_response.validate import format_report

    parser = argparse.ArgumentParser(prog="python -m taiwa.benchmarks.da_response.offline")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--train", action="store_true", help="rebuild the shipped model files")
    group.add_argument("--evaluate", action="store_true", help="print the shipped figures")
    group.add_argument("--check", action="store_true", help="retrain and compare with shipped")
    parser.add_argument("--out", type=Path, default=None, help="directory (default: package)")
    args = parser.parse_args(argv)
    if args.train:
        out = args.out or model_path().parent
        _, report = train(out)
        print(f"wrote {out / MODEL_NAME}.npz and .json")
    elif args.check:
        fresh, report = train()
        diff = differences(fresh, default_annotator())
        print("reproduces the shipped model" if not diff else "differs: " + "; ".join(diff))
        if diff:
            return 1
    else:
        report = default_annotator().classifier.meta["held_out"]
    print(format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
