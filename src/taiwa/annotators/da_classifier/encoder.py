"""A dialogue-act tagger from a transformers encoder fine-tuned by ``taiwa da train`` (seed 002
§5.2; the training is :mod:`.da_encoder_train`).

:class:`EncoderTagger` loads an output directory (the model and tokenizer written by
``save_pretrained`` and ``taiwa_da.json``: acts in label order, training data SHA-256,
settings, losses, the chosen epoch, the validation report) and tags like
:meth:`~taiwa.annotators.da_classifier.model.DAClassifier.tag_many`: the pair (previous utterance,
reply) → one act.

torch and transformers (``pip install 'taiwa[hf]'``) are imported inside functions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taiwa.annotators.da_classifier.model import Example
from taiwa.core.errors import TaiwaError

META_FILE = "taiwa_da.json"
FORMAT = "taiwa-da-encoder"
VERSION = 1


def require_hf() -> None:
    """A :class:`TaiwaError` unless torch and transformers import."""
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise TaiwaError(
            f"the encoder classifier needs transformers and torch ({exc.name or exc} is "
            "missing): pip install 'taiwa[hf]'"
        ) from None


@contextlib.contextmanager
def quiet_hf() -> Iterator[None]:
    """transformers' warnings and progress bars off for the block (the CLI has its own bar)."""
    from transformers.utils import logging as hf_logging

    level, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)
        if bars:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


def encode(tokenizer: Any, batch: Sequence[Example], max_length: int) -> Any:
    """The batch as (previous utterance, reply) pairs, padded to its longest."""
    return tokenizer(
        [e.context for e in batch],
        [e.reply for e in batch],
        truncation=True,
        max_length=max_length,
        padding=True,
        return_tensors="pt",
    )


def predict_proba(
    model: Any,
    tokenizer: Any,
    contexts: Sequence[str],
    replies: Sequence[str],
    *,
    batch_size: int = 32,
    max_length: int = 128,
) -> Any:
    """``len(replies) × n_labels`` softmax probabilities (numpy), in eval mode, batched."""
    import numpy as np
    import torch

    pairs = [Example("", c, r, "") for c, r in zip(contexts, replies, strict=True)]
    model.train(False)
    out = []
    with torch.no_grad():
        for s in range(0, len(pairs), batch_size):
            logits = model(**encode(tokenizer, pairs[s : s + batch_size], max_length)).logits
            out.append(torch.softmax(logits.float(), dim=-1).numpy())
    return np.concatenate(out) if out else np.zeros((0, model.config.num_labels))


@dataclass
class EncoderTagger:
    """A ``taiwa da train`` output: (previous utterance, reply) → one act, with the call shape
    of :meth:`~taiwa.annotators.da_classifier.model.DAClassifier.tag_many` (seed 002 §5.2)."""

    path: Path
    acts: tuple[str, ...]
    tokenizer: Any
    model: Any
    meta: dict[str, Any]
    name: str

    @classmethod
    def load(cls, path: Path) -> EncoderTagger:
        path = Path(path)
        meta_path = path / META_FILE
        if not meta_path.is_file():
            raise TaiwaError(f"{path} is not a `taiwa da train` output (no {META_FILE})")
        require_hf()
        from taiwa.core.io import read_json_object

        meta = read_json_object(meta_path, f"a {FORMAT} description")[0]
        if meta.get("format") != FORMAT:
            raise TaiwaError(f"{meta_path}: not a {FORMAT} description")
        if meta.get("version") != VERSION:
            raise TaiwaError(f"{meta_path}: version {meta.get('version')}, expected {VERSION}")
        acts = tuple(meta["acts"])
        tokenizer, model = load_trained(path, len(acts))
        return cls(path, acts, tokenizer, model, meta, f"encoder:{path.resolve().name}")

    def proba(self, contexts: Sequence[str], replies: Sequence[str], batch_size: int = 32) -> Any:
        """``len(replies) × len(acts)`` probabilities."""
        return predict_proba(
            self.model,
            self.tokenizer,
            contexts,
            replies,
            batch_size=batch_size,
            max_length=int(self.meta.get("max_length", 128)),
        )

    def tag_many(
        self, contexts: Sequence[str], replies: Sequence[str], batch_size: int = 32
    ) -> list[str]:
        """The act of each reply given its previous utterance."""
        if not replies:
            return []
        best = self.proba(contexts, replies, batch_size).argmax(axis=1)
        return [self.acts[int(k)] for k in best]

    def tag(self, context: str, reply: str) -> str:
        return self.tag_many([context], [reply])[0]


def load_trained(path: Path, n_labels: int) -> tuple[Any, Any]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    try:
        with quiet_hf():
            tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            model = AutoModelForSequenceClassification.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError, KeyError) as exc:
        raise TaiwaError(f"{path}: cannot load the trained model: {exc}") from None
    if model.config.num_labels != n_labels:
        raise TaiwaError(
            f"{path}: the model has {model.config.num_labels} labels, {META_FILE} {n_labels} acts"
        )
    model.train(False)
    return tokenizer, model
