"""The default chitchat11 tagger against its char-n-gram baseline, by 4-fold cross-validation
over the chat-style *training* dialogues (issue 26: choose a recipe without looking at the
held-out splits).

    python benchmarks/da_tagger_cv.py [--previous-act] [--no-more] [--out FILE.npz]

Folds: the dialogues of ``chatstyle_train.jsonl`` dealt into 4 folds as the previous-act
block's cross-fitting deals them (:func:`~taiwa.annotators.da_previous_act.folds_of`); each
fold's utterances are tagged by models fitted on the other three folds plus the tidy set's
development split and ``chatstyle_train_more.jsonl`` (``--no-more``: without it). Both models
are fitted at the shipped L2 strength with acts not upsampled, as the shipped recipe
(:mod:`taiwa.annotators.da_classifier_recipe`); the default without the previous-act block
unless ``--previous-act`` (then four context taggers more per fold: several times slower).

Prints per fold and pooled (n = every training chat-style utterance) macro-F1 and accuracy of
both, the margin, and a paired 95 % bootstrap CI of the pooled margin (the same utterances
resampled for both, 1,000 resamples, seed 0). ``--out``: the out-of-fold probabilities of both
models, the gold act indices and the fold of each utterance, to try decision rules or
ensembles on without refitting.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from taiwa.annotators.da_classifier import (
    char_ngram_settings,
    fit,
    held_out_split,
    load_examples,
    taxonomy_acts,
)
from taiwa.annotators.da_classifier_recipe import (
    BALANCE,
    CHAT_TRAIN_PATH,
    SHIPPED_L2_GRID,
    bundled,
    default_settings,
)
from taiwa.annotators.da_classifier_train import class_report
from taiwa.annotators.da_previous_act import FOLDS, fit_with_previous, folds_of

MORE_PATH = "data/samples/da_distribution/chatstyle_train_more.jsonl"


def scores(gold: np.ndarray, pred: np.ndarray, acts: list[str]) -> tuple[float, float]:
    report = class_report([acts[g] for g in gold], [acts[p] for p in pred], acts)
    return report["macro_f1"], report["accuracy"]


def margin_ci(
    gold: np.ndarray, default: np.ndarray, ngram: np.ndarray, acts: list[str]
) -> list[float]:
    rng = np.random.default_rng(0)
    margins = []
    for _ in range(1000):
        idx = rng.integers(0, len(gold), len(gold))
        margins.append(
            scores(gold[idx], default[idx], acts)[0] - scores(gold[idx], ngram[idx], acts)[0]
        )
    return [float(v) for v in np.percentile(margins, [2.5, 97.5])]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--previous-act", action="store_true", help="the shipped previous-act block"
    )
    parser.add_argument("--no-more", action="store_true", help="leave chatstyle_train_more out")
    parser.add_argument(
        "--out", type=Path, default=None, help="write the out-of-fold probabilities"
    )
    args = parser.parse_args()

    acts = taxonomy_acts()
    l2 = SHIPPED_L2_GRID[0]
    dev, _ = held_out_split(load_examples()[0])
    chat = bundled(CHAT_TRAIN_PATH)
    always = dev + ([] if args.no_more else bundled(MORE_PATH))
    fold = np.array(folds_of(chat))
    gold = np.array([acts.index(e.act) for e in chat])
    proba = {"default": np.zeros((len(chat), len(acts))), "ngram": np.zeros((len(chat), len(acts)))}
    for k in range(FOLDS):
        start = time.perf_counter()
        train = always + [e for e, f in zip(chat, fold, strict=True) if f != k]
        test = [e for e, f in zip(chat, fold, strict=True) if f == k]
        if args.previous_act:
            default, _ = fit_with_previous(train, acts, default_settings(), (l2,), l2, BALANCE)
        else:
            default, _ = fit(train, acts, default_settings(), (l2,), l2, BALANCE)
        ngram, _ = fit(train, acts, char_ngram_settings(), (l2,), l2, BALANCE)
        contexts, replies = [e.context for e in test], [e.reply for e in test]
        proba["default"][fold == k] = default.proba(contexts, replies)
        proba["ngram"][fold == k] = ngram.proba(contexts, replies)
        here = fold == k
        d = scores(gold[here], proba["default"][here].argmax(1), acts)
        b = scores(gold[here], proba["ngram"][here].argmax(1), acts)
        print(
            f"fold {k} (n = {here.sum()}, {time.perf_counter() - start:.0f} s): default "
            f"{d[0]:.3f} / {d[1]:.3f}, char-n-gram {b[0]:.3f} / {b[1]:.3f}, "
            f"margin {d[0] - b[0]:+.3f}",
            flush=True,
        )
    pred_d, pred_b = proba["default"].argmax(1), proba["ngram"].argmax(1)
    d, b = scores(gold, pred_d, acts), scores(gold, pred_b, acts)
    low, high = margin_ci(gold, pred_d, pred_b, acts)
    print(
        f"pooled (n = {len(chat)}): default macro-F1 {d[0]:.3f} accuracy {d[1]:.3f}; "
        f"char-n-gram {b[0]:.3f} / {b[1]:.3f}; margin {d[0] - b[0]:+.3f} [{low:+.3f}, {high:+.3f}]"
    )
    if args.out is not None:
        np.savez_compressed(args.out, gold=gold, fold=fold, **proba)


if __name__ == "__main__":
    main()
