"""Training and evaluation pieces of the default DA classifier (no scikit-learn).

- :func:`stratified_split`: seeded, per-class split (the held-out split and seed 002 §5.2's
  4:1 train/validation split);
- :func:`upsample`: every class repeated up to the size of the largest (seed 002 §5.2);
- :func:`fit_softmax`: multinomial logistic regression, softmax cross-entropy + L2 on the
  weights (not the biases), minimised by ``scipy.optimize.minimize(method="L-BFGS-B")`` from
  zeros: deterministic for the same inputs;
- :func:`class_report`: per-class precision / recall / F1 and macro-F1 (seed 002 Table 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


def stratified_split(
    labels: Sequence[str], fraction: float, seed: int
) -> tuple[list[int], list[int]]:
    """``(rest, picked)`` indices: ``round(fraction * n_c)`` of each class picked at random
    (seeded, classes in sorted order), the rest kept; both sorted."""
    rng = np.random.default_rng(seed)
    picked: list[int] = []
    for act in sorted(set(labels)):
        idx = np.array([i for i, a in enumerate(labels) if a == act], dtype=np.int64)
        k = round(fraction * len(idx))
        picked += rng.permutation(idx)[:k].tolist()
    chosen = set(picked)
    return [i for i in range(len(labels)) if i not in chosen], sorted(picked)


def upsample(labels: Sequence[str], seed: int) -> list[int]:
    """Indices with every class brought up to the size of the largest: whole copies, then a
    seeded sample without replacement for the remainder; sorted."""
    rng = np.random.default_rng(seed)
    by_act: dict[str, list[int]] = {}
    for i, a in enumerate(labels):
        by_act.setdefault(a, []).append(i)
    top = max(len(v) for v in by_act.values())
    out: list[int] = []
    for act in sorted(by_act):
        idx = by_act[act]
        copies, rest = divmod(top, len(idx))
        out += idx * copies
        out += rng.choice(np.array(idx), size=rest, replace=False).tolist()
    return sorted(out)


@dataclass
class Softmax:
    """Weights ``(n_features, n_classes)`` and biases of a multinomial logistic regression."""

    weights: np.ndarray
    bias: np.ndarray

    def scores(self, x: Any) -> np.ndarray:
        out: np.ndarray = np.asarray(x @ self.weights) + self.bias
        return out

    def proba(self, x: Any) -> np.ndarray:
        z = self.scores(x)
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=1, keepdims=True)
        return z


def copy_counts(n: int, indices: Sequence[int]) -> np.ndarray:
    """How many times each of ``n`` rows occurs in ``indices`` (an upsampling as weights)."""
    return np.bincount(np.asarray(indices, dtype=np.int64), minlength=n).astype(np.float64)


class SoftmaxObjective:
    """Weighted mean softmax cross-entropy + ``l2 / 2 * ||W||²`` of a design matrix, over the
    columns some row uses (the others have gradient 0 and stay exactly 0). ``weights`` are
    per-row counts (an upsampled set without duplicated rows: the same objective as repeating
    each row that many times)."""

    def __init__(
        self,
        x: Any,
        y: np.ndarray,
        n_classes: int,
        l2: float,
        weights: np.ndarray | None = None,
    ) -> None:
        x = x.tocsc()
        self.n_features = x.shape[1]
        self.used = np.flatnonzero(np.diff(x.indptr))
        self.x = x[:, self.used].tocsr()
        self.xt = self.x.T.tocsr()
        n = self.x.shape[0]
        self.k = n_classes
        self.l2 = l2
        self.onehot = np.zeros((n, n_classes))
        self.onehot[np.arange(n), y] = 1.0
        share = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
        self.total_weight = float(share.sum())
        self.share = (share / share.sum())[:, None]

    @property
    def size(self) -> int:
        return len(self.used) * self.k + self.k

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        d, k = len(self.used), self.k
        w = theta[: d * k].reshape(d, k)
        b = theta[d * k :]
        z = np.asarray(self.x @ w) + b
        z -= z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z).sum(axis=1))
        logp = z - lse[:, None]
        loss = -float((self.share * self.onehot * logp).sum()) + 0.5 * self.l2 * float(
            (w * w).sum()
        )
        diff = (np.exp(logp) - self.onehot) * self.share
        grad_w = np.asarray(self.xt @ diff) + self.l2 * w
        return loss, np.concatenate([grad_w.ravel(), diff.sum(axis=0)])

    def theta(self, model: Softmax) -> np.ndarray:
        """A model's parameters in this objective's layout (weights of unused columns must
        be 0 for the objective to be the model's)."""
        return np.concatenate([model.weights[self.used].ravel(), model.bias])

    def model(self, theta: np.ndarray) -> Softmax:
        d, k = len(self.used), self.k
        weights = np.zeros((self.n_features, k))
        weights[self.used] = theta[: d * k].reshape(d, k)
        return Softmax(weights, theta[d * k :].copy())


def fit_softmax(
    x: Any,
    y: np.ndarray,
    n_classes: int,
    l2: float,
    weights: np.ndarray | None = None,
    max_iter: int = 2000,
) -> tuple[Softmax, dict[str, Any]]:
    """Minimise :class:`SoftmaxObjective` with L-BFGS-B from zeros (deterministic: sparse
    products and element-wise numpy only). Returns the model and the optimiser's report."""
    return minimize_objective(SoftmaxObjective(x, y, n_classes, l2, weights), max_iter)


def minimize_objective(
    objective: SoftmaxObjective, max_iter: int = 2000
) -> tuple[Softmax, dict[str, Any]]:
    """:func:`fit_softmax` of a built objective."""
    from scipy.optimize import minimize

    res = minimize(
        objective,
        np.zeros(objective.size),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": 1e-7, "ftol": 1e-12},
    )
    report = {"iterations": int(res.nit), "converged": bool(res.success), "loss": float(res.fun)}
    return objective.model(res.x), report


def cross_entropy(proba: np.ndarray, y: np.ndarray) -> float:
    """Mean cross-entropy (nats) of the true classes."""
    p = proba[np.arange(len(y)), y]
    return float(-np.log(np.clip(p, 1e-300, None)).mean())


def class_report(gold: Sequence[str], pred: Sequence[str], acts: Sequence[str]) -> dict[str, Any]:
    """Per-class precision / recall / F1 / support, macro-F1 and accuracy (a class never
    predicted has precision 0; F1 is 0 when precision + recall is 0)."""
    per: dict[str, dict[str, float]] = {}
    for act in acts:
        tp = sum(g == act and p == act for g, p in zip(gold, pred, strict=True))
        n_pred = sum(p == act for p in pred)
        n_gold = sum(g == act for g in gold)
        prec = tp / n_pred if n_pred else 0.0
        rec = tp / n_gold if n_gold else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per[act] = {"precision": prec, "recall": rec, "f1": f1, "support": n_gold}
    present = [a for a in acts if per[a]["support"]]
    macro = sum(per[a]["f1"] for a in present) / len(present) if present else 0.0
    acc = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold) if gold else 0.0
    return {"per_class": per, "macro_f1": macro, "accuracy": acc, "n": len(gold)}
