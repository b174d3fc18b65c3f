"""The correction on real recorded chats (issue 38): the real-chat held-out split's own labels
stand in for the 240 real replies the issue checks. Its dialogues are split in two halves; the
shipped tagger's predictions on each half are corrected through its confusion on the other half
(real chat of the same kind, never the half corrected), and the corrected DAE lands within 0.3
bits of the half's labels' DAE, or is flagged."""

from __future__ import annotations

import numpy as np

from taiwa.metrics.adjusted_counts import confusion_counts, entropy_bits
from taiwa.metrics.corrected_estimates import CORRECTION_MIN_N, adjusted_estimates
from taiwa.metrics.correction_flags import correction_floor, off_validation
from taiwa.metrics.stats import bootstrap_ci


def test_corrected_dae_lands_near_the_labels_on_held_out_real_chat() -> None:
    from taiwa.annotators.da_classifier.model import default_classifier
    from taiwa.benchmarks.da_distribution.correction import REAL_CHAT, style_set
    from taiwa.core.taxonomies import load_taxonomy

    labels = load_taxonomy("chitchat11").names
    code = {a: j for j, a in enumerate(labels)}
    examples = style_set(REAL_CHAT)[0]
    predicted = default_classifier().tag_many(
        [e.context for e in examples], [e.reply for e in examples]
    )
    dialogues = sorted({e.group for e in examples})
    assert len(dialogues) >= 20 and all(dialogues)
    for half in (set(dialogues[0::2]), set(dialogues[1::2])):
        inside = [i for i, e in enumerate(examples) if e.group in half]
        outside = [i for i, e in enumerate(examples) if e.group not in half]
        confusion = confusion_counts(
            [examples[i].act for i in outside], [predicted[i] for i in outside], labels
        )
        est = adjusted_estimates([code[predicted[i]] for i in inside], confusion, seed=0)
        gold = np.bincount([code[examples[i].act] for i in inside], minlength=len(labels))
        truth = float(entropy_bits(gold / gold.sum()))
        hits = [float(predicted[i] == examples[i].act) for i in inside]
        agreement = bootstrap_ci(hits, seed=0).as_dict()
        accuracy = confusion.trace() / confusion.sum()
        flagged = (
            correction_floor(len(inside), CORRECTION_MIN_N, "dae") is not None
            or off_validation(agreement, accuracy, "dae", "the tagger") is not None
        )
        error = est.entropy.value - truth
        assert flagged or abs(error) <= 0.3, (len(inside), truth, est.entropy, error)
        assert est.entropy.low <= est.entropy.value <= est.entropy.high
