"""DAE, DAMI and act shares corrected for the tagger's errors (issue 26; seed 002 §4, App. C).

Seed 002's DAE is the entropy of the act distribution of a system's replies, so a tagger that
over-predicts one act moves it as much as a real difference between systems would. Given the
tagger's confusion on gold labels, :mod:`taiwa.metrics.adjusted_counts` estimates the true act
distribution from the predicted one (adjusted classify-and-count: the maximum-likelihood
solution of ``q = p M`` on the simplex) and takes DAE from it; DAMI the same way per previous
act (the previous acts taken as given: the test set's labels by default). The 95 % CIs
resample the validation pairs jointly with the replies.

Where the confusion comes from (:func:`load_validation`):

- ``-o tagger_validation=FILE``: a gold file in the labelled-set shape ``{"id", "context",
  "reply", "act"}`` that the run's classifier tags when the run aggregates, or the ``--json``
  report of ``taiwa validate tagger SPEC --data GOLD`` (its ``confusion``; the only way for an
  LLM tagger, whose calls belong in the validator, not in aggregation);
- the ``default`` tagger without that option: both bundled held-out splits that ``taiwa validate
  tagger default`` scores, pooled (:func:`default_validation_set`: the tidy 20 % of
  ``labelled.jsonl`` and the chat-style ``chatstyle_heldout.jsonl``; the chat-style one is the
  larger and the closer to system replies), tagged by the shipped model at run time (a few
  milliseconds), so it always matches the model that is shipped;
- crowd votes and other taggers without the option: no correction (reported as absent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io.text import json_type

if TYPE_CHECKING:
    import numpy as np

    from taiwa.annotators.da_classifier.model import Example
    from taiwa.benchmarks.da_distribution.summary import Collected
    from taiwa.core.schema import Taxonomy


_NEEDS_REPORT = (
    "-o tagger_validation={path}: the tagger {spec} is a chat model, not a classifier: run "
    "`taiwa validate tagger --tagger {spec} --data {path} --json REPORT.json` and give REPORT.json"
)


@dataclass(frozen=True)
class Validation:
    """The gold set a tagger was checked on: its name, ``k × k`` confusion counts (rows
    gold, columns predicted, in the taxonomy's act order) and the length in characters of
    each utterance it tagged (empty when only a report's counts are known)."""

    name: str
    confusion: np.ndarray
    lengths: tuple[int, ...] = ()

    def block(self) -> dict[str, Any]:
        total = int(self.confusion.sum())
        right = int(self.confusion.trace())
        return {"name": self.name, "n": total, "accuracy": right / total if total else None}


def _report(path: Path) -> Mapping[str, Any] | None:
    """The ``taiwa validate tagger --json`` report in ``path``, or ``None`` if it is not one.
    A report holds one block per gold set (``sets``: name → ``labels``); an older report held
    one ``labels`` block: both are read, as a mapping set name → labels block."""
    from taiwa.core.io import read_json_object
    from taiwa.core.io.json_doc import JSONSyntaxError

    try:  # bounded like every JSON taiwa reads: a report nested 100,000 deep is refused
        data = read_json_object(path, "a taiwa validate tagger --json report")[0]
    except InputError as exc:
        if isinstance(exc, JSONSyntaxError) or exc.expected in ("a JSON object", "UTF-8 text"):
            return None  # not a report: the gold-file reader names what is wrong with it
        raise
    if "tagger" not in data or not isinstance(data["tagger"], str):
        return None
    if isinstance(data.get("sets"), dict):
        sets = {
            k: v.get("labels") if isinstance(v, dict) else None for k, v in data["sets"].items()
        }
        return {**data, "sets": sets, "path": str(path)}
    if "labels" in data:
        return {**data, "sets": {"": data["labels"]}, "path": str(path)}
    return None


def _confusions(report: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """The tagger's confusion table of every gold set of a report (``None``: one is missing);
    a table whose cells are not counts is an :class:`InputError` naming the cell."""
    out = []
    for name, labels in report["sets"].items():
        block = labels.get(report["tagger"]) if isinstance(labels, dict) else None
        if not isinstance(block, dict) or not isinstance(block.get("confusion"), dict):
            return None
        for gold, row in block["confusion"].items():
            where = f"sets.{name}.labels.{report['tagger']}.confusion.{gold}".replace("sets..", "")
            cells = row.items() if isinstance(row, dict) else [("", row)]
            for predicted, count in cells:
                if not isinstance(row, dict) or not _is_count(count):
                    cell = f"{where}.{predicted}" if isinstance(row, dict) else where
                    got = json_type(count) if isinstance(count, dict | list) else repr(count)
                    raise InputError(report["path"], None, cell, "a count", got[:40])
        out.append(block["confusion"])
    return out or None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_validation_file(path: Path, spec: str, classifier: bool) -> None:
    """Refuse a missing or malformed ``tagger_validation`` file before any model call (and a
    gold file for a tagger ``spec`` that is no ``classifier``: it needs a report)."""
    from taiwa.annotators.da_classifier.encoder_train import checked_examples
    from taiwa.core.io import require_file

    require_file(path)
    report = _report(path)
    if report is None:
        checked_examples(path)
        if not classifier:
            raise TaiwaError(_NEEDS_REPORT.format(spec=spec, path=path))
        return
    if _confusions(report) is None:
        raise InputError(
            str(path),
            None,
            f"sets.*.labels.{report['tagger']}.confusion",
            "a confusion table",
            "none",
        )


def default_validation_set() -> tuple[list[Example], str]:
    """The default tagger's gold set and its caption: the bundled held-out splits ``taiwa
    validate tagger`` scores (:func:`taiwa.annotators.da_classifier.recipe.training_sets`),
    pooled, each named with its size."""
    from taiwa.annotators.da_classifier.recipe import training_sets
    from taiwa.benchmarks.da_distribution.validate_tagger import BUNDLED

    _, tests, _ = training_sets()
    parts = {name: split for name, split in tests.items() if split}
    sizes = " + ".join(f"{name} n={len(split)}" for name, split in parts.items())
    examples = [e for split in parts.values() for e in split]
    plural = "s" if len(parts) > 1 else ""
    return examples, f"{BUNDLED}{plural} ({sizes})"


def load_validation(
    spec: str, option: str | None, taxonomy: Taxonomy, tag_many: Any
) -> Validation | None:
    """The validation of tagger ``spec`` (see the module docstring); ``tag_many`` tags
    (contexts, replies) with the run's classifier, ``None`` for a tagger that is no
    classifier (an LLM or votes)."""
    from taiwa.annotators.da_classifier.encoder_train import checked_examples
    from taiwa.benchmarks.da_distribution.tagging import DEFAULT
    from taiwa.metrics.adjusted_counts import confusion_counts, confusion_from_table

    labels = taxonomy.names
    if option is not None:
        path = Path(option)
        report = _report(path)
        if report is not None:
            tables = _confusions(report) or []
            listed = report.get("files")
            files = ", ".join(str(f) for f in listed) if isinstance(listed, list) else ""
            files = files or "?"
            name = f"{path} (taiwa validate tagger {report['tagger']} on {files})"
            counts = confusion_from_table(tables[0], labels)
            for table in tables[1:]:  # one report, several gold sets: their counts added
                counts = counts + confusion_from_table(table, labels)
            return Validation(name, counts)
        if tag_many is None:
            raise TaiwaError(_NEEDS_REPORT.format(spec=spec, path=option))
        examples = checked_examples(path)
        name = str(path)
    elif spec == DEFAULT:
        examples, name = default_validation_set()
    else:
        return None
    predicted = tag_many([e.context for e in examples], [e.reply for e in examples])
    counts = confusion_counts([e.act for e in examples], predicted, labels)
    return Validation(name, counts, tuple(len(e.reply) for e in examples))


def run_validation(spec: str, options: Any) -> Validation | None:
    """The validation of a run's tagger ``spec`` under the method's ``options`` (``None``:
    crowd votes, or no gold set for this tagger)."""
    from taiwa.benchmarks.da_distribution.tagging import DEFAULT, VOTES, load_classifier
    from taiwa.core.io import path_kind
    from taiwa.core.taxonomies import BUILTIN, load_taxonomy

    if spec.startswith(VOTES):
        return None
    if spec == DEFAULT and options.tagger_validation is None and options.taxonomy in BUILTIN:
        shipped = _shipped_validation(options.taxonomy)
        return Validation(shipped.name, shipped.confusion.copy(), shipped.lengths)
    taxonomy = load_taxonomy(options.taxonomy)
    tag_many = None
    if spec == DEFAULT or path_kind(Path(spec) / "taiwa_da.json") == "file":
        checked = None if spec == DEFAULT else Path(spec)
        tag_many = load_classifier(checked, taxonomy).tag_many
    return load_validation(spec, options.tagger_validation, taxonomy, tag_many)


@cache
def _shipped_validation(taxonomy: str) -> Validation:
    """The shipped tagger on its bundled held-out splits under a built-in taxonomy, tagged once
    per process: all three are fixed (a taxonomy file could change between runs), and a
    process running many da-distribution runs (a script, the test suite) tagged the same 922
    utterances for each (0.4 CPU s a run)."""
    from taiwa.benchmarks.da_distribution.tagging import DEFAULT, load_classifier
    from taiwa.core.taxonomies import load_taxonomy

    loaded = load_taxonomy(taxonomy)
    validation = load_validation(DEFAULT, None, loaded, load_classifier(None, loaded).tag_many)
    if validation is None:  # the default tagger always has its gold set: a packaging bug
        raise RuntimeError(f"the shipped tagger has no bundled validation set for {taxonomy}")
    return validation


def corrected_blocks(
    c: Collected,
    labels: Sequence[str],
    validation: Validation,
    seed: int,
    skip: Sequence[str] = (),
) -> dict[str, dict[str, Any]]:
    """Per system (but those in ``skip``): corrected ``dae``, ``dami`` and act ``shares``
    (value, CI, n)."""
    from taiwa.metrics.adjusted_counts import adjusted_estimates

    code = {a: j for j, a in enumerate(labels)}
    out: dict[str, dict[str, Any]] = {}
    for s in c.systems:
        acts = c.acts[s]
        if not acts or s in skip:
            continue
        codes = [code[a] for a in acts if a in code]
        pairs = [
            (code[p], code[a])
            for a, p in zip(acts, c.previous[s], strict=True)
            if a in code and p is not None and p in code
        ]
        est = adjusted_estimates(codes, validation.confusion, pairs or None, seed=seed)
        block: dict[str, Any] = {
            "dae": est.entropy.as_dict(),
            "shares": {a: est.shares[j].as_dict() for j, a in enumerate(labels)},
        }
        if est.mutual_information is not None:
            block["dami"] = {
                **est.mutual_information.as_dict(),
                "plug_in": est.mutual_information_plug_in,
            }
        out[s] = block
    return out


def add_corrected(
    systems: dict[str, dict[str, Any]],
    across: dict[str, Any],
    c: Collected,
    labels: Sequence[str],
    validation: Validation | None,
    seed: int,
    labelled: Sequence[str] = (),
) -> list[str]:
    """Put each system's ``corrected`` block and ``across.tagger_validation`` in the summary
    (not for the ``labelled`` systems, whose acts are gold labels, not the tagger's); returns
    the notes."""
    if validation is None:
        return []
    across["tagger_validation"] = validation.block()
    for s, block in corrected_blocks(c, labels, validation, seed, labelled).items():
        systems[s]["corrected"] = block
    notes = [
        "corrected DAE/DAMI: act distribution estimated through the tagger's confusion on "
        f"{validation.name} (n={across['tagger_validation']['n']}); CIs resample it with the "
        "replies"
    ]
    if c.prev_from.get("tagger"):
        notes.append(
            f"corrected DAMI takes the previous acts as given: {c.prev_from['tagger']} of them "
            "came from the tagger, uncorrected"
        )
    return notes
