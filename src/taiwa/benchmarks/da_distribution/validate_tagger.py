"""``taiwa validate tagger`` for da-distribution (issue 16): a chitchat11 tagger against gold
labels (seed 002 §5.2, Table 5 layout), beside the majority-act baseline.

The gold file has the labelled-set shape ``{"id", "context", "reply", "act"}`` (every line
checked: a missing field or an act outside chitchat11 is one error naming file, line and
field). Without ``--data``: the held-out split of the bundled labelled set, which the default
classifier never saw in training (:func:`taiwa.annotators.da_classifier.held_out_split`); the
majority act is the development split's (with ``--data``: the file's own, a baseline that sees
the answers' distribution).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

BUNDLED = "bundled held-out split"


def validate_tagger(spec: str, data: Sequence[Path], seed: int) -> dict[str, Any]:
    """The report of tagger ``spec`` (``default``, a ``taiwa da train`` directory or a chat
    model, :mod:`.llm_tagging`, whose repairs are counted) on the gold labels of ``data``."""
    from taiwa.annotators.da_classifier import Example, held_out_split, load_examples
    from taiwa.annotators.da_encoder_train import checked_examples
    from taiwa.annotators.validation import label_report
    from taiwa.benchmarks.da_distribution.llm_tagging import llm_classifier
    from taiwa.benchmarks.da_distribution.tagging import ModelTagger, check_tagger, load_classifier
    from taiwa.errors import TaiwaError
    from taiwa.taxonomies import load_taxonomy

    taxonomy = load_taxonomy("chitchat11")
    checked = check_tagger(spec, taxonomy, seed)
    if isinstance(checked, ModelTagger):
        classifier: Any = llm_classifier(spec, taxonomy, seed)
    elif checked is None or isinstance(checked, Path):
        classifier = load_classifier(checked, taxonomy)
    else:
        raise TaiwaError("--tagger votes:FILE are gold labels themselves: validate a classifier")
    test: list[Example] = []
    if data:
        for path in data:
            test += checked_examples(path)
        pool = test
    else:
        pool, test = held_out_split(load_examples()[0])
    gold = [e.act for e in test]
    pred: list[str | None] = list(
        classifier.tag_many([e.context for e in test], [e.reply for e in test])
    )
    acts = list(classifier.acts)
    majority = Counter(e.act for e in pool).most_common(1)[0][0]
    extra = {"repairs": classifier.repairs} if isinstance(checked, ModelTagger) else {}
    return {
        **extra,
        "tagger": classifier.name,
        "files": [str(p) for p in data] or [BUNDLED],
        "seed": seed,
        "labels": {
            classifier.name: label_report(gold, pred, acts, seed),
            f"majority act ({majority})": label_report(gold, [majority] * len(gold), acts, seed),
        },
    }


def report_tables(report: Mapping[str, Any]) -> list[Any]:
    """Per-act table of the tagger, confusion, and macro-F1 / accuracy beside the baseline."""
    from rich.table import Table

    from taiwa.tables import ci_cell, confusion_table

    name = report["tagger"]
    main = report["labels"][name]
    per = Table(title=f"{name}: per act (n={main['n']})", title_justify="left")
    for col in ("act", "precision", "recall", "F1", "n"):
        per.add_column(col, justify="left" if col == "act" else "right")
    for act, r in main["per_act"].items():
        per.add_row(
            act, f"{r['precision']:.3f}", f"{r['recall']:.3f}", f"{r['f1']:.3f}", str(r["support"])
        )
    conf = confusion_table(main["confusion"])
    side = Table(title="beside the trivial baseline", title_justify="left")
    for col in ("tagger", "macro-F1", "accuracy", "failed"):
        side.add_column(col, justify="left" if col == "tagger" else "right")
    for label, r in report["labels"].items():
        side.add_row(label, ci_cell(r["macro_f1_ci"]), ci_cell(r["accuracy"]), str(r["failed"]))
    if "repairs" in report:  # a chat model: what its answers needed
        done = ", ".join(f"{k}: {v}" for k, v in report["repairs"].items()) or "none"
        side.caption = f"repairs of the model's answers: {done}"
    return [per, conf, side]
