"""How the default chitchat11 classifier is trained and measured (seed 002 §5.2; issue 26).

Training data, both bundled (``data/samples/da_distribution/``):

- ``labelled.jsonl``: tidy single exchanges; a stratified 20 % of it (seed
  :data:`~taiwa.annotators.da_classifier.model.SEED`) is the *tidy* held-out split, never trained
  on;
- ``chatstyle_train.jsonl``: whole dialogues written in the style of spontaneous chat (short,
  unpunctuated, backchannels, fillers, laughter, cut-off sentences; both speakers labelled).

Two held-out splits, reported apart: the tidy one and ``chatstyle_heldout.jsonl`` (dialogues in
the chat style, none of them in training). Each is scored beside the majority act of the
training data and a char-n-gram-only logistic regression trained on the same data by the same
recipe.

Run ``python -m taiwa.annotators.da_classifier.recipe --train`` to rebuild the shipped files,
``--check`` to retrain in memory and compare, ``--evaluate`` for the recorded tables.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.annotators.da_classifier.model import (
    DATA_PATH,
    HELD_OUT,
    MODEL_NAME,
    SEED,
    VALIDATION,
    DAClassifier,
    Example,
    char_ngram_settings,
    fit,
    held_out_split,
    load_examples,
    shipped_paths,
    taxonomy_acts,
)
from taiwa.annotators.da_classifier.report import differences, format_report

if TYPE_CHECKING:
    from taiwa.annotators.da_classifier.features import FeatureSettings

CHAT_TRAIN_PATH = "data/samples/da_distribution/chatstyle_train.jsonl"
CHAT_HELD_OUT_PATH = "data/samples/da_distribution/chatstyle_heldout.jsonl"
TIDY, CHAT = "tidy", "chat-style"
BALANCE = False
"""Whether the acts are upsampled to the largest (seed 002 §5.2) for the default model. Not:
upsampling gives every act the same prior, and chat is not like that (most utterances are
personal facts and opinions); with it the rare acts were over-predicted on chat (issue 26:
あいさつ 44 times where the labels had 2). On the chat-style held-out split at L2 3e-5 the
rarest act, その他, was predicted 19 times for 8 with upsampling, 16 without, at the same
macro-F1 (0.752 / 0.748) and accuracy (0.771 / 0.773)."""
L2_GRID = (1e-5, 3e-5, 1e-4)
"""The L2 strengths tried for the default model and its char-n-gram baseline (the part of
:data:`~taiwa.annotators.da_classifier.model.L2_GRID` where the chat-style data's picks fall; each
fit on the full data takes minutes on 2 busy cores)."""
SHIPPED_L2_GRID = (1e-5,)
"""The L2 strengths :func:`train` tries for the shipped model and its baseline. On the
previous snapshot of the data (2,548 training examples) the search over :data:`L2_GRID` picked
1e-5 for both, with validation cross-entropy rising monotonically (default 0.521 / 0.532 /
0.577); the current data has 2,906. The grid of one keeps the validation fit (it gives the
temperature) and skips the two fits that lost there: on the shared 2-core machine under load
~25 each fit takes many minutes. ``taiwa da train`` (your own data) still searches
:data:`L2_GRID`."""


def default_settings() -> FeatureSettings:
    """The shipped model's features: char n-grams of the casual core (reply and previous
    utterance), ja-ginza mean vector, morpheme keys, overlap and shape flags; :func:`fit_default`
    adds the previous-act block
    (:func:`~taiwa.annotators.da_classifier.previous_act.fit_with_previous`)."""
    from taiwa.annotators.da_classifier.features import FeatureSettings

    return FeatureSettings(casual=True, word_bits=14)


def fit_default(
    examples: Sequence[Example],
    acts: Sequence[str],
    l2_grid: Sequence[float],
    previous_act: bool = True,
) -> tuple[DAClassifier, dict[str, Any]]:
    """The default recipe on ``examples``: :func:`default_settings`, acts not upsampled
    (:data:`BALANCE`), the L2 strength picked from ``l2_grid`` and, with ``previous_act``, the
    previous-act block (the context tagger at ``l2_grid[0]``, its guesses cross-fitted by
    dialogue). Both the shipped model (:func:`train`) and ``taiwa da train``
    (:func:`~taiwa.annotators.da_classifier.own.train_own`) are fitted here."""
    if not previous_act:
        return fit(examples, acts, default_settings(), l2_grid, None, BALANCE)
    from taiwa.annotators.da_classifier.previous_act import fit_with_previous

    return fit_with_previous(examples, acts, default_settings(), l2_grid, None, BALANCE)


def majority_baseline(
    dev: Sequence[Example], test: Sequence[Example], acts: Sequence[str] | None = None
) -> list[str]:
    """The training data's most frequent act (ties: taxonomy order) for every item."""
    acts = taxonomy_acts() if acts is None else acts
    counts = {a: sum(e.act == a for e in dev) for a in acts}
    top = max(acts, key=lambda a: counts[a])
    return [top] * len(test)


def char_ngram_baseline(
    train: Sequence[Example], acts: Sequence[str], cache_dir: Path | None = None
) -> DAClassifier:
    """The char-n-gram-only logistic regression on ``train`` by the default's recipe, at the L2
    strength the shipped model records for it (picked on validation when it records none).
    With ``cache_dir``, fitted once and kept there (:mod:`.da_baseline_memo`)."""
    from taiwa.annotators.da_classifier.baseline import fit_key, memo_fit

    recorded = DAClassifier.load().meta.get("held_out_metrics", {}).get("char_ngram_l2")
    settings = char_ngram_settings()
    key = fit_key(
        train,
        acts,
        {"settings": settings.to_json(), "grid": L2_GRID, "l2": recorded, "balance": BALANCE},
    )
    return memo_fit(
        cache_dir, key, lambda: fit(train, acts, settings, L2_GRID, recorded, BALANCE)[0]
    )


def evaluate(
    classifier: DAClassifier,
    dev: Sequence[Example],
    tests: Mapping[str, Sequence[Example]],
    ngram: DAClassifier | None = None,
) -> dict[str, Any]:
    """Per held-out split: reports of ``classifier`` and of both baselines (the char-n-gram one
    is ``ngram``, or trained here on ``dev`` by the same recipe), and the calibration of the
    classifier's probabilities on it."""
    import numpy as np

    from taiwa.annotators.da_classifier.calibration import expected_calibration_error
    from taiwa.annotators.da_classifier.training import class_report

    acts = list(classifier.acts)
    if ngram is None:
        ngram, _ = fit(dev, acts, char_ngram_settings(), L2_GRID, balance=BALANCE)
    out: dict[str, Any] = {"char_ngram_l2": ngram.meta.get("l2")}
    for name, test in tests.items():
        if not test:
            continue
        gold = [e.act for e in test]
        contexts, replies = [e.context for e in test], [e.reply for e in test]
        proba = classifier.proba(contexts, replies, [e.position for e in test])
        y = np.array([acts.index(a) for a in gold])
        out[name] = {
            "default": class_report(gold, [acts[k] for k in proba.argmax(axis=1)], acts),
            "majority": class_report(gold, majority_baseline(dev, test, acts), acts),
            "char_ngram": class_report(gold, ngram.tag_many(contexts, replies), acts),
            "ece": expected_calibration_error(proba, y),
        }
    return out


def bundled(path: str) -> list[Example]:
    """The examples of a bundled file (empty when it has none yet)."""
    from importlib import resources

    if not resources.files("taiwa").joinpath(path).is_file():
        return []
    return load_examples(Path(str(resources.files("taiwa").joinpath(path))))[0]


def training_sets() -> tuple[list[Example], dict[str, list[Example]], dict[str, Any]]:
    """``(training examples, held-out splits by name, provenance)`` of the default model."""
    import hashlib
    from importlib import resources

    tidy, _ = load_examples()
    dev, tidy_test = held_out_split(tidy)
    chat = bundled(CHAT_TRAIN_PATH)
    files = {}
    for path in (DATA_PATH, CHAT_TRAIN_PATH, CHAT_HELD_OUT_PATH):
        ref = resources.files("taiwa").joinpath(path)
        raw = ref.read_bytes() if ref.is_file() else b""
        files[path] = hashlib.sha256(raw).hexdigest()
    return dev + chat, {TIDY: tidy_test, CHAT: bundled(CHAT_HELD_OUT_PATH)}, files


def train(out_dir: Path | None = None) -> tuple[DAClassifier, dict[str, Any]]:
    """Rebuild the default model from the bundled data (deterministic) and, with ``out_dir``,
    write it there. Returns the classifier and its held-out evaluation."""
    train_set, tests, files = training_sets()
    acts = taxonomy_acts()
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2) as pool:  # the two fits are independent: one process each
        grid = SHIPPED_L2_GRID
        default_job = pool.submit(fit_default, train_set, acts, grid)
        ngram_job = pool.submit(fit, train_set, acts, char_ngram_settings(), grid, None, BALANCE)
        classifier, info = default_job.result()
        ngram, ngram_info = ngram_job.result()
    ngram.meta["l2"] = ngram_info["l2"]
    metrics = evaluate(classifier, train_set, tests, ngram)
    classifier.meta = {
        **classifier.meta,
        "training_data": {"files": files, "n": len(train_set)},
        "split": {
            "seed": SEED,
            "held_out": HELD_OUT,
            "validation": VALIDATION,
            "n_train": len(train_set),
            "n_held_out": {k: len(v) for k, v in tests.items()},
        },
        "training": info,
        "held_out_metrics": metrics,
    }
    if out_dir is not None:
        classifier.save(out_dir)
    return classifier, metrics


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m taiwa.annotators.da_classifier.recipe")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--train", action="store_true", help="rebuild the shipped model files")
    group.add_argument("--evaluate", action="store_true", help="print the shipped metrics")
    group.add_argument(
        "--check", action="store_true", help="retrain in memory and compare with the shipped model"
    )
    parser.add_argument("--out", type=Path, default=None, help="directory (default: package)")
    args = parser.parse_args(argv)
    if args.train:
        out = args.out or shipped_paths()[0].parent
        classifier, metrics = train(out)
        print(f"wrote {out / MODEL_NAME}.npz and .json")
    elif args.check:
        shipped = DAClassifier.load()
        classifier, metrics = train()
        diff = differences(classifier, shipped)
        print("reproduces the shipped model" if not diff else "differs: " + "; ".join(diff))
        if diff:
            return 1
    else:
        classifier = DAClassifier.load(None if args.out is None else args.out / f"{MODEL_NAME}.npz")
        metrics = classifier.meta["held_out_metrics"]
    for name in (TIDY, CHAT):
        if name in metrics:
            print(f"== {name} held-out ==")
            print(format_report(metrics[name], classifier.acts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
