"""The embedded dialogue-act classifier (seed 002 §5.2, issue 12), one for every taxonomy.

A (context, utterance) pair → one act of the taxonomy it was trained on. The shipped default
tags chit-chat replies with ``chitchat11``; a method hands other taxonomies and training sets to
:func:`fit` (e.g. ``assistant7`` sentence by sentence, with position features: issue 16).

Features (:mod:`.da_classifier_features`): hashed character 1–3-grams of the reply (TF-IDF),
of the previous utterance (its own hash space), the reply's mean ja-ginza word vector, and
reply/context overlap features that make echoes (``builtin:parrot``) come out as
うなずき・おうむ返し. Model: multinomial logistic regression with L2, fitted with L-BFGS-B
(:mod:`.da_classifier_train`; no scikit-learn).

Recipe (:func:`train`), seeded and deterministic, on the bundled labelled set
(``data/samples/da_distribution/labelled.jsonl``):

1. a stratified held-out split (20 %, seed :data:`SEED`), never trained on;
2. the rest split train/validation 4:1 (stratified, seeded), every class of the training part
   upsampled to the size of the largest (seed 002 §5.2); the L2 strength is the one of
   :data:`L2_GRID` with the lowest validation cross-entropy (the seed keeps the epoch with the
   lowest validation cross-entropy; here the regularisation is what is picked);
3. the shipped model: idf and weights refitted on train + validation (upsampled) at that
   strength; evaluated on the held-out split beside a majority-class baseline and a
   char-n-gram-only logistic regression trained by the same recipe.

The model ships as package data without pickle: ``data/models/da_chitchat11.npz`` (weight rows
that are not zero, biases, idf vectors; read with ``allow_pickle=False``) and a JSON sidecar
(taxonomy, acts, feature settings, training-data SHA-256, L2 strength, held-out metrics,
version). Rebuild it with ``python -m taiwa.annotators.da_classifier --train`` (1–2 minutes:
the L2 search is most of it); ``--check`` retrains in memory and compares with the shipped files;
``--evaluate`` prints the held-out table.

Heavy imports (numpy, scipy, fugashi, the vectors) happen inside functions: importing this
module costs nothing at ``import taiwa.cli`` time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.annotators.da_classifier_report import differences as differences
from taiwa.annotators.da_classifier_report import format_report

if TYPE_CHECKING:
    import numpy as np

    from taiwa.annotators.da_classifier_features import FeatureSettings, Featurizer
    from taiwa.annotators.da_classifier_train import Softmax, SoftmaxObjective

VERSION = 1
"""Format and recipe version of the shipped model (bump when either changes)."""

TAXONOMY = "chitchat11"
SEED = 12
HELD_OUT = 0.2
VALIDATION = 0.2
L2_GRID = (1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3)
MODEL_NAME = "da_chitchat11"
DATA_PATH = "data/samples/da_distribution/labelled.jsonl"
ECHO = "うなずき・おうむ返し"


@dataclass(frozen=True)
class Example:
    """One labelled utterance; ``index``/``count``: its sentence position in the turn (count 0:
    not split into sentences)."""

    id: str
    context: str
    reply: str
    act: str
    index: int = 0
    count: int = 0

    @property
    def position(self) -> tuple[int, int]:
        return (self.index, self.count)


def design(featurizer: Featurizer, examples: Sequence[Example]) -> Any:
    """The feature matrix of ``examples``."""
    return featurizer.transform(
        [e.context for e in examples], [e.reply for e in examples], [e.position for e in examples]
    )


def load_examples(path: Path | None = None) -> tuple[list[Example], str]:
    """The labelled examples and the SHA-256 of the file's bytes (the bundled set by default)."""
    raw = (
        path.read_bytes()
        if path is not None
        else resources.files("taiwa").joinpath(DATA_PATH).read_bytes()
    )
    rows = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    examples = [Example(r["id"], r["context"], r["reply"], r["act"]) for r in rows]
    return examples, hashlib.sha256(raw).hexdigest()


def held_out_split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    """``(development, held_out)``: the seeded stratified 80/20 split the metrics use."""
    from taiwa.annotators.da_classifier_train import stratified_split

    dev, test = stratified_split([e.act for e in examples], HELD_OUT, SEED)
    return [examples[i] for i in dev], [examples[i] for i in test]


@dataclass
class DAClassifier:
    """A fitted (context, reply) → act classifier."""

    acts: tuple[str, ...]
    featurizer: Featurizer
    model: Softmax
    meta: dict[str, Any] = field(default_factory=dict)
    name: str = "default:da-logreg"
    taxonomy: str = TAXONOMY

    def proba(
        self,
        contexts: Sequence[str],
        replies: Sequence[str],
        positions: Sequence[tuple[int, int]] | None = None,
    ) -> np.ndarray:
        """``len(replies) × len(acts)`` probabilities."""
        return self.model.proba(self.featurizer.transform(contexts, replies, positions))

    def tag_many(
        self,
        contexts: Sequence[str],
        replies: Sequence[str],
        positions: Sequence[tuple[int, int]] | None = None,
    ) -> list[str]:
        """The act of each reply given its previous utterance (and, for a model with position
        features, its ``(index, count)`` in the turn)."""
        if not replies:
            return []
        x = self.featurizer.transform(contexts, replies, positions)
        best = self.model.scores(x).argmax(axis=1)
        return [self.acts[int(k)] for k in best]

    def tag(self, context: str, reply: str) -> str:
        return self.tag_many([context], [reply])[0]

    def save(self, directory: Path, stem: str = MODEL_NAME) -> tuple[Path, Path]:
        """Write ``STEM.npz`` (no object arrays) and ``STEM.json``; returns both paths."""
        import numpy as np

        directory.mkdir(parents=True, exist_ok=True)
        w = self.model.weights
        rows = np.flatnonzero(np.any(w != 0, axis=1)).astype(np.int32)
        npz, sidecar = directory / f"{stem}.npz", directory / f"{stem}.json"
        np.savez_compressed(
            npz,
            rows=rows,
            weights=w[rows].astype(np.float32),
            bias=self.model.bias.astype(np.float64),
            idf_reply=self.featurizer.idf_reply.astype(np.float32),
            idf_context=self.featurizer.idf_context.astype(np.float32),
        )
        meta = {
            **self.meta,
            "version": VERSION,
            "taxonomy": self.taxonomy,
            "acts": list(self.acts),
            "features": self.featurizer.settings.to_json(),
            "n_features": int(w.shape[0]),
        }
        sidecar.write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", "utf-8")
        return npz, sidecar

    @classmethod
    def load(cls, npz: Path | None = None) -> DAClassifier:
        """Read a saved model (the shipped one by default); the sidecar is ``npz`` with
        ``.json``."""
        import numpy as np

        from taiwa.annotators.da_classifier_features import FeatureSettings, Featurizer
        from taiwa.annotators.da_classifier_train import Softmax

        if npz is None:
            npz = shipped_paths()[0]
        meta = json.loads(npz.with_suffix(".json").read_text("utf-8"))
        if meta.get("version") != VERSION:
            from taiwa.errors import TaiwaError

            raise TaiwaError(
                f"{npz}: model version {meta.get('version')}, expected {VERSION}: retrain it"
            )
        settings = FeatureSettings(**meta["features"])
        with np.load(npz, allow_pickle=False) as f:
            weights = np.zeros((meta["n_features"], len(meta["acts"])))
            weights[f["rows"]] = f["weights"]
            featurizer = Featurizer(settings, f["idf_reply"], f["idf_context"])
            model = Softmax(weights, f["bias"].astype(np.float64))
        return cls(
            tuple(meta["acts"]), featurizer, model, meta, taxonomy=meta.get("taxonomy", TAXONOMY)
        )


def shipped_paths() -> tuple[Path, Path]:
    """The shipped ``.npz`` and ``.json`` (package data)."""
    base = Path(str(resources.files("taiwa").joinpath("data/models")))
    return base / f"{MODEL_NAME}.npz", base / f"{MODEL_NAME}.json"


@cache
def default_classifier() -> DAClassifier:
    """The shipped model, loaded once per process."""
    return DAClassifier.load()


def char_ngram_settings() -> FeatureSettings:
    """The baseline's features: the reply's character n-grams only."""
    from taiwa.annotators.da_classifier_features import FeatureSettings

    return FeatureSettings(use_vectors=False, use_context=False, use_extras=False)


def fit(
    examples: Sequence[Example],
    acts: Sequence[str],
    settings: FeatureSettings,
    l2_grid: Sequence[float] = L2_GRID,
    l2: float | None = None,
) -> tuple[DAClassifier, dict[str, Any]]:
    """Seed 002 §5.2's recipe on ``examples``: pick the L2 strength on a 4:1 stratified
    train/validation split (training part upsampled) by validation cross-entropy, unless
    ``l2`` is given, then refit on all ``examples`` (upsampled) at that strength."""
    import numpy as np

    from taiwa.annotators.da_classifier_features import Featurizer
    from taiwa.annotators.da_classifier_train import (
        copy_counts,
        cross_entropy,
        fit_softmax,
        minimize_objective,
        stratified_split,
        upsample,
    )

    index = {a: k for k, a in enumerate(acts)}
    info: dict[str, Any] = {}
    if l2 is None:
        tr, va = stratified_split([e.act for e in examples], VALIDATION, SEED + 1)
        train = [examples[i] for i in tr]
        val = [examples[i] for i in va]
        feat = Featurizer.fit(settings, [e.context for e in train], [e.reply for e in train])
        counts = copy_counts(len(train), upsample([e.act for e in train], SEED + 2))
        x_tr = design(feat, train)
        y_tr = np.array([index[e.act] for e in train])
        x_va = design(feat, val)
        y_va = np.array([index[e.act] for e in val])
        scores: dict[str, float] = {}
        for value in l2_grid:
            m, _ = fit_softmax(x_tr, y_tr, len(acts), value, counts)
            scores[repr(value)] = cross_entropy(m.proba(x_va), y_va)
        l2 = min(l2_grid, key=lambda v: scores[repr(v)])
        info["validation_cross_entropy"] = scores
        info["n_train"], info["n_validation"] = len(train), len(val)
    feat, objective = final_problem(examples, acts, settings, l2)
    model, report = minimize_objective(objective)
    upsampled = round(objective.total_weight)
    info.update(l2=l2, n_fit=len(examples), n_fit_upsampled=upsampled, optimizer=report)
    return DAClassifier(tuple(acts), feat, model), info


def final_problem(
    examples: Sequence[Example], acts: Sequence[str], settings: FeatureSettings, l2: float
) -> tuple[Featurizer, SoftmaxObjective]:
    """The featurizer fitted on ``examples`` and the objective the shipped weights minimise
    (``examples`` upsampled, as copy counts, at strength ``l2``)."""
    import numpy as np

    from taiwa.annotators.da_classifier_features import Featurizer
    from taiwa.annotators.da_classifier_train import SoftmaxObjective, copy_counts, upsample

    index = {a: k for k, a in enumerate(acts)}
    feat = Featurizer.fit(settings, [e.context for e in examples], [e.reply for e in examples])
    counts = copy_counts(len(examples), upsample([e.act for e in examples], SEED + 3))
    x = design(feat, examples)
    y = np.array([index[e.act] for e in examples])
    return feat, SoftmaxObjective(x, y, len(acts), l2, counts)


def taxonomy_acts() -> list[str]:
    from taiwa.taxonomies import load_taxonomy

    return [a.name for a in load_taxonomy(TAXONOMY).acts]


def majority_baseline(
    dev: Sequence[Example], test: Sequence[Example], acts: Sequence[str] | None = None
) -> list[str]:
    """The development split's most frequent act (ties: taxonomy order) for every item."""
    acts = taxonomy_acts() if acts is None else acts
    counts = {a: sum(e.act == a for e in dev) for a in acts}
    top = max(acts, key=lambda a: counts[a])
    return [top] * len(test)


def evaluate(
    classifier: DAClassifier,
    dev: Sequence[Example],
    test: Sequence[Example],
    ngram_l2: float | None = None,
) -> dict[str, Any]:
    """Held-out reports of ``classifier`` and of both baselines. The char-n-gram baseline is
    trained here on ``dev`` by the same recipe (its L2 strength picked on validation unless
    ``ngram_l2`` is given; the pick is recorded as ``char_ngram.l2``)."""
    from taiwa.annotators.da_classifier_train import class_report

    acts = list(classifier.acts)
    gold = [e.act for e in test]
    contexts, replies = [e.context for e in test], [e.reply for e in test]
    positions = [e.position for e in test]
    ngram, ngram_info = fit(dev, acts, char_ngram_settings(), l2=ngram_l2)
    return {
        "default": class_report(gold, classifier.tag_many(contexts, replies, positions), acts),
        "majority": class_report(gold, majority_baseline(dev, test, acts), acts),
        "char_ngram": {
            **class_report(gold, ngram.tag_many(contexts, replies), acts),
            "l2": ngram_info["l2"],
        },
    }


def train(
    out_dir: Path | None = None, data: Path | None = None, l2: float | None = None
) -> tuple[DAClassifier, dict[str, Any]]:
    """Rebuild the default model from the labelled set (deterministic) and, with ``out_dir``,
    write it there. Returns the classifier and its held-out evaluation."""
    from taiwa.annotators.da_classifier_features import FeatureSettings

    examples, sha = load_examples(data)
    acts = taxonomy_acts()
    unknown = sorted({e.act for e in examples} - set(acts))
    if unknown:
        raise ValueError(f"acts not in {TAXONOMY}: {', '.join(unknown)}")
    dev, test = held_out_split(examples)
    classifier, info = fit(dev, acts, FeatureSettings(), l2=l2)
    metrics = evaluate(classifier, dev, test)
    classifier.meta = {
        "training_data": {
            "path": DATA_PATH if data is None else str(data),
            "sha256": sha,
            "n": len(examples),
        },
        "split": {
            "seed": SEED,
            "held_out": HELD_OUT,
            "validation": VALIDATION,
            "n_development": len(dev),
            "n_held_out": len(test),
        },
        "training": info,
        "held_out_metrics": metrics,
    }
    if out_dir is not None:
        classifier.save(out_dir)
    return classifier, metrics


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m taiwa.annotators.da_classifier")
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
    print(format_report(metrics, classifier.acts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
