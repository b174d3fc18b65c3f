"""Japanese ROUGE-1/2/L F-measures on Japanese tokens (seed 001, 簡易評価).

The formulas are rouge-score's (Lin 2004, as ``rouge_score.rouge_scorer`` computes them for a
tokenizer passed in): n-gram overlap with clipped counts over the prediction's and the
reference's n-grams, and the longest common subsequence over their lengths, each combined as
F = 2PR / (P + R); ``tests/test_overlap.py`` checks them equal to rouge-score's, float for
float. They are computed here rather than through rouge-score because its module imports all
of NLTK (for a Porter stemmer we never use: rouge-score's own tokenizer keeps only
``[a-z0-9]`` and would drop Japanese entirely), and NLTK imports SciPy: 1.1 s of imports in
every process that scores a reply, landing on a run's request phase or its exit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from taiwa.text.tokenizer import Tokenizer, default_tokenizer

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


@dataclass(frozen=True)
class RougeScores:
    """ROUGE-1, ROUGE-2 and ROUGE-L F-measures."""

    rouge1: float
    rouge2: float
    rougeL: float

    def as_dict(self) -> dict[str, float]:
        return {"rouge1": self.rouge1, "rouge2": self.rouge2, "rougeL": self.rougeL}


def rouge_ja(pred: str, ref: str, *, tokenizer: Tokenizer | None = None) -> RougeScores:
    """ROUGE-1/2/L F-measure of ``pred`` against ``ref`` on Japanese tokens.

    Identical non-empty texts score 1.0. If either side has no token (empty or only
    punctuation), every score is 0.0: there is no content to match.
    """
    tok = tokenizer or default_tokenizer()
    ref_tokens, pred_tokens = tok.tokenize(ref), tok.tokenize(pred)
    return RougeScores(
        ngram_f(ref_tokens, pred_tokens, 1),
        ngram_f(ref_tokens, pred_tokens, 2),
        lcs_f(ref_tokens, pred_tokens),
    )


def f_measure(precision: float, recall: float) -> float:
    """2PR / (P + R), 0 when both are 0."""
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def ngram_f(ref: Sequence[str], pred: Sequence[str], n: int) -> float:
    """ROUGE-N's F-measure: shared n-grams (each counted at most as often as in either side)
    over the prediction's n-grams (P) and the reference's (R)."""
    ref_grams, pred_grams = _ngrams(ref, n), _ngrams(pred, n)
    shared = sum(min(count, pred_grams[gram]) for gram, count in ref_grams.items())
    precision = shared / max(sum(pred_grams.values()), 1)
    recall = shared / max(sum(ref_grams.values()), 1)
    return f_measure(precision, recall)


def lcs_f(ref: Sequence[str], pred: Sequence[str]) -> float:
    """ROUGE-L's F-measure: the longest common subsequence over the prediction's length (P)
    and the reference's (R); 0 when either side has no token."""
    if not ref or not pred:
        return 0.0
    length = lcs_length(ref, pred)
    return f_measure(length / len(pred), length / len(ref))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of the longest common subsequence of ``a`` and ``b`` (dynamic programming,
    one row at a time)."""
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b, start=1):
            row.append(previous[j - 1] + 1 if x == y else max(previous[j], row[j - 1]))
        previous = row
    return previous[-1]
