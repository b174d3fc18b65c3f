"""Throughput of the default DA classifier against the tokeniser's, measured side by side.

    python benchmarks/da_classifier_speed.py [--replies N] [--repeats N] [--tagger DIR]
        [--no-assistant7] [--distinct-contexts] [--model NPZ]

Builds (context, reply) pairs from the bundled labelled set (seeded: contexts and replies
drawn independently, half of the replies reversed so most words are not met before), then,
``--repeats`` times in turn, each workload in one go (this machine is shared and its speed
drifts, so the two alternate and the best of each is compared; every run's ratio is printed):

1. fugashi alone on every reply: ``fugashi.Tagger().parse(text)`` (the tokeniser's rate, the
   denominator);
2. end to end: ``default_classifier().tag_many(contexts, replies)`` (features: char n-grams,
   context n-grams, overlap features, mean ja-ginza vectors, the previous utterance tagged by
   the context tagger; then the matrix product), with the
   vectors and MeCab loaded beforehand (their one-off load time is printed apart).

``--tagger DIR``: a ``taiwa da train`` output instead of the shipped model (e.g. one trained
with ``--char-ngram``, the faster option); ``--model NPZ``: a model written by the recipe
(``python -m taiwa.annotators.da_classifier.recipe --train --out DIR``). The context tagger
tags each distinct context once (a run tags every system's reply to one context), and the
contexts drawn repeat (1,029 distinct in 5,000); ``--distinct-contexts`` makes every
context distinct (a number appended), the worst case. Prints replies/s of each, the ratio
end-to-end / tokeniser, and whether end to end reaches the issue's target of 1,000 replies/s.

Then the same for the assistant7 offline annotator of da-response (issue 16): whole replies
(the bundled held-out replies, repeated to ``--replies``) split into sentences, every sentence
classified in one batch with its position, importances from the act × position model; beside
it the tokeniser on the same replies. Target: 500 replies/s.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import fugashi

from taiwa.annotators.da_classifier.model import DAClassifier, default_classifier, load_examples
from taiwa.annotators.da_classifier.own import load_own
from taiwa.benchmarks.da_response.labelled import load_labelled
from taiwa.benchmarks.da_response.shipped_annotator import HELD_OUT, default_annotator, sample_file


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replies", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tagger", type=Path, default=None, help="a `taiwa da train` output")
    parser.add_argument("--no-assistant7", action="store_true", help="skip the assistant7 part")
    parser.add_argument("--distinct-contexts", action="store_true", help="no context repeats")
    parser.add_argument("--model", type=Path, default=None, help="a recipe-written .npz")
    args = parser.parse_args()

    examples, _ = load_examples()
    rng = random.Random(0)
    contexts = [rng.choice(examples).context for _ in range(args.replies)]
    replies = [rng.choice(examples).reply for _ in range(args.replies)]
    replies = [r[::-1] if k % 2 else r for k, r in enumerate(replies)]
    if args.distinct_contexts:
        contexts = [f"{c} ({k})" for k, c in enumerate(contexts)]

    start = time.perf_counter()
    if args.model is not None:
        classifier = DAClassifier.load(args.model)
    else:
        classifier = default_classifier() if args.tagger is None else load_own(args.tagger)
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    classifier.tag_many(contexts[:5], replies[:5])
    warm = time.perf_counter() - start
    print(f"model loaded in {loaded:.2f} s; vectors + MeCab on first use {warm:.2f} s")

    tagger = fugashi.Tagger()
    best_tok, best_e2e = 0.0, 0.0
    for run in range(args.repeats):
        start = time.perf_counter()
        for r in replies:
            tagger.parse(r)
        tok = len(replies) / (time.perf_counter() - start)
        start = time.perf_counter()
        classifier.tag_many(contexts, replies)
        e2e = len(replies) / (time.perf_counter() - start)
        best_tok, best_e2e = max(best_tok, tok), max(best_e2e, e2e)
        print(
            f"run {run + 1}: tokeniser {tok:,.0f} replies/s, classifier {e2e:,.0f} replies/s, "
            f"ratio {e2e / tok:.3f}"
        )
    print(
        f"best: tokeniser {best_tok:,.0f}/s, classifier {best_e2e:,.0f}/s, "
        f"ratio {best_e2e / best_tok:.3f}; target 1,000/s "
        f"{'met' if best_e2e >= 1000 else 'NOT met'}"
    )
    if not args.no_assistant7:
        assistant7(args.replies, args.repeats)


def assistant7(n: int, repeats: int) -> None:
    """The offline assistant7 annotator's replies/s beside the tokeniser's."""
    replies, _ = load_labelled([sample_file(HELD_OUT)])
    contexts = [replies[k % len(replies)].context for k in range(n)]
    texts = [replies[k % len(replies)].text for k in range(n)]
    annotator = default_annotator()
    annotator.annotate_many(contexts[:5], texts[:5])
    tagger = fugashi.Tagger()
    best_tok, best_e2e = 0.0, 0.0
    for run in range(repeats):
        start = time.perf_counter()
        for r in texts:
            tagger.parse(r)
        tok = n / (time.perf_counter() - start)
        start = time.perf_counter()
        annotator.annotate_many(contexts, texts)
        e2e = n / (time.perf_counter() - start)
        best_tok, best_e2e = max(best_tok, tok), max(best_e2e, e2e)
        print(
            f"assistant7 run {run + 1}: tokeniser {tok:,.0f} replies/s, annotator "
            f"{e2e:,.0f} replies/s, ratio {e2e / tok:.3f}"
        )
    print(
        f"assistant7 best: tokeniser {best_tok:,.0f}/s, annotator {best_e2e:,.0f}/s, ratio "
        f"{best_e2e / best_tok:.3f}; target 500/s {'met' if best_e2e >= 500 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
