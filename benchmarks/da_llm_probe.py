"""The demo LLM's hidden states (:mod:`da_llm_embedding`) as a feature block of the default
chitchat11 tagger and of its char-n-gram baseline, and alone, on the folds of
``benchmarks/da_tagger_cv.py --llm-embedding CACHE`` (issue 26, point 1).

A block: the cached vectors of the reply (mean-pooled; with
``--llm-context`` also of the previous utterance, zeros for an opening), standardised on the
fold's training rows, optionally reduced to ``--llm-pca`` principal components (of the
standardised training rows), then scaled so that a row's norm is about ``scale`` (the L2
penalty on the block is ``l2 / scale²`` of the unscaled one: the scale is the block's
regularisation). Appended to the default's sparse feature rows (``default+llm@SCALE``), to the
char-n-gram baseline's (``ngram+llm@SCALE``), or fitted alone (``llm@L2``: a logistic
regression on the block at row norm 1 and strength ``L2``); same recipe otherwise (the
unpunctuated copies of punctuated replies, acts not upsampled).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from taiwa.annotators.da_classifier.features import FeatureSettings, Featurizer
from taiwa.annotators.da_classifier.model import Example, augmented, design
from taiwa.annotators.da_classifier.training import SoftmaxObjective, minimize_objective


@dataclass
class Block:
    """Standardisation (and projection) of an embedding block, fitted on training rows."""

    mean: np.ndarray
    scale: np.ndarray
    projection: np.ndarray | None

    @classmethod
    def fit(cls, raw: np.ndarray, pca: int) -> Block:
        mean, sd = raw.mean(axis=0), raw.std(axis=0) + 1e-6
        z = (raw - mean) / sd
        projection = None
        if pca:
            _, _, vt = np.linalg.svd(z, full_matrices=False)
            projection = vt[:pca].T
        return cls(mean, sd, projection)

    def rows(self, raw: np.ndarray, norm: float) -> np.ndarray:
        z = (raw - self.mean) / self.scale
        if self.projection is not None:
            z = z @ self.projection
        return z * (norm / np.sqrt(z.shape[1]))


def sparse_rows(
    settings: FeatureSettings | None, train: Sequence[Example], test: Sequence[Example]
) -> tuple[list[Example], Any, Any]:
    """``(training rows with their unpunctuated copies, their sparse features, the test
    examples' sparse features)``; ``settings`` None: no sparse block (the copies are the
    casual recipe's)."""
    base = settings or FeatureSettings(casual=True)
    rows = augmented(train, base)
    if settings is None:
        return rows, sp.csr_matrix((len(rows), 0)), sp.csr_matrix((len(test), 0))
    feat = Featurizer.fit(settings, [e.context for e in train], [e.reply for e in train])
    return rows, design(feat, rows), design(feat, test)


def fit_and_tag(
    x_train: Any,
    y: np.ndarray,
    x_test: Any,
    n_acts: int,
    l2: float,
) -> np.ndarray:
    """Probabilities of the test rows from a softmax regression fitted on the training rows."""
    objective = SoftmaxObjective(sp.csr_matrix(x_train), y, n_acts, l2)
    model, _ = minimize_objective(objective)
    return model.proba(sp.csr_matrix(x_test))


def with_block(
    sparse_train: Any,
    sparse_test: Any,
    emb_train: np.ndarray,
    emb_test: np.ndarray,
    block: Block,
    norm: float,
) -> tuple[Any, Any]:
    """The sparse rows with the scaled embedding block appended."""
    return (
        sp.hstack([sparse_train, sp.csr_matrix(block.rows(emb_train, norm))]).tocsr(),
        sp.hstack([sparse_test, sp.csr_matrix(block.rows(emb_test, norm))]).tocsr(),
    )
