"""``taiwa validate tagger`` for da-distribution (issues 16, 26): a chitchat11 tagger against
gold labels (seed 002 §5.2, Table 5 layout), beside two baselines.

The gold file has the labelled-set shape ``{"id", "context", "reply", "act"}`` (every line
checked: a missing field or an act outside chitchat11 is one error naming file, line and
field). Without ``--data``: the two bundled held-out splits the default classifier never saw in
training, reported apart — the *tidy* one (20 % of ``labelled.jsonl``) and the *chat-style*
one (``chatstyle_heldout.jsonl``: dialogues written like spontaneous chat). With ``--data``:
each file is a set of its own.

On every set: accuracy and macro-F1 with 95 % bootstrap CIs, per-act P/R/F1, how often each act
is predicted against how often it occurs, and the same figures of the baselines: the majority
act of the default model's training data, and a char-n-gram-only logistic regression trained
on that data by the same recipe (:func:`~taiwa.annotators.da_classifier.model.char_ngram_settings`,
at the L2 strength recorded with the shipped model).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taiwa.annotators.da_classifier.model import Example
    from taiwa.benchmarks.da_distribution.tagging import Classifier
    from taiwa.models.spec import ModelOptions

BUNDLED = "bundled held-out split"


def gold_sets(data: Sequence[Path]) -> dict[str, list[Example]]:
    """Name → gold examples: each ``--data`` file, else the two bundled held-out splits."""
    from taiwa.annotators.da_classifier.encoder_train import checked_examples
    from taiwa.annotators.da_classifier.recipe import training_sets

    if data:
        return {str(p): checked_examples(p) for p in data}
    _, tests, _ = training_sets()
    return {f"{name} {BUNDLED}": v for name, v in tests.items() if v}


def _tagged(classifier: Classifier, test: Sequence[Example]) -> list[str | None]:
    return list(classifier.tag_many([e.context for e in test], [e.reply for e in test]))


def set_report(
    classifier: Classifier,
    pred: list[str | None],
    baseline: Classifier,
    majority: str,
    test: Sequence[Example],
    seed: int,
) -> dict[str, Any]:
    """The tagger's (its tags ``pred``) and both baselines' label reports on one gold set, and
    the predicted vs true count of each act."""
    from taiwa.annotators.validation import label_report

    gold = [e.act for e in test]
    acts = list(classifier.acts)
    ngram = _tagged(baseline, test)
    true_n, pred_n = Counter(gold), Counter(pred)
    return {
        "n": len(test),
        "labels": {
            classifier.name: label_report(gold, pred, acts, seed),
            "char-n-gram LR (same data)": label_report(gold, ngram, acts, seed),
            f"majority act ({majority})": label_report(gold, [majority] * len(gold), acts, seed),
        },
        "counts": {a: {"true": true_n[a], "predicted": pred_n[a]} for a in acts},
    }


def validate_tagger(
    spec: str, data: Sequence[Path], seed: int, models: ModelOptions | None = None
) -> dict[str, Any]:
    """The report of tagger ``spec`` (``default``, a ``taiwa da train`` directory or a chat
    model, :mod:`.llm_tagging`, whose repairs are counted) on the gold labels of ``data``
    (default: both bundled held-out splits). A chat model is loaded with ``models`` (``taiwa
    run``'s flags) and its endpoint checked before anything else; ``failures`` says how many
    utterances it left untagged."""
    from taiwa.annotators.da_classifier.recipe import char_ngram_baseline, training_sets
    from taiwa.benchmarks.da_distribution.llm_tagging import llm_classifier
    from taiwa.benchmarks.da_distribution.tagging import ModelTagger, check_tagger, load_classifier
    from taiwa.core.errors import TaiwaError
    from taiwa.core.taxonomies import load_taxonomy
    from taiwa.models.cache import default_cache_dir

    taxonomy = load_taxonomy("chitchat11")
    checked = check_tagger(spec, taxonomy, seed)
    if isinstance(checked, ModelTagger):
        from taiwa.models.spec import load_checked_model

        classifier: Any = llm_classifier(load_checked_model(spec, models), spec, taxonomy, seed)
    elif checked is None or isinstance(checked, Path):
        classifier = load_classifier(checked, taxonomy)
    else:
        raise TaiwaError("--tagger votes:FILE are gold labels themselves: validate a classifier")
    sets = gold_sets(data)
    # the tagger first: a server that fails every request stops the command before the
    # baseline is fitted (minutes on a fresh cache)
    tags = {name: _tagged(classifier, test) for name, test in sets.items()}
    train, _, _ = training_sets()
    acts = list(classifier.acts)
    baseline = char_ngram_baseline(train, acts, default_cache_dir())  # fitted once, kept
    majority = Counter(e.act for e in train).most_common(1)[0][0]
    extra = {"repairs": classifier.repairs} if isinstance(checked, ModelTagger) else {}
    reports = {
        name: set_report(classifier, tags[name], baseline, majority, test, seed)
        for name, test in sets.items()
    }
    mine = [block["labels"][classifier.name] for block in reports.values()]
    return {
        **extra,
        "tagger": classifier.name,
        "files": list(sets),
        "seed": seed,
        "baselines_trained_on": "the default tagger's training data "
        f"({len(train)} examples: tidy development split + chat-style train)",
        "sets": reports,
        "failures": {"failed": sum(r["failed"] for r in mine), "items": sum(r["n"] for r in mine)},
    }


def report_tables(report: Mapping[str, Any]) -> list[Any]:
    """Per set: the tagger's per-act table with predicted/true counts, its confusion, and
    macro-F1 / accuracy beside the baselines."""
    from rich.table import Table

    from taiwa.display.tables import ci_cell, confusion_table

    name = report["tagger"]
    out: list[Any] = []
    for set_name, block in report["sets"].items():
        main = block["labels"][name]
        per = Table(title=f"{set_name}: {name} per act (n={main['n']})", title_justify="left")
        for col in ("act", "precision", "recall", "F1", "true", "predicted"):
            per.add_column(col, justify="left" if col == "act" else "right")
        for act, r in main["per_act"].items():
            c = block["counts"][act]
            per.add_row(
                act,
                f"{r['precision']:.3f}",
                f"{r['recall']:.3f}",
                f"{r['f1']:.3f}",
                str(c["true"]),
                str(c["predicted"]),
            )
        side = Table(title=f"{set_name}: beside the baselines", title_justify="left")
        for col in ("tagger", "macro-F1", "accuracy", "failed"):
            side.add_column(col, justify="left" if col == "tagger" else "right")
        for label, r in block["labels"].items():
            side.add_row(label, ci_cell(r["macro_f1_ci"]), ci_cell(r["accuracy"]), str(r["failed"]))
        out += [per, confusion_table(main["confusion"], f"{set_name}: confusion"), side]
        if "repairs" in report:  # a chat model: what its answers needed
            done = ", ".join(f"{k}: {v}" for k, v in report["repairs"].items()) or "none"
            side.caption = f"repairs of the model's answers: {done}"
    return out
