"""The default chitchat11 tagger against its char-n-gram baseline, by 4-fold cross-validation
over the chat-style *training* dialogues (issue 26: choose a recipe without looking at the
held-out splits).

    python benchmarks/da_tagger_cv.py [--previous-act] [--no-more] [--out FILE.npz]
        [--reference FILE.npz] [--held-out]
        [--llm-embedding CACHE.npz [--llm-variants V,V] [--llm-context] [--llm-pca K]]

Folds: the dialogues of ``chatstyle_train.jsonl`` dealt into 4 folds as the previous-act
block's cross-fitting deals them (:func:`~taiwa.annotators.da_classifier.previous_act.folds_of`);
each
fold's utterances are tagged by models fitted on the other three folds plus the tidy set's
development split and ``chatstyle_train_more.jsonl`` (``--no-more``: without it). Both models
are fitted at the shipped L2 strength with acts not upsampled, as the shipped recipe
(:mod:`taiwa.annotators.da_classifier.recipe`); the default without the previous-act block
unless ``--previous-act`` (then four context taggers more per fold: several times slower).

Prints per fold and pooled (n = every training chat-style utterance) macro-F1 and accuracy of
both, the margin, and a paired 95 % bootstrap CI of the pooled margin (the same utterances
resampled for both, 1,000 resamples, seed 0). ``--out``: the out-of-fold probabilities of both
models, the gold act indices and the fold of each utterance, to try decision rules or
ensembles on without refitting; ``--reference FILE.npz``: the two models' probabilities
read from such a file instead of refitted (for the variants below). ``--held-out``: once,
fitted on all the training data above and scored on ``chatstyle_heldout.jsonl`` (one "fold";
for a recipe already chosen on the cross-validation, not to choose one).

``--llm-embedding CACHE``: the demo LLM's hidden states as a feature block (issue 26, tried:
:mod:`da_llm_probe`; the cache is filled by ``benchmarks/da_llm_embedding.py CACHE``, texts
missing from it are computed). ``--llm-variants``: comma-separated ``default+llm@SCALE``
(the default's rows and the block at row norm SCALE), ``ngram+llm@SCALE`` (the baseline's rows
and the block) and ``llm@L2`` (the block alone, a logistic regression at strength L2). Each is
printed per fold and pooled beside the two models above, with its margin over the char-n-gram
baseline (paired bootstrap CI) and its change over the default (paired bootstrap CI).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from taiwa.annotators.da_classifier.model import (
    Example,
    char_ngram_settings,
    fit,
    held_out_split,
    load_examples,
    taxonomy_acts,
)
from taiwa.annotators.da_classifier.previous_act import FOLDS, fit_with_previous, folds_of
from taiwa.annotators.da_classifier.recipe import (
    BALANCE,
    CHAT_HELD_OUT_PATH,
    CHAT_TRAIN_PATH,
    SHIPPED_L2_GRID,
    bundled,
    default_settings,
)
from taiwa.annotators.da_classifier.training import class_report

MORE_PATH = "data/samples/da_distribution/chatstyle_train_more.jsonl"
Embed = Callable[[Sequence[Example]], np.ndarray]


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


def llm_rows(args: argparse.Namespace, examples: list[Example], tested: list[Example]) -> Embed:
    """The raw embedding block of examples, from the cache (filled first for the training
    ``examples`` and their unpunctuated copies and for the ``tested`` ones)."""
    from da_llm_embedding import embeddings, matrix
    from taiwa.annotators.da_classifier.chat_text import strip_punctuation

    texts = [e.reply for e in examples] + [strip_punctuation(e.reply) for e in examples]
    texts += [e.reply for e in tested]
    texts += [e.context for e in examples + tested] if args.llm_context else []
    cache, rate = embeddings(texts, args.llm_embedding)
    if rate is not None:
        print(f"embedded the missing texts at {rate:.1f} texts/s", flush=True)
    vectors = cache["mean"]

    def rows(part: Sequence[Example]) -> np.ndarray:
        reply = matrix(vectors, [e.reply for e in part])
        if not args.llm_context:
            return reply
        return np.hstack([reply, matrix(vectors, [e.context for e in part])])

    return rows


def probe_fold(
    variants: list[str],
    embed: Embed,
    train: list[Example],
    test: list[Example],
    acts: list[str],
    l2: float,
    pca: int,
) -> dict[str, np.ndarray]:
    """Test probabilities of each ``--llm-variants`` model fitted on ``train``."""
    from da_llm_probe import Block, fit_and_tag, sparse_rows, with_block

    index = {a: k for k, a in enumerate(acts)}
    out: dict[str, np.ndarray] = {}
    prepared: dict[str, tuple[list[Example], Any, Any]] = {}
    for v in variants:
        kind, value = v.split("@")
        settings = {"default+llm": default_settings(), "ngram+llm": char_ngram_settings()}.get(kind)
        if kind not in prepared:
            prepared[kind] = sparse_rows(settings, train, test)
        rows, x_train, x_test = prepared[kind]
        raw_train, raw_test = embed(rows), embed(test)
        block = Block.fit(raw_train, pca)
        y = np.array([index[e.act] for e in rows])
        norm, strength = (1.0, float(value)) if kind == "llm" else (float(value), l2)
        x_tr, x_te = with_block(x_train, x_test, raw_train, raw_test, block, norm)
        out[v] = fit_and_tag(x_tr, y, x_te, len(acts), strength)
    return out


def reference_fold(
    previous_act: bool,
    train: list[Example],
    test: list[Example],
    acts: list[str],
    l2: float,
    proba: dict[str, np.ndarray],
    here: np.ndarray,
) -> None:
    """The default and the char-n-gram baseline fitted on ``train``, their probabilities of
    ``test`` written into the ``here`` rows of ``proba``."""
    if previous_act:
        default, _ = fit_with_previous(train, acts, default_settings(), (l2,), l2, BALANCE)
    else:
        default, _ = fit(train, acts, default_settings(), (l2,), l2, BALANCE)
    ngram, _ = fit(train, acts, char_ngram_settings(), (l2,), l2, BALANCE)
    contexts, replies = [e.context for e in test], [e.reply for e in test]
    proba["default"][here] = default.proba(contexts, replies)
    proba["ngram"][here] = ngram.proba(contexts, replies)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--previous-act", action="store_true", help="the shipped previous-act block"
    )
    parser.add_argument("--no-more", action="store_true", help="leave chatstyle_train_more out")
    parser.add_argument(
        "--out", type=Path, default=None, help="write the out-of-fold probabilities"
    )
    parser.add_argument(
        "--reference", type=Path, default=None, help="the two models' probabilities from --out"
    )
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="once: fitted on all training data, scored on the chat-style held-out split",
    )
    parser.add_argument("--llm-embedding", type=Path, default=None, help="embedding cache")
    parser.add_argument("--llm-variants", default="default+llm@1,llm@1e-3,ngram+llm@1")
    parser.add_argument("--llm-context", action="store_true", help="the context's vector too")
    parser.add_argument("--llm-pca", type=int, default=0, help="principal components kept")
    args = parser.parse_args()

    acts = taxonomy_acts()
    l2 = SHIPPED_L2_GRID[0]
    dev, _ = held_out_split(load_examples()[0])
    chat = bundled(CHAT_TRAIN_PATH)
    always = dev + ([] if args.no_more else bundled(MORE_PATH))
    scored = bundled(CHAT_HELD_OUT_PATH) if args.held_out else chat
    fold = np.zeros(len(scored), dtype=int) if args.held_out else np.array(folds_of(chat))
    gold = np.array([acts.index(e.act) for e in scored])
    variants = args.llm_variants.split(",") if args.llm_embedding else []
    proba = {v: np.zeros((len(scored), len(acts))) for v in ["default", "ngram", *variants]}
    embed = None if args.llm_embedding is None else llm_rows(args, always + chat, scored)
    if args.reference is not None:
        with np.load(args.reference, allow_pickle=False) as f:
            if not (np.array_equal(f["gold"], gold) and np.array_equal(f["fold"], fold)):
                parser.error(f"{args.reference}: other utterances or folds")
            proba["default"], proba["ngram"] = f["default"], f["ngram"]
    for k in range(1 if args.held_out else FOLDS):
        start = time.perf_counter()
        rest = chat if args.held_out else [e for e, f in zip(chat, fold, strict=True) if f != k]
        train = always + rest
        test = [e for e, f in zip(scored, fold, strict=True) if f == k]
        here = fold == k
        if args.reference is None:
            reference_fold(args.previous_act, train, test, acts, l2, proba, here)
        if embed is not None:
            for v, p in probe_fold(variants, embed, train, test, acts, l2, args.llm_pca).items():
                proba[v][here] = p
        d = scores(gold[here], proba["default"][here].argmax(1), acts)
        b = scores(gold[here], proba["ngram"][here].argmax(1), acts)
        print(
            f"fold {k} (n = {here.sum()}, {time.perf_counter() - start:.0f} s): default "
            f"{d[0]:.3f} / {d[1]:.3f}, char-n-gram {b[0]:.3f} / {b[1]:.3f}, "
            f"margin {d[0] - b[0]:+.3f}",
            flush=True,
        )
        for v in variants:
            m = scores(gold[here], proba[v][here].argmax(1), acts)
            print(f"  {v}: {m[0]:.3f} / {m[1]:.3f}, margin {m[0] - b[0]:+.3f}", flush=True)
    pred_d, pred_b = proba["default"].argmax(1), proba["ngram"].argmax(1)
    d, b = scores(gold, pred_d, acts), scores(gold, pred_b, acts)
    low, high = margin_ci(gold, pred_d, pred_b, acts)
    print(
        f"pooled (n = {len(scored)}): default macro-F1 {d[0]:.3f} accuracy {d[1]:.3f}; "
        f"char-n-gram {b[0]:.3f} / {b[1]:.3f}; margin {d[0] - b[0]:+.3f} [{low:+.3f}, {high:+.3f}]"
    )
    for v in variants:
        pred = proba[v].argmax(1)
        m = scores(gold, pred, acts)
        low, high = margin_ci(gold, pred, pred_b, acts)
        c_low, c_high = margin_ci(gold, pred, pred_d, acts)
        print(
            f"  {v}: {m[0]:.3f} / {m[1]:.3f}; margin {m[0] - b[0]:+.3f} [{low:+.3f}, "
            f"{high:+.3f}]; change over the default {m[0] - d[0]:+.3f} [{c_low:+.3f}, "
            f"{c_high:+.3f}]"
        )
    if args.out is not None:
        np.savez_compressed(args.out, gold=gold, fold=fold, **proba)


if __name__ == "__main__":
    main()
