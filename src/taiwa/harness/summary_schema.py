"""The shape of a run's ``summary.json``, validated once when the report or the leaderboard
reads a run directory, so that a hand-edited or damaged file is one line naming the file, the
line and the field whose type is wrong, never a traceback in a method's table code.

What is checked (unknown extra keys are allowed at every level, so blocks added later pass;
the types of the keys that exist are checked):

- the top-level fields every run writes (:data:`TOP_FIELDS`), and ``n_samples`` when present;
- ``systems``: one object per system, at least one; ``failures``: a count per stage;
- ``calls``: one object per role with the fields the calls table reads (:data:`CALL_FIELDS`);
- ``comparisons``, when present: the fields its table and forest plot read
  (:data:`COMPARISON_FIELDS`, :data:`COMPARISON_ROW_FIELDS`);
- at every level: no NaN or infinity (taiwa writes ``null`` for a missing number), every
  estimate (an object with ``value`` and ``n``) holds numbers, and the fields whose name
  fixes their type (:data:`NAMED_FIELDS`: an ``n`` is a count, a ``rouge1`` an object ...)
  hold that type.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io import json_type

Where = Sequence[str | int]


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_number_or_null(v: Any) -> bool:
    return v is None or _is_number(v)


KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "count": ("a count (a whole number >= 0)", _is_count),
    "number": ("a number", _is_number),
    "number?": ("a number or null", _is_number_or_null),
    "string": ("a string", lambda v: isinstance(v, str)),
    "object": ("an object", lambda v: isinstance(v, dict)),
    "list": ("an array", lambda v: isinstance(v, list)),
    "bool": ("true or false", lambda v: isinstance(v, bool)),
}

TOP_FIELDS = {
    "method": "string",
    "status": "string",
    "systems": "object",
    "across": "object",
    "failures": "object",
    "calls": "list",
    "notes": "list",
}
"""The fields every ``summary.json`` has."""

CALL_FIELDS = {
    "role": "string",
    "spec": "string",
    "requests": "count",
    "calls": "count",
    "cache_hits": "count",
    "failures": "count",
    "repaired": "count",
    "invalid": "count",
    "seconds": "number",
}
"""The fields of each ``calls`` entry the calls table reads (others, e.g. tokens, may follow)."""

COMPARISON_FIELDS = {"alpha": "number", "family": "count", "rows": "list"}
"""The fields of the optional ``comparisons`` block (issue 27) its table and forest plot read."""

COMPARISON_ROW_FIELDS = {
    **{k: "string" for k in ("a", "b", "metric", "label", "direction")},
    "difference": "object",
    **{k: "number?" for k in ("p", "p_holm", "mdd")},
    **{k: "count" for k in ("shared", "only_a", "only_b")},
    "significant": "bool",
}
"""The fields of each row of ``comparisons.rows`` (its ``difference`` is an estimate)."""

NAMED_FIELDS = {
    **{k: "count" for k in ("n", "n_items", "n_dialogues", "n_labelled", "n_systems", "count")},
    **{k: "count" for k in ("cache_hits", "requests", "repaired", "invalid", "scored")},
    **{k: "number?" for k in ("p", "rho", "sd", "median", "threshold", "bias", "importance")},
    **{k: "number?" for k in ("prefix_gap", "random_mean_gap", "random_p95_gap")},
    **{k: "number?" for k in ("human_mean_rank", "macro_f1", "full_accuracy", "aggregate")},
    **{
        k: "object"
        for k in (
            "rouge1",
            "rouge2",
            "rougeL",
            "dae",
            "dami",
            "distinct1",
            "distinct2",
            "japanese_share",
            "chars",
            "precision",
            "recall",
            "mean_rank",
            "win_rate",
            "win_rate_adjusted",
            "human_rate",
            "cohesive_share",
            "dialogue_mean",
            "exact_sequence",
            "extracted",
            "identical_replies",
            "pairwise_detail",
            "single",
            "pairwise",
            "agreement",
            "repairs",
        )
    },
    **{k: "list" for k in ("flags", "notes", "gold_steps", "pred_steps")},
    **{k: "string" for k in ("role", "spec", "code", "speaker", "method", "status")},
}
"""Fields whose name fixes their type wherever they appear in a summary (from every method's
summaries; a name used with several types is left out)."""


def check_summary(path: Path, obj: dict[str, Any], text: str) -> None:
    """Validate a run's summary (see the module's docstring); raises :class:`InputError`
    naming ``path``, the line and the field."""

    def fail(where: Where, expected: str, value: Any, missing: bool = False) -> InputError:
        name = ".".join(str(p) for p in where)
        got = None if missing else _shown(value)
        return InputError(str(path), line_of(text, where), name, expected, got)

    for key, kind in TOP_FIELDS.items():
        if key not in obj:
            raise fail([key], "this field to be present", None, missing=True)
        _check_kind(obj[key], [key], kind, fail)
    if "n_samples" in obj:
        _check_kind(obj["n_samples"], ["n_samples"], "count", fail)
    if not obj["systems"]:
        raise fail(["systems"], "at least one system's block", "{}")
    for system, block in obj["systems"].items():
        _check_kind(block, ["systems", system], "object", fail)
    for stage, count in obj["failures"].items():
        _check_kind(count, ["failures", stage], "count", fail)
    for k, call in enumerate(obj["calls"]):
        _check_kind(call, ["calls", k], "object", fail)
        _check_fields(call, ["calls", k], CALL_FIELDS, fail)
    for k, note in enumerate(obj["notes"]):
        _check_kind(note, ["notes", k], "string", fail)
    if "comparisons" in obj:
        _check_comparisons(obj["comparisons"], fail)
    _check_every_level(obj, fail)


def _check_fields(
    obj: dict[str, Any], where: list[str | int], fields: dict[str, str], fail: Any
) -> None:
    for key, kind in fields.items():
        if key not in obj:
            raise fail([*where, key], "this field to be present", None, missing=True)
        _check_kind(obj[key], [*where, key], kind, fail)


def _check_comparisons(block: Any, fail: Callable[..., InputError]) -> None:
    """The ``comparisons`` block, when a run has one (two or more systems)."""
    _check_kind(block, ["comparisons"], "object", fail)
    _check_fields(block, ["comparisons"], COMPARISON_FIELDS, fail)
    for k, row in enumerate(block["rows"]):
        where: list[str | int] = ["comparisons", "rows", k]
        _check_kind(row, where, "object", fail)
        _check_fields(row, where, COMPARISON_ROW_FIELDS, fail)
        if "value" not in row["difference"] or "n" not in row["difference"]:
            raise fail([*where, "difference"], "an estimate (value, n, ci_low, ci_high)", None)


_NUMBERS = {k: v for k, v in NAMED_FIELDS.items() if v in ("count", "number", "number?")}
ROW_FIELDS = {"id": "string", "system": "string", "error": "string", **_NUMBERS}
"""The fields of a stage file's row whose name fixes their type (rows hold per-item numbers
where a summary holds estimates, so only the named numbers, not the named objects)."""


def check_row(path: Path, line: int, row: dict[str, Any]) -> None:
    """A stage file's row (one line of a run's JSONL): its named fields, and those of the
    objects directly in it, hold their type (:data:`ROW_FIELDS`)."""
    for key, value in row.items():
        kind = ROW_FIELDS.get(key)
        if kind is not None and not KINDS[kind][1](value):
            raise InputError(str(path), line, key, KINDS[kind][0], _shown(value))
        if isinstance(value, dict):
            for inner, v in value.items():
                kind = _NUMBERS.get(inner)
                if kind is not None and not KINDS[kind][1](v):
                    raise InputError(str(path), line, f"{key}.{inner}", KINDS[kind][0], _shown(v))


def _check_every_level(obj: dict[str, Any], fail: Callable[..., InputError]) -> None:
    stack: list[tuple[list[str | int], Any]] = [([], obj)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            raise fail(where, "a finite number or null", value)
        if isinstance(value, dict):
            if "value" in value and "n" in value:
                _check_estimate(value, where, fail)
            for k, v in value.items():
                if k in NAMED_FIELDS:
                    _check_kind(v, [*where, k], NAMED_FIELDS[k], fail)
                stack.append(([*where, k], v))
        elif isinstance(value, list):
            stack += [([*where, k], v) for k, v in enumerate(value)]


def _check_kind(value: Any, where: Where, kind: str, fail: Callable[..., InputError]) -> None:
    expected, ok = KINDS[kind]
    if not ok(value):
        raise fail(where, expected, value)


def _check_estimate(value: dict[str, Any], where: list[str | int], fail: Any) -> None:
    """An estimate: ``n`` a count, ``value`` / ``ci_low`` / ``ci_high`` numbers or null, a
    ``value`` that is null only when there is no interval either, and both bounds or none."""
    _check_kind(value["n"], [*where, "n"], "count", fail)
    for k in ("value", "ci_low", "ci_high"):
        v = value.get(k)
        if k == "value" or not isinstance(v, list):  # some intervals are per-position lists
            _check_kind(v, [*where, k], "number?", fail)
    bounds = [value.get(k) for k in ("ci_low", "ci_high")]
    if value["value"] is None and any(_is_number(b) for b in bounds):
        raise fail([*where, "value"], "a number (the interval has bounds)", None)
    if "ci_low" in value and "ci_high" in value and (bounds[0] is None) != (bounds[1] is None):
        k = "ci_low" if bounds[0] is None else "ci_high"
        raise fail([*where, k], "a number (the other bound is one)", None)


def _shown(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict | list):
        return json_type(value)
    return json.dumps(value, ensure_ascii=False)[:40]


def line_of(text: str, path: Where) -> int | None:
    """The line of ``text`` (indented JSON) where the value at ``path`` starts: each key is
    looked for after the previous one, so ``("systems", "demo", "wed")`` finds the ``wed`` of
    the ``demo`` block. ``None`` when a key is not found."""
    pos = 0
    for key in path:
        if isinstance(key, int):
            continue
        found = text.find(json.dumps(key, ensure_ascii=False) + ":", pos)
        if found < 0:
            return None
        pos = found
    return text.count("\n", 0, pos) + 1
