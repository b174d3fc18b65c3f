"""The kinds of value every named field of a ``summary.json`` holds, wherever it appears: the
table :mod:`taiwa.harness.summary_schema` checks a summary against.

A name maps to one kind or several joined by ``|`` (``"number?|object"``: a number, null or
an object); the kinds are :data:`taiwa.harness.summary_schema.KINDS`'. The table is taken from
what every method writes (``tests/test_run_reader.py`` checks it against a run of each method,
so a field a method starts writing under a name typed otherwise fails there). Keys that are
data (system names, act names, task names, the bins of a histogram) are not in it: their
values are checked against each other instead (one kind per object)."""

from __future__ import annotations

MAX_VALUE = 1e12
"""The largest magnitude of any number in a run's files (summary or stage rows): a count, a
score, a number of seconds or tokens beyond it is a damaged or hand-edited file, refused
rather than printed (numpy would overflow on ``1e308`` and print a 300-digit interval)."""

_OBJECTS = (
    "accuracy_dependent accuracy_independent acts agreement annotator bins by_task chars chi2 "
    "cohesive_share consistency corrected correlation_agents_only correlation_all dae dami "
    "dialogue_mean distinct1 distinct2 exact_sequence extracted flip_rate forfeits "
    "gold_first groups held_out_macro_f1 human_rate identical_replies japanese_share "
    "judge_quality judge_vs_human_items max_insertion max_substitution mean_rank mean_ranks "
    "min_wed pairwise pairwise_detail precision prev_acts rating_histogram recall repairs "
    "rouge1 rouge2 rougeL rougeL_by_task shares single stability tagger_validation_systems "
    "tagger_vs_human_labels task_difficulty tasks training_data transitions unparsed_pairwise "
    "unparsed_single validated validated_varied vs_human win_rate win_rate_adjusted win_rates "
    "wlcs across asr_cer claim drop"
)

_COUNTS = (
    "n n_items n_dialogues n_labelled n_systems n_utterances n_agent_utterances n_samples "
    "n_permutations n_resamples count scored shared only_a only_b family failed failed_items "
    "forfeit_losses forfeit_wins forfeited losses repetitions tagged unparseable unparsed "
    "rankings_for_other_items requests calls cache_hits retries probes repaired invalid "
    "usage_unknown cached_usage_unknown judged missing ok imputed imputed_a imputed_b floor"
)

_NUMBERS = (
    "alpha confidence seed distance batch_size index importance total aggregate generate "
    "annotate extract tag single_judge pairwise_judge power"
)

_NUMBERS_OR_NULL = (
    "value p p_holm mdd rho r sd median variance threshold bias plug_in prefix_gap "
    "random_mean_gap random_p95_gap human_mean_rank macro_f1 full_accuracy concentration "
    "gold_concentration gold_share statistic option first second judge score all dependent "
    "independent stable_from tokens_in tokens_out cached_tokens_in cached_tokens_out price_in "
    "price_out cost_usd asr_cer_corpus asr_rtf"
)

_STRINGS = (
    "method seed_paper status role spec code on text label metric direction kind resampled "
    "test correction name resource input_mode taxonomy title speaker w1 w2 act id system "
    "dialogue_id input reply gold_text interval why"
)

_LISTS = (
    "flags notes between context counts excluded_systems full gold gold_steps pred_steps "
    "lift options points ranking rows covers"
)

FIELD_KINDS: dict[str, str] = {
    **dict.fromkeys(_OBJECTS.split(), "object?"),
    **dict.fromkeys(_COUNTS.split(), "count"),
    **dict.fromkeys(_NUMBERS.split(), "number"),
    **dict.fromkeys(_NUMBERS_OR_NULL.split(), "number?"),
    **dict.fromkeys(_STRINGS.split(), "string"),
    **dict.fromkeys(_LISTS.split(), "list?"),
    **dict.fromkeys(
        ["cohesive", "correct", "significant", "strict", "cost_lower_bound", "holds", "small_n"],
        "bool",
    ),
    "no_test": "string?",
    "discordant": "count?",
    **dict.fromkeys(["decreasing", "flagged"], "bool?"),
    **dict.fromkeys(["baseline", "better"], "string?"),
    **dict.fromkeys(["a", "b"], "object|string"),
    "c": "object",
    "items": "number?|object",
    "tagger": "number?|object",
    "tagger_validation": "object?|list",
    "difference": "number?|object",
    "top": "object|string",
    "calls": "count|list",
    "accuracy": "number?|object",
    "answers": "list|object",
    "comparisons": "number|object",
    "conditions": "list|object",
    "continuation": "number?|object",
    "next_speaker": "number?|object",
    "next_utterance": "number?|object",
    "deletion": "number?|object",
    "insertion": "number?|object",
    "substitution": "number?|object",
    "wed": "number?|object",
    "share": "number?|object",
    "human": "number?|object",
    "rankings": "number?|object",
    "examples": "list|object",
    "failures": "count|object",
    "files": "list|object",
    "labels": "list|number",
    "pairs": "list|object",
    "seconds": "number|object",
    "systems": "list|object",
    "ties": "count|object",
    "wins": "count|object",
    "ci_low": "number?|list",
    "ci_high": "number?|list",
}
"""Field name → the kinds of value it may hold, wherever it appears in a summary."""

RANGES: dict[str, tuple[float, float]] = {
    **dict.fromkeys(("p", "p_holm", "alpha", "confidence", "share", "gold_share"), (0.0, 1.0)),
    **dict.fromkeys(("rho", "r"), (-1.0, 1.0)),
    **dict.fromkeys(("seconds", "total", "price_in", "price_out", "cost_usd"), (0.0, MAX_VALUE)),
}
"""Fields whose numbers lie in a fixed range (where they are numbers)."""
