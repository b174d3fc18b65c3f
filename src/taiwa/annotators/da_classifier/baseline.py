"""The char-n-gram baseline fitted once per machine, not once per command (seed 002 §5.2's
recipe; issue 29 point 6).

``taiwa validate tagger`` scores every tagger beside a char-n-gram logistic regression trained
on the default tagger's training data. The fit is deterministic and takes some 20 CPU seconds,
so it was repeated by every validation (and by every test that validates a tagger). It is kept
in the cache directory (``$TAIWA_CACHE_DIR/taggers/``), exactly (float64, unlike a shipped
model's float32 weights), under the SHA-256 of everything the fit reads: the examples, the acts,
the feature settings, the L2 strength and the source of the fitting code. Concurrent commands
wait on one lock, so one fits and the others read its result. An unreadable or unwritable cache
only costs the fit.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taiwa.annotators.da_classifier.model import DAClassifier, Example

CODE = (
    "annotators/da_classifier.py",
    "annotators/da_classifier_features.py",
    "annotators/da_classifier_train.py",
    "annotators/da_calibration.py",
)
"""The modules whose code decides the fitted weights: an edit to any of them is a new key."""


def fit_key(examples: Sequence[Example], acts: Sequence[str], parts: dict[str, Any]) -> str:
    """SHA-256 of the examples, the acts, ``parts`` (settings, L2...) and the fitting code."""
    digest = hashlib.sha256()
    for e in examples:
        digest.update(json.dumps([e.id, e.context, e.reply, e.act], ensure_ascii=False).encode())
    digest.update(json.dumps([list(acts), parts], sort_keys=True, default=str).encode())
    root = resources.files("taiwa")
    for name in CODE:
        ref = root.joinpath(name)
        digest.update(ref.read_bytes() if ref.is_file() else name.encode())
    return digest.hexdigest()


def memo_fit(cache_dir: Path | None, key: str, fit: Callable[[], DAClassifier]) -> DAClassifier:
    """The classifier stored under ``key`` in ``cache_dir/taggers``, else ``fit()`` stored there
    (one process fits at a time; the others wait and read). ``cache_dir`` None: just fit."""
    if cache_dir is None:
        return fit()
    folder = cache_dir / "taggers"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = os.open(folder / f"{key}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return fit()
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with contextlib.suppress(OSError, ValueError, KeyError):
            return _read(folder / f"{key}.npz")
        classifier = fit()
        with contextlib.suppress(OSError):
            _write(folder / f"{key}.npz", classifier)
        return classifier
    finally:
        os.close(lock)  # releases the lock


def _write(path: Path, classifier: DAClassifier) -> None:
    import numpy as np

    from taiwa.core.io.atomic import atomic_open

    meta = {
        "acts": list(classifier.acts),
        "settings": classifier.featurizer.settings.to_json(),
        "meta": classifier.meta,
        "name": classifier.name,
        "taxonomy": classifier.taxonomy,
    }
    with atomic_open(path, "wb") as fh:
        np.savez(
            fh,
            weights=classifier.model.weights,
            bias=classifier.model.bias,
            idf_reply=classifier.featurizer.idf_reply,
            idf_context=classifier.featurizer.idf_context,
            meta=np.array(json.dumps(meta, ensure_ascii=False)),
        )


def _read(path: Path) -> DAClassifier:
    import numpy as np

    from taiwa.annotators.da_classifier.features import FeatureSettings, Featurizer
    from taiwa.annotators.da_classifier.model import DAClassifier
    from taiwa.annotators.da_classifier.training import Softmax

    with np.load(path, allow_pickle=False) as f:
        meta = json.loads(str(f["meta"]))
        featurizer = Featurizer(
            FeatureSettings(**meta["settings"]), f["idf_reply"], f["idf_context"]
        )
        model = Softmax(f["weights"].astype(np.float64), f["bias"].astype(np.float64))
    return DAClassifier(
        tuple(meta["acts"]),
        featurizer,
        model,
        meta["meta"],
        name=meta["name"],
        taxonomy=meta["taxonomy"],
    )
