"""A user's own chitchat11 classifier: the default classifier's recipe (seed 002 §5.2, issue 26)
on their labelled utterances, written as a directory that ``--tagger PATH`` takes.

``taiwa da train --data FILE --out DIR`` without ``--base`` lands here: the shipped model's
recipe (:func:`~taiwa.annotators.da_classifier.recipe.fit_default`, the one function both
fit through): its features, L2 strength and temperature picked on a seeded 4:1 validation
split of ``FILE``, then refitted on all of it, and, when some row has a previous utterance
(``context``) and ``previous_act`` is on, the previous-act block (:mod:`.da_previous_act`: a
reply-only context tagger whose guesses of the previous utterance's act are features,
cross-fitted by the rows' ``dialogue``). Without any context the block would be all zeros, so
it is left out (:func:`previous_act_plan` says why). With ``--char-ngram``
(``char_ngram=True``): the reply's character n-grams only
(:func:`~taiwa.annotators.da_classifier.model.char_ngram_settings`, the baseline ``taiwa validate
tagger`` prints), no MeCab pass, no vectors and no block: the faster option. Nothing of
``FILE`` is held out beyond that split: measure the result with ``taiwa validate tagger
--tagger DIR --data HELD_OUT`` on utterances it never saw.

``DIR`` holds ``da_chitchat11.npz`` + ``.json`` (the classifier, no pickle), with the block
``da_chitchat11_context.npz`` + ``.json`` beside them (the context tagger, named by the first
sidecar's ``context_tagger``: :meth:`~taiwa.annotators.da_classifier.model.DAClassifier.load` reads
both), and ``taiwa_da.json`` (format :data:`FORMAT`: what ``--tagger`` checks, the training
data's SHA-256, the validation figures and ``previous_act``). Written to a temporary sibling,
then renamed.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taiwa.annotators.da_classifier.model import MODEL_NAME, DAClassifier, Example
from taiwa.core.errors import TaiwaError

FORMAT = "taiwa-da-classifier"
VERSION = 1
META_FILE = "taiwa_da.json"


def is_own(path: Path) -> bool:
    """Whether ``path`` holds a classifier this module wrote (by its ``taiwa_da.json``)."""
    from taiwa.core.errors import InputError
    from taiwa.core.io import read_json_object

    try:
        meta = read_json_object(Path(path) / META_FILE)[0]
    except InputError:
        return False
    return isinstance(meta, dict) and meta.get("format") == FORMAT


def previous_act_plan(
    examples: Sequence[Example], *, previous_act: bool, char_ngram: bool
) -> dict[str, Any]:
    """Whether the previous-act block is trained, and why (``taiwa_da.json``'s
    ``previous_act``): on unless switched off, unless ``char_ngram``, and only when some
    example has a previous utterance."""
    with_context = sum(bool(e.context.strip()) for e in examples)
    plan: dict[str, Any] = {"used": False, "n_with_context": with_context}
    if char_ngram:
        plan["reason"] = "--char-ngram: the reply's character n-grams only"
    elif not previous_act:
        plan["reason"] = "switched off (--no-previous-act)"
    elif not with_context:
        plan["reason"] = "no row has a previous utterance (context)"
    else:
        plan["used"] = True
    return plan


def train_own(
    examples: Sequence[Example],
    out: Path,
    *,
    overwrite: bool = False,
    sha256: str,
    data_path: str,
    char_ngram: bool = False,
    previous_act: bool = True,
) -> dict[str, Any]:
    """Fit the default recipe on ``examples`` (with the previous-act block when
    :func:`previous_act_plan` says so) and write ``out``; returns ``taiwa_da.json``'s
    content."""
    from taiwa.annotators.da_classifier.encoder_train import (
        check_examples,
        check_out,
        current_umask,
        replace_dir,
    )
    from taiwa.annotators.da_classifier.model import char_ngram_settings, fit, taxonomy_acts
    from taiwa.annotators.da_classifier.recipe import BALANCE, L2_GRID, fit_default

    acts = taxonomy_acts()
    check_examples(examples, acts)
    missing = [a for a in acts if not any(e.act == a for e in examples)]
    if len(examples) < 20 or len({e.act for e in examples}) < 2:
        raise TaiwaError(f"{data_path}: too few examples to train on (need 20 and two acts)")
    check_out(out, overwrite)
    block = previous_act_plan(examples, previous_act=previous_act, char_ngram=char_ngram)
    if char_ngram:
        classifier, info = fit(examples, acts, char_ngram_settings(), L2_GRID, balance=BALANCE)
    else:
        classifier, info = fit_default(examples, acts, L2_GRID, previous_act=block["used"])
    info["features"] = "char-ngram" if char_ngram else "default"
    if classifier.context_tagger is not None:
        block.update(
            context_tagger=f"{MODEL_NAME}_context",
            l2=info["context_tagger"]["l2"],
            folds=info["context_tagger"]["folds"],
            dialogues=len({e.group or e.id for e in examples}),
        )
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "acts": acts,
        "training_data": {"path": data_path, "sha256": sha256, "n": len(examples)},
        "acts_without_examples": missing,
        "training": info,
        "calibration": classifier.meta.get("calibration", {}),
        "previous_act": block,
    }
    classifier.meta.update({"training_data": meta["training_data"], "training": info})
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        classifier.save(tmp)
        text = json.dumps(meta, ensure_ascii=False, indent=1) + "\n"
        (tmp / META_FILE).write_text(text, "utf-8")
        tmp.chmod(0o777 & ~current_umask())
        replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return meta


def load_own(path: Path) -> DAClassifier:
    """The classifier in ``path`` (named ``classifier:DIR``), with its context tagger when it
    has one; a missing or unreadable file of it is one :class:`TaiwaError` naming the file."""
    from zipfile import BadZipFile

    try:
        classifier = DAClassifier.load(Path(path) / f"{MODEL_NAME}.npz")
    except (OSError, ValueError, KeyError, BadZipFile) as err:
        raise TaiwaError(
            f"{path}: an incomplete `taiwa da train` output ({err}); train it again"
        ) from None
    classifier.name = f"classifier:{Path(path).name}"
    return classifier
