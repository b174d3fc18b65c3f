"""Reports of a trained dialogue-act classifier: the held-out table (per-act P/R/F1, macro-F1
beside the baselines) and how a retrained model differs from a shipped one (reproducibility
check of seed 002 §5.2's recipe)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from taiwa.annotators.da_classifier.features import Featurizer
    from taiwa.annotators.da_classifier.training import Softmax


class TrainedClassifier(Protocol):
    """What :func:`differences` compares of a fitted classifier
    (:class:`taiwa.annotators.da_classifier.model.DAClassifier`)."""

    @property
    def acts(self) -> tuple[str, ...]: ...
    @property
    def featurizer(self) -> Featurizer: ...
    @property
    def model(self) -> Softmax: ...
    @property
    def meta(self) -> dict[str, Any]: ...


def format_report(metrics: dict[str, Any], acts: Sequence[str]) -> str:
    """The held-out table: per-class P/R/F1 of the default, macro-F1 of all three (the majority
    act is the split's own)."""
    per = metrics["default"]["per_class"]
    lines = [f"{'act':<16} {'P':>6} {'R':>6} {'F1':>6} {'n':>4}"]
    for act in acts:
        r = per[act]
        lines.append(
            f"{act:<16} {r['precision']:6.3f} {r['recall']:6.3f} {r['f1']:6.3f} {r['support']:4d}"
        )
    top = metrics["majority"].get("act", "?")
    for key, label in (
        ("default", "default"),
        ("char_ngram", "char-n-gram LR"),
        ("majority", f"majority act {top}"),
    ):
        m = metrics[key]
        lines.append(f"macro-F1 {label:<16} {m['macro_f1']:.3f}  (accuracy {m['accuracy']:.3f})")
    return "\n".join(lines)


def differences(fresh: TrainedClassifier, shipped: TrainedClassifier) -> list[str]:
    """How a freshly trained model differs from the shipped one (empty: it reproduces it, the
    weights to float32 precision)."""
    import numpy as np

    out: list[str] = []
    if fresh.acts != shipped.acts:
        out.append("acts differ")
    if fresh.featurizer.settings != shipped.featurizer.settings:
        out.append("feature settings differ")
    for name in ("idf_reply", "idf_context"):
        a = getattr(fresh.featurizer, name).astype(np.float32)
        if not np.array_equal(a, getattr(shipped.featurizer, name)):
            out.append(f"{name} differs")
    for name, a, b in (
        ("weights", fresh.model.weights, shipped.model.weights),
        ("bias", fresh.model.bias, shipped.model.bias),
    ):
        if a.shape != b.shape or not np.allclose(a, b, rtol=1e-4, atol=1e-5):
            out.append(f"{name} differ")
    for key in ("held_out_metrics", "training_data", "held_out_data", "split", "question_rule"):
        if json.loads(json.dumps(fresh.meta.get(key))) != shipped.meta.get(key):
            out.append(f"{key} differs")
    if fresh.meta.get("training", {}).get("l2") != shipped.meta.get("training", {}).get("l2"):
        out.append("the L2 strength picked differs")
    fresh_ctx = getattr(fresh, "context_tagger", None)
    shipped_ctx = getattr(shipped, "context_tagger", None)
    if (fresh_ctx is None) != (shipped_ctx is None):
        out.append("context tagger present in one only")
    elif fresh_ctx is not None and shipped_ctx is not None:
        out += [f"context tagger: {d}" for d in differences(fresh_ctx, shipped_ctx)]
    return out
