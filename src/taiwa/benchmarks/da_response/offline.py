"""The ``offline`` annotator of da-response (issue 16): the shared dialogue-act classifier
(:mod:`taiwa.annotators.da_classifier`) trained on ``assistant7`` sentence by sentence, with an
act × position importance model (:mod:`taiwa.annotators.sentence_annotator`).

Training data: ``data/samples/assistant_da/train.jsonl`` (team-written replies labelled one
step per sentence, separate from the 60 benchmark items); held-out figures on two splits,
reported apart: ``tidy`` (``assistant_da/heldout.jsonl`` and the gold-vs-flawed
``assistant_da/alternatives.jsonl``, written like the training set) and ``varied`` (issue 26:
``assistant_da/varied_heldout.jsonl`` and ``assistant_da/varied_alternatives.jsonl``: casual
and polite assistants, unpunctuated speech transcripts, questions ending in か。 or in nothing,
clarifying questions mid-reply, lists and markdown, long and short replies).
The weights ship as ``data/models/da_assistant7.npz`` + ``.json``. Rebuild, check and print
them with ``python -m taiwa.benchmarks.da_response.offline --train|--check|--evaluate``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.errors import TaiwaError

if TYPE_CHECKING:
    from taiwa.annotators.sentence_annotator import SentenceAnnotator

TAXONOMY = "assistant7"
MODEL_NAME = "da_assistant7"
TRAIN = "assistant_da/train.jsonl"
HELD_OUT = "assistant_da/heldout.jsonl"
ALTERNATIVES = "assistant_da/alternatives.jsonl"
VARIED_HELD_OUT = "assistant_da/varied_heldout.jsonl"
VARIED_ALTERNATIVES = "assistant_da/varied_alternatives.jsonl"
SPLITS = {"tidy": (HELD_OUT, ALTERNATIVES), "varied": (VARIED_HELD_OUT, VARIED_ALTERNATIVES)}
"""The bundled held-out splits, each reported apart by ``taiwa validate annotator``."""
FIXED_ACT = "Inform"
"""The act of the 'one act per sentence' baseline: a reply's sentences informing by default."""


def sample_file(name: str) -> Path:
    from taiwa.samples import sample_path

    return sample_path(name)


def model_path() -> Path:
    return Path(str(resources.files("taiwa").joinpath(f"data/models/{MODEL_NAME}.npz")))


@cache
def default_annotator() -> SentenceAnnotator:
    """The shipped offline annotator, loaded once per process."""
    from taiwa.annotators.sentence_annotator import SentenceAnnotator

    return SentenceAnnotator.load(model_path())


def acts() -> list[str]:
    from taiwa.taxonomies import load_taxonomy

    return load_taxonomy(TAXONOMY).names


def train(out_dir: Path | None = None) -> tuple[SentenceAnnotator, dict[str, Any]]:
    """Fit on the bundled training file, evaluate on the held-out files, record both in the
    sidecar and (with ``out_dir``) write the model there. Deterministic."""
    from taiwa.annotators.sentence_annotator import train_sentence_annotator
    from taiwa.benchmarks.da_response.labelled import load_labelled
    from taiwa.benchmarks.da_response.validate import validate_annotator

    path = sample_file(TRAIN)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    replies, _ = load_labelled([path])
    annotator, info = train_sentence_annotator(replies, acts(), TAXONOMY, endings=True)
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
    for key, split in (("held_out", "tidy"), ("held_out_varied", "varied")):
        report = validate_annotator(annotator, split_files(split))
        report["files"] = list(SPLITS[split])
        annotator.classifier.meta[key] = report
    report = annotator.classifier.meta["held_out"]
    if out_dir is not None:
        annotator.save(out_dir, MODEL_NAME)
    return annotator, report


def annotator_summary(spec: str) -> dict[str, Any]:
    """What a run's summary says about its annotator: the SPEC and, for ``offline``, its name
    and headline figures on the bundled held-out files (``taiwa validate annotator`` prints
    them all); other annotators were not validated here (``validated``: null)."""
    if spec != "offline":
        return {"spec": spec, "validated": None}
    ann = default_annotator()
    meta = ann.classifier.meta
    out: dict[str, Any] = {"spec": spec, "name": ann.name}
    for key, label in (("held_out", "validated"), ("held_out_varied", "validated_varied")):
        held = meta[key]
        seq = held["sequence"][held["annotator"]]
        ranking = held["ranking"].get(held["annotator"], {}).get("all", {})
        out[label] = {
            "files": [Path(f).name for f in held["files"]],
            "macro_f1": seq["macro_f1"],
            "wed": seq["wed"],
            "exact_sequence": seq["exact_sequence"],
            "gold_first": ranking.get("gold_first"),
        }
    return out


def split_files(split: str) -> list[Path]:
    """The files of a bundled held-out split (:data:`SPLITS`)."""
    return [sample_file(name) for name in SPLITS[split]]


def held_out_files() -> list[Path]:
    """The tidy split's files (the figures a run's summary names first)."""
    return split_files("tidy")


def split_of(path: Path) -> str | None:
    """The bundled split ``path`` belongs to (``None``: a file of the user's)."""
    resolved = path.resolve()
    for split in SPLITS:
        if resolved in {p.resolve() for p in split_files(split)}:
            return split
    return None


def differences(fresh: SentenceAnnotator, shipped: SentenceAnnotator) -> list[str]:
    """What differs between a retrained and the shipped model (empty: reproduced)."""
    from taiwa.annotators.da_classifier_report import differences as classifier_differences

    out = [
        d
        for d in classifier_differences(fresh.classifier, shipped.classifier)
        if not d.startswith(("held_out_metrics", "split"))
    ]
    if json.loads(json.dumps(fresh.importance.to_json())) != shipped.classifier.meta.get(
        "importance"
    ):
        out.append("importance model differs")
    for key in ("held_out", "held_out_varied"):
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
