"""DAE, DAMI and act shares corrected for the tagger's errors (issues 26, 38; seed 002 §4,
App. C).

Seed 002's DAE is the entropy of the act distribution of a system's replies, so a tagger that
over-predicts one act moves it as much as a real difference between systems would. Given the
tagger's confusion on gold labels, :mod:`taiwa.metrics.adjusted_counts` estimates the true act
distribution from the predicted one (the maximum-likelihood solution of ``q = p M`` on the
simplex) and :mod:`taiwa.metrics.corrected_estimates` takes DAE from it with the small-n bias
removed; DAMI the same way per previous act (the previous acts taken as given: the test set's
labels by default). The 95 % CIs redraw the validation set with the replies.

Where the confusion comes from (:func:`run_validations`):

- ``-o tagger_validation=FILE``: a gold file in the labelled-set shape ``{"id", "context",
  "reply", "act"}`` that the run's classifier tags when the run aggregates, or the ``--json``
  report of ``taiwa validate tagger SPEC --data GOLD`` (its ``confusion``; the only way for an
  LLM tagger, whose calls belong in the validator, not in aggregation): one validation for
  every system;
- the ``default`` tagger without that option: a validation of the style of the text it
  corrects (:data:`STYLE_SETS`), tagged by the shipped model at run time (so it always matches
  the model that is shipped): the real-chat held-out split (``realchat_heldout.jsonl``,
  utterances of recorded chats) for the human replies, the system-style held-out split
  (``systemstyle_heldout.jsonl``) for the systems' replies; while the package has no
  system-style split the systems are corrected through the real-chat one and flagged
  (:func:`taiwa.metrics.correction_flags.validation_style`);
- crowd votes and other taggers without the option: no correction (reported as absent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io.text import json_type

if TYPE_CHECKING:
    import numpy as np

    from taiwa.annotators.da_classifier.model import Example
    from taiwa.core.schema import Taxonomy


_NEEDS_REPORT = (
    "-o tagger_validation={path}: the tagger {spec} is a chat model, not a classifier: run "
    "`taiwa validate tagger --tagger {spec} --data {path} --json REPORT.json` and give REPORT.json"
)


REAL_CHAT, SYSTEM_STYLE = "real chat", "system style"
STYLE_SETS = {
    REAL_CHAT: "data/samples/da_distribution/realchat_heldout.jsonl",
    SYSTEM_STYLE: "data/samples/da_distribution/systemstyle_heldout.jsonl",
}
"""The default tagger's validation sets by the style of text they hold: utterances of recorded
human chats (RealPersonaChat, CC BY-SA 4.0; ``LICENSE_realchat.md``) and replies of dialogue
systems (LLM chat replies, rule-based bots, templates, acknowledgements). Neither is in the
shipped model's training data."""

STYLE_TEXT = {
    REAL_CHAT: "utterances of recorded human chats",
    SYSTEM_STYLE: "dialogue systems' replies",
}


@dataclass(frozen=True)
class Validation:
    """The gold set a tagger was checked on: its name, ``k × k`` confusion counts (rows
    gold, columns predicted, in the taxonomy's act order), the length in characters of
    each utterance it tagged (empty when only a report's counts are known) and the style of
    its text (:data:`STYLE_SETS`' keys; ``None``: a user's set, style unknown)."""

    name: str
    confusion: np.ndarray
    lengths: tuple[int, ...] = ()
    style: str | None = None

    @property
    def accuracy(self) -> float | None:
        total = int(self.confusion.sum())
        return int(self.confusion.trace()) / total if total else None

    def block(self) -> dict[str, Any]:
        out = {"name": self.name, "n": int(self.confusion.sum()), "accuracy": self.accuracy}
        if self.style is not None:
            out["style"] = self.style
        return out


@dataclass(frozen=True)
class Validations:
    """The validation each system of a run is corrected through: ``human`` for the test set's
    human replies, ``systems`` for every other system's; ``systems_style``: the style of text
    the systems' replies are, when ``systems`` holds another style (the reason for a flag)."""

    human: Validation
    systems: Validation
    systems_style: str | None = None

    def of(self, system: str) -> Validation:
        from taiwa.harness.method import HUMAN

        return self.human if system == HUMAN else self.systems

    def mismatch(self, system: str) -> str | None:
        """The style of ``system``'s text when its validation is of another style."""
        from taiwa.harness.method import HUMAN

        return None if system == HUMAN else self.systems_style

    def used(self) -> list[Validation]:
        return [self.human] if self.systems is self.human else [self.human, self.systems]


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


def style_set(style: str) -> tuple[list[Example], str]:
    """The default tagger's gold set of one style (:data:`STYLE_SETS`; empty when the package
    has none) and its name."""
    from taiwa.annotators.da_classifier.recipe import bundled

    examples = bundled(STYLE_SETS[style])
    name = STYLE_SETS[style].rsplit("/", 1)[-1]
    return examples, f"{style} held-out split {name}"


def tagged_validation(
    examples: Sequence[Example], name: str, style: str | None, taxonomy: Taxonomy, tag_many: Any
) -> Validation:
    """The confusion of the classifier behind ``tag_many`` on gold ``examples``."""
    from taiwa.metrics.adjusted_counts import confusion_counts

    predicted = tag_many([e.context for e in examples], [e.reply for e in examples])
    counts = confusion_counts([e.act for e in examples], predicted, taxonomy.names)
    return Validation(name, counts, tuple(len(e.reply) for e in examples), style)


def load_validation(spec: str, option: str, taxonomy: Taxonomy, tag_many: Any) -> Validation:
    """The validation ``-o tagger_validation=option`` gives tagger ``spec`` (see the module
    docstring); ``tag_many`` tags (contexts, replies) with the run's classifier, ``None`` for
    a tagger that is no classifier (an LLM or votes)."""
    from taiwa.annotators.da_classifier.encoder_train import checked_examples
    from taiwa.metrics.adjusted_counts import confusion_from_table

    labels = taxonomy.names
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
    return tagged_validation(checked_examples(path), str(path), None, taxonomy, tag_many)


def default_validations(taxonomy: Taxonomy, tag_many: Any) -> Validations:
    """The default tagger's validations by style (:data:`STYLE_SETS`): the real-chat split for
    the human replies, the system-style split for the systems' (the real-chat one, with the
    style named for a flag, while there is none)."""
    examples, name = style_set(REAL_CHAT)
    if not examples:  # the package always ships it: its absence is a packaging bug
        raise RuntimeError(f"the shipped tagger's {REAL_CHAT} validation set is missing")
    human = tagged_validation(examples, name, REAL_CHAT, taxonomy, tag_many)
    examples, name = style_set(SYSTEM_STYLE)
    if not examples:
        return Validations(human, human, STYLE_TEXT[SYSTEM_STYLE])
    return Validations(human, tagged_validation(examples, name, SYSTEM_STYLE, taxonomy, tag_many))


def run_validations(spec: str, options: Any) -> Validations | None:
    """The validations of a run's tagger ``spec`` under the method's ``options`` (``None``:
    crowd votes, or no gold set for this tagger)."""
    from taiwa.benchmarks.da_distribution.tagging import DEFAULT, VOTES, load_classifier
    from taiwa.core.io import path_kind
    from taiwa.core.taxonomies import BUILTIN, load_taxonomy

    if spec.startswith(VOTES):
        return None
    if spec == DEFAULT and options.tagger_validation is None and options.taxonomy in BUILTIN:
        shipped = _shipped_validations(options.taxonomy)
        human = replace(shipped.human, confusion=shipped.human.confusion.copy())
        if shipped.systems is shipped.human:
            return replace(shipped, human=human, systems=human)
        systems = replace(shipped.systems, confusion=shipped.systems.confusion.copy())
        return replace(shipped, human=human, systems=systems)
    if options.tagger_validation is None and spec != DEFAULT:
        return None
    taxonomy = load_taxonomy(options.taxonomy)
    tag_many = None
    if spec == DEFAULT or path_kind(Path(spec) / "taiwa_da.json") == "file":
        checked = None if spec == DEFAULT else Path(spec)
        tag_many = load_classifier(checked, taxonomy).tag_many
    if options.tagger_validation is None:
        return default_validations(taxonomy, tag_many)
    validation = load_validation(spec, options.tagger_validation, taxonomy, tag_many)
    return Validations(validation, validation)


@cache
def _shipped_validations(taxonomy: str) -> Validations:
    """The shipped tagger on its validation sets under a built-in taxonomy, tagged once per
    process: all three are fixed (a taxonomy file could change between runs), and a process
    running many da-distribution runs (a script, the test suite) tagged the same sets for
    each."""
    from taiwa.benchmarks.da_distribution.tagging import load_classifier
    from taiwa.core.taxonomies import load_taxonomy

    loaded = load_taxonomy(taxonomy)
    return default_validations(loaded, load_classifier(None, loaded).tag_many)
