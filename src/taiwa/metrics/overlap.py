"""Japanese ROUGE: rouge-score with a Japanese tokenizer passed in (seed 001, 簡易評価).

rouge-score's default tokenizer keeps only ``[a-z0-9]`` and so drops Japanese entirely; we
pass :class:`taiwa.text.FugashiTokenizer` (or any :class:`~taiwa.text.Tokenizer`) instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from rouge_score.rouge_scorer import RougeScorer

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
    scorer = RougeScorer(list(ROUGE_TYPES), tokenizer=tokenizer or default_tokenizer())
    s = scorer.score(ref, pred)  # rouge-score takes (target, prediction)
    return RougeScores(s["rouge1"].fmeasure, s["rouge2"].fmeasure, s["rougeL"].fmeasure)
