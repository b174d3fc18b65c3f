"""The shipped ``offline`` annotator of da-response (issue 16): where its files are, loading it
once per process, and what a run's summary says about it. Trained by :mod:`.offline` on the
bundled ``assistant_da`` set: the shared dialogue-act classifier
(:mod:`taiwa.annotators.da_classifier.model`) on ``assistant7`` sentence by sentence, with an act ×
position importance model (:mod:`taiwa.annotators.sentence_annotator`); the weights ship as
``data/models/da_assistant7.npz`` + ``.json``.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taiwa.annotators.sentence_annotator import SentenceAnnotator

TAXONOMY = "assistant7"
MODEL_NAME = "da_assistant7"
TRAIN = "assistant_da/train.jsonl"
HELD_OUT = "assistant_da/heldout.jsonl"
ALTERNATIVES = "assistant_da/alternatives.jsonl"
VARIED_HELD_OUT = "assistant_da/varied_heldout.jsonl"
VARIED_ALTERNATIVES = "assistant_da/varied_alternatives.jsonl"
PROBE_ALTERNATIVES = "assistant_da/probe_alternatives.jsonl"
SPLITS = {
    "tidy": (HELD_OUT, ALTERNATIVES),
    "varied": (VARIED_HELD_OUT, VARIED_ALTERNATIVES),
    "probe": (PROBE_ALTERNATIVES,),
}
"""The bundled held-out splits, each reported apart by ``taiwa validate annotator``; ``probe``
(issue 38): gold-vs-flawed pairs written apart from the training set for the two failures the
issue found, a content-free reaction (なるほどですね。) in place of an answer or an action, and
gold replies made of two questions (〜ですか？ + 何〜ましょうか？)."""
SIDECAR_KEYS = {"tidy": "held_out", "varied": "held_out_varied", "probe": "held_out_probe"}
"""Where the model's sidecar keeps its figures on each split (:mod:`.offline`)."""
SUMMARY_KEYS = {"tidy": "validated", "varied": "validated_varied", "probe": "validated_probe"}
"""Where a run's summary names them (:func:`annotator_summary`)."""
FIXED_ACT = "Inform"
"""The act of the 'one act per sentence' baseline: a reply's sentences informing by default."""


def sample_file(name: str) -> Path:
    from taiwa.core.samples import sample_path

    return sample_path(name)


def model_path() -> Path:
    return Path(str(resources.files("taiwa").joinpath(f"data/models/{MODEL_NAME}.npz")))


@cache
def default_annotator() -> SentenceAnnotator:
    """The shipped offline annotator, loaded once per process."""
    from taiwa.annotators.sentence_annotator import SentenceAnnotator

    return SentenceAnnotator.load(model_path())


def acts() -> list[str]:
    from taiwa.core.taxonomies import load_taxonomy

    return load_taxonomy(TAXONOMY).names


def annotator_summary(spec: str) -> dict[str, Any]:
    """What a run's summary says about its annotator: the SPEC and, for ``offline``, its name
    and headline figures on each bundled held-out split its sidecar holds (``taiwa validate
    annotator`` prints them all); other annotators were not validated here (``validated``: null)."""
    if spec != "offline":
        return {"spec": spec, "validated": None}
    ann = default_annotator()
    meta = ann.classifier.meta
    out: dict[str, Any] = {"spec": spec, "name": ann.name}
    for split, key in SIDECAR_KEYS.items():
        held = meta.get(key)
        if held is None:
            continue
        label = SUMMARY_KEYS[split]
        seq = held["sequence"][held["annotator"]]
        ranking = held["ranking"].get(held["annotator"], {}).get("all", {})
        out[label] = {
            "files": [Path(f).name for f in held["files"]],
            "macro_f1": seq["macro_f1"],
            "wed": seq["wed"],
            "exact_sequence": seq["exact_sequence"],
            "gold_first": ranking.get("gold_first"),
        }
    return out


def split_files(split: str) -> list[Path]:
    """The files of a bundled held-out split (:data:`SPLITS`)."""
    return [sample_file(name) for name in SPLITS[split]]


def held_out_files() -> list[Path]:
    """The tidy split's files (the figures a run's summary names first)."""
    return split_files("tidy")


def split_of(path: Path) -> str | None:
    """The bundled split ``path`` belongs to (``None``: a file of the user's)."""
    resolved = path.resolve()
    for split in SPLITS:
        if resolved in {p.resolve() for p in split_files(split)}:
            return split
    return None
