"""The embedded dialogue-act classifier (seed 002 §5.2, issue 12), one for every taxonomy.

A (context, utterance) pair → one act of the taxonomy it was trained on. The shipped default
tags chit-chat replies with ``chitchat11``; a method hands other taxonomies and training sets to
:func:`fit` (e.g. ``assistant7`` sentence by sentence, with position features: issue 16).

Features (:mod:`.da_classifier_features`): hashed character 1–3-grams of the reply (TF-IDF),
of the previous utterance (its own hash space), the reply's mean ja-ginza word vector, and
reply/context overlap features that make echoes (``builtin:parrot``) come out as
うなずき・おうむ返し; the shipped chitchat11 model adds the casual-chat normalisation, morpheme
keys and shape flags of issue 26, and the previous utterance's act as guessed by a reply-only
context tagger it carries (:mod:`.da_previous_act`). Model: multinomial logistic regression
with L2, fitted with L-BFGS-B (:mod:`.da_classifier_train`; no scikit-learn).

Recipe (:func:`fit`), seeded and deterministic:

1. the examples split train/validation 4:1 (stratified, seeded), every class of the training
   part upsampled to the size of the largest (seed 002 §5.2); with casual-chat features each
   punctuated reply also gets an unpunctuated copy (:func:`augmented`); the L2 strength is the
   one of :data:`L2_GRID` with the lowest validation cross-entropy (the seed keeps the epoch
   with the lowest validation cross-entropy; here the regularisation is what is picked), and
   the temperature that calibrates the probabilities is fitted on the same validation fold
   (:mod:`.da_calibration`);
2. the model: idf and weights refitted on train + validation (upsampled) at that strength.

The shipped default's data, held-out splits and baselines are in :mod:`.da_classifier_recipe`
(``python -m taiwa.annotators.da_classifier.recipe --train`` rebuilds it, ``--check``
retrains in memory and compares with the shipped files, ``--evaluate`` prints the held-out
tables). It ships as package data without pickle: ``data/models/da_chitchat11.npz`` (weight
rows that are not zero, biases, idf vectors; read with ``allow_pickle=False``) and a JSON
sidecar (taxonomy, acts, feature settings, training-data SHA-256s, L2 strength, temperature,
held-out metrics, version), with its context tagger beside it in ``da_chitchat11_context.npz``
+ ``.json`` (named by the sidecar's ``context_tagger``).

Heavy imports (numpy, scipy, fugashi, the vectors) happen inside functions: importing this
module costs nothing at ``import taiwa.cli.app`` time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.annotators.da_classifier.report import differences as differences

if TYPE_CHECKING:
    import numpy as np

    from taiwa.annotators.da_classifier.features import FeatureSettings, Featurizer
    from taiwa.annotators.da_classifier.training import Softmax, SoftmaxObjective

VERSION = 3
"""Format and recipe version of the shipped model (bump when either changes)."""

COMPATIBLE = (1, 2, 3)
"""Versions :meth:`DAClassifier.load` reads (1: before the casual-chat features and the
temperature; its settings load with those switched off; 2: before the previous-act block and
its context tagger)."""

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
    not split into sentences); ``group``: its dialogue (examples of one dialogue are kept in
    one cross-fitting fold; empty: its own); ``prev``: the previous utterance's act
    probabilities, for a model with the previous-act block (:mod:`.da_previous_act`)."""

    id: str
    context: str
    reply: str
    act: str
    index: int = 0
    count: int = 0
    weight: float = 1.0
    group: str = ""
    prev: tuple[float, ...] = ()

    @property
    def position(self) -> tuple[int, int]:
        return (self.index, self.count)


def design(featurizer: Featurizer, examples: Sequence[Example]) -> Any:
    """The feature matrix of ``examples`` (with their ``prev`` when the settings use it)."""
    prev = [e.prev for e in examples] if featurizer.settings.prev_acts else None
    return featurizer.transform(
        [e.context for e in examples],
        [e.reply for e in examples],
        [e.position for e in examples],
        prev,
    )


def load_examples(path: Path | None = None) -> tuple[list[Example], str]:
    """The labelled examples and the SHA-256 of the file's bytes (the bundled set by default)."""
    raw = (
        path.read_bytes()
        if path is not None
        else resources.files("taiwa").joinpath(DATA_PATH).read_bytes()
    )
    rows = [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]
    examples = [
        Example(r["id"], r["context"], r["reply"], r["act"], group=str(r.get("dialogue") or ""))
        for r in rows
    ]
    return examples, hashlib.sha256(raw).hexdigest()


def held_out_split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    """``(development, held_out)``: the seeded stratified 80/20 split the metrics use."""
    from taiwa.annotators.da_classifier.training import stratified_split

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
    context_tagger: DAClassifier | None = None
    """For a model with the previous-act block: the reply-only model that gives the previous
    utterance's act probabilities (:mod:`.da_previous_act`)."""

    def features(
        self,
        contexts: Sequence[str],
        replies: Sequence[str],
        positions: Sequence[tuple[int, int]] | None = None,
    ) -> Any:
        """The feature matrix of the pairs (the context tagged first when the model uses the
        previous act)."""
        tagger = self.context_tagger
        prev = None if tagger is None else tagger.previous_act_rows(contexts)
        return self.featurizer.transform(contexts, replies, positions, prev)

    def previous_act_rows(self, contexts: Sequence[str]) -> np.ndarray:
        """As the context tagger: ``len(contexts) × len(acts)`` act probabilities of each
        previous utterance, tagged alone (zeros for an empty one)."""
        import numpy as np

        out = np.zeros((len(contexts), len(self.acts)))
        if keep := [k for k, c in enumerate(contexts) if c.strip()]:
            out[keep] = self.proba([""] * len(keep), [contexts[k] for k in keep])
        return out

    def proba(
        self,
        contexts: Sequence[str],
        replies: Sequence[str],
        positions: Sequence[tuple[int, int]] | None = None,
    ) -> np.ndarray:
        """``len(replies) × len(acts)`` probabilities."""
        from taiwa.annotators.da_classifier.calibration import softmax

        x = self.features(contexts, replies, positions)
        return softmax(self.model.scores(x), self.temperature)

    @property
    def temperature(self) -> float:
        """The calibration temperature fitted on the validation fold (1: none)."""
        return float(self.meta.get("calibration", {}).get("temperature", 1.0))

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
        x = self.features(contexts, replies, positions)
        best = self.model.scores(x).argmax(axis=1)
        return [self.acts[int(k)] for k in best]

    def tag(self, context: str, reply: str) -> str:
        return self.tag_many([context], [reply])[0]

    def save(self, directory: Path, stem: str = MODEL_NAME) -> tuple[Path, Path]:
        """Write ``STEM.npz`` (no object arrays) and ``STEM.json`` (and the context tagger as
        ``STEM_context.npz`` + ``.json``); returns the first two paths."""
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
            **({"context_tagger": f"{stem}_context"} if self.context_tagger else {}),
            "version": VERSION,
            "taxonomy": self.taxonomy,
            "acts": list(self.acts),
            "features": self.featurizer.settings.to_json(),
            "n_features": int(w.shape[0]),
        }
        sidecar.write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n", "utf-8")
        if self.context_tagger is not None:
            self.context_tagger.save(directory, f"{stem}_context")
        return npz, sidecar

    @classmethod
    def load(cls, npz: Path | None = None) -> DAClassifier:
        """Read a saved model (the shipped one by default); the sidecar is ``npz`` with
        ``.json``."""
        import numpy as np

        from taiwa.annotators.da_classifier.features import FeatureSettings, Featurizer
        from taiwa.annotators.da_classifier.training import Softmax
        from taiwa.core.errors import TaiwaError
        from taiwa.core.io import read_json_object

        if npz is None:
            npz = shipped_paths()[0]
        meta = read_json_object(npz.with_suffix(".json"), "a classifier's description")[0]
        if meta.get("version") not in COMPATIBLE:
            raise TaiwaError(
                f"{npz}: model version {meta.get('version')}, expected {VERSION}: retrain it"
            )
        settings = FeatureSettings(**meta["features"])
        with np.load(npz, allow_pickle=False) as f:
            weights = np.zeros((meta["n_features"], len(meta["acts"])))
            weights[f["rows"]] = f["weights"]
            featurizer = Featurizer(settings, f["idf_reply"], f["idf_context"])
            model = Softmax(weights, f["bias"].astype(np.float64))
        context = meta.get("context_tagger")
        return cls(
            tuple(meta["acts"]),
            featurizer,
            model,
            meta,
            taxonomy=meta.get("taxonomy", TAXONOMY),
            context_tagger=None if context is None else cls.load(npz.with_name(f"{context}.npz")),
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
    from taiwa.annotators.da_classifier.features import FeatureSettings

    return FeatureSettings(use_vectors=False, use_context=False, use_extras=False)


def fit(
    examples: Sequence[Example],
    acts: Sequence[str],
    settings: FeatureSettings,
    l2_grid: Sequence[float] = L2_GRID,
    l2: float | None = None,
    balance: bool = True,
) -> tuple[DAClassifier, dict[str, Any]]:
    """Seed 002 §5.2's recipe on ``examples``: pick the L2 strength on a 4:1 stratified
    train/validation split (training part upsampled) by validation cross-entropy, unless
    ``l2`` is given, then refit on all ``examples`` (upsampled) at that strength. With the
    validation split, the temperature (:mod:`.da_calibration`) is fitted on it too, from the
    model trained at the chosen strength on the training part (``meta["calibration"]``)."""
    import numpy as np

    from taiwa.annotators.da_classifier.calibration import calibration_report, fit_temperature
    from taiwa.annotators.da_classifier.training import (
        cross_entropy,
        minimize_objective,
        stratified_split,
    )

    index = {a: k for k, a in enumerate(acts)}
    info: dict[str, Any] = {}
    meta: dict[str, Any] = {}
    if l2 is None:
        tr, va = stratified_split([e.act for e in examples], VALIDATION, SEED + 1)
        train = [examples[i] for i in tr]
        val = [examples[i] for i in va]
        feat, objective = training_problem(train, acts, settings, l2_grid[0], SEED + 2, balance)
        x_va = design(feat, val)
        y_va = np.array([index[e.act] for e in val])
        scores: dict[str, float] = {}
        val_scores: dict[str, Any] = {}
        for value in l2_grid:
            objective.l2 = value
            m, _ = minimize_objective(objective)
            val_scores[repr(value)] = m.scores(x_va)
            scores[repr(value)] = cross_entropy(m.proba(x_va), y_va)
        l2 = min(l2_grid, key=lambda v: scores[repr(v)])
        info["validation_cross_entropy"] = scores
        info["n_train"], info["n_validation"] = len(train), len(val)
        chosen = val_scores[repr(l2)]
        meta["calibration"] = calibration_report(chosen, y_va, fit_temperature(chosen, y_va))
    feat, objective = final_problem(examples, acts, settings, l2, balance)
    model, report = minimize_objective(objective)
    upsampled = round(objective.total_weight)
    info.update(l2=l2, n_fit=len(examples), n_fit_upsampled=upsampled, optimizer=report)
    info["balanced"] = balance
    return DAClassifier(tuple(acts), feat, model, meta), info


def augmented(examples: Sequence[Example], settings: FeatureSettings) -> list[Example]:
    """``examples`` and, with casual-chat features, an unpunctuated copy of each reply that
    has punctuation (issue 26: chat often leaves ？ and 。 out; the copy keeps the act)."""
    from dataclasses import replace

    from taiwa.annotators.da_classifier.chat_text import strip_punctuation

    out = list(examples)
    if settings.casual:
        for e in examples:
            bare = strip_punctuation(e.reply)
            if bare and bare != e.reply:
                out.append(replace(e, id=f"{e.id}#bare", reply=bare))
    return out


def training_problem(
    examples: Sequence[Example],
    acts: Sequence[str],
    settings: FeatureSettings,
    l2: float,
    seed: int,
    balance: bool = True,
) -> tuple[Featurizer, SoftmaxObjective]:
    """The featurizer fitted on ``examples`` and the objective on them (:func:`augmented`,
    then, with ``balance``, upsampled with ``seed``, as copy counts, at strength ``l2``;
    without, every act at its own frequency)."""
    import numpy as np

    from taiwa.annotators.da_classifier.features import Featurizer
    from taiwa.annotators.da_classifier.training import SoftmaxObjective, copy_counts, upsample

    index = {a: k for k, a in enumerate(acts)}
    feat = Featurizer.fit(settings, [e.context for e in examples], [e.reply for e in examples])
    rows = augmented(examples, settings)
    counts = (
        copy_counts(len(rows), upsample([e.act for e in rows], seed))
        if balance
        else np.ones(len(rows))
    )
    counts *= np.array([e.weight for e in rows])
    x = design(feat, rows)
    y = np.array([index[e.act] for e in rows])
    return feat, SoftmaxObjective(x, y, len(acts), l2, counts)


def final_problem(
    examples: Sequence[Example],
    acts: Sequence[str],
    settings: FeatureSettings,
    l2: float,
    balance: bool = True,
) -> tuple[Featurizer, SoftmaxObjective]:
    """The featurizer fitted on ``examples`` and the objective the shipped weights minimise
    (:func:`training_problem` on all of them)."""
    return training_problem(examples, acts, settings, l2, SEED + 3, balance)


def taxonomy_acts() -> list[str]:
    from taiwa.core.taxonomies import load_taxonomy

    return [a.name for a in load_taxonomy(TAXONOMY).acts]
