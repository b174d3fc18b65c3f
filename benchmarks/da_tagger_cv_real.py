"""The default chitchat11 recipe by cross-validation by dialogue over its real-chat and
system-style *training* files (issue 38: choose a recipe without looking at a held-out split).

    python benchmarks/da_tagger_cv_real.py [--folds 4] [--previous-act] [--no-rule]
        [--no-last] [--l2 L] [--weight FILE=W ...] [--max-iter N] [--out FILE.npz]

Folds: the dialogues of ``realchat_train.jsonl`` and ``systemstyle_train.jsonl`` dealt into
``--folds`` folds (seeded); each fold's utterances are tagged by models fitted on the other
folds plus the team-written training files (tidy development split, chat-style, chat-style
more), every file at its :data:`~taiwa.annotators.da_classifier.recipe.WEIGHTS` unless
``--weight`` says otherwise. Two models per fold, both at the shipped L2 strength: the default
recipe (:func:`~taiwa.annotators.da_classifier.recipe.fit_default`: last-sentence block and
question rule, each of which can be left out; ``--previous-act`` adds the previous-act block)
and the char-n-gram LR baseline, each fit stopped after ``--max-iter`` L-BFGS-B iterations
(default: the recipe's :data:`~taiwa.annotators.da_classifier.recipe.MAX_ITER`).

Prints, pooled over the folds, for the real-chat and the system-style utterances apart:
accuracy and macro-F1 of the default, of the baseline and of the part's own majority act;
the predicted / true count of every act; and the paired bootstrap 95 % CI of the default's
macro-F1 margin over the baseline. ``--out``: the out-of-fold probabilities, gold act indices,
folds and parts, to try decision rules on without refitting.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np

from taiwa.annotators.da_classifier import recipe
from taiwa.annotators.da_classifier.model import char_ngram_settings, fit, taxonomy_acts
from taiwa.annotators.da_classifier.training import class_report

SEED = 38


def folds_of(groups: list[str], k: int) -> list[int]:
    order = sorted(set(groups))
    random.Random(SEED).shuffle(order)
    fold = {g: i % k for i, g in enumerate(order)}
    return [fold[g] for g in groups]


def margin_ci(gold: list[str], a: list[str], b: list[str], acts: list[str]) -> list[float]:
    rng = np.random.default_rng(0)
    n, out = len(gold), []
    for _ in range(1000):
        idx = rng.integers(0, n, n)
        g = [gold[i] for i in idx]
        out.append(
            class_report(g, [a[i] for i in idx], acts)["macro_f1"]
            - class_report(g, [b[i] for i in idx], acts)["macro_f1"]
        )
    return [float(v) for v in np.percentile(out, [2.5, 97.5])]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument(
        "--previous-act", action="store_true", help="with the previous-act block (not shipped)"
    )
    parser.add_argument("--no-rule", action="store_true", help="without the question rule")
    parser.add_argument("--no-last", action="store_true", help="without the last-sentence block")
    parser.add_argument("--l2", type=float, default=recipe.SHIPPED_L2_GRID[0])
    parser.add_argument("--weight", action="append", default=[], help="FILE=W (a file's name)")
    parser.add_argument(
        "--max-iter", type=int, default=recipe.MAX_ITER, help="L-BFGS-B iterations at most"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    for item in args.weight:
        name, value = item.split("=")
        path = next(p for p in recipe.WEIGHTS if p.endswith(name))
        recipe.WEIGHTS[path] = float(value)
    recipe.QUESTION_RULE = not args.no_rule
    if args.no_last:
        recipe.LAST_BITS = 0
    recipe.MAX_ITER = args.max_iter

    acts = taxonomy_acts()
    train, _, _ = recipe.training_sets()
    parts = {
        "real-chat": {e.id for e in recipe.bundled(recipe.REAL_TRAIN_PATH)},
        "system-style": {e.id for e in recipe.bundled(recipe.SYSTEM_TRAIN_PATH)},
    }
    part_of = {i: name for name, ids in parts.items() for i in ids}
    fixed = [e for e in train if e.id not in part_of]
    scored = [e for e in train if e.id in part_of]
    fold = np.array(folds_of([e.group or e.id for e in scored], args.folds))
    proba = {k: np.zeros((len(scored), len(acts))) for k in ("default", "ngram")}
    preds: dict[str, list[str]] = {"default": [""] * len(scored), "ngram": [""] * len(scored)}
    start = time.perf_counter()
    for k in range(args.folds):
        rest = [e for e, f in zip(scored, fold, strict=True) if f != k]
        here = np.flatnonzero(fold == k)
        test = [scored[i] for i in here]
        contexts, replies = [e.context for e in test], [e.reply for e in test]
        default, _ = recipe.fit_default(
            fixed + rest, acts, (args.l2,), previous_act=args.previous_act
        )
        ngram, _ = fit(
            fixed + rest, acts, char_ngram_settings(), (args.l2,), args.l2, False, args.max_iter
        )
        for name, model in (("default", default), ("ngram", ngram)):
            proba[name][here] = model.proba(contexts, replies)
            for i, t in zip(here, model.tag_many(contexts, replies), strict=True):
                preds[name][i] = t
        print(f"fold {k}: {time.perf_counter() - start:.0f} s", flush=True)
    for part in parts:
        idx = [i for i, e in enumerate(scored) if part_of[e.id] == part]
        gold = [scored[i].act for i in idx]
        d = [preds["default"][i] for i in idx]
        b = [preds["ngram"][i] for i in idx]
        top = recipe.own_majority([scored[i] for i in idx], acts)
        rows = {
            "default": class_report(gold, d, acts),
            "char-n-gram LR": class_report(gold, b, acts),
            f"majority ({top})": class_report(gold, [top] * len(gold), acts),
        }
        print(f"== {part} (n = {len(gold)}, {len({scored[i].group for i in idx})} dialogues)")
        for name, r in rows.items():
            print(f"  {name:<24} accuracy {r['accuracy']:.3f}  macro-F1 {r['macro_f1']:.3f}")
        low, high = margin_ci(gold, d, b, acts)
        margin = rows["default"]["macro_f1"] - rows["char-n-gram LR"]["macro_f1"]
        print(f"  margin over the char-n-gram LR {margin:+.3f} [{low:+.3f}, {high:+.3f}]")
        true_n, pred_n = Counter(gold), Counter(d)
        print("  predicted/true: " + ", ".join(f"{a} {pred_n[a]}/{true_n[a]}" for a in acts))
        per = rows["default"]["per_class"]
        print("  F1: " + ", ".join(f"{a} {per[a]['f1']:.2f}" for a in acts if true_n[a]))
    if args.out is not None:
        gold_idx = np.array([acts.index(e.act) for e in scored])
        part_idx = np.array([list(parts).index(part_of[e.id]) for e in scored])
        np.savez_compressed(args.out, gold=gold_idx, fold=fold, part=part_idx, **proba)


if __name__ == "__main__":
    main()
