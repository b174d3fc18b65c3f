"""The shape of a run's ``summary.json`` (DESIGN.md, run directories), checked once when a run
directory is read (:func:`taiwa.harness.run_reader.load_run`), so that a hand-edited or damaged
file is one line naming the file, the line and the field, never a traceback in a method's table
code nor a wrong number printed.

What is checked (unknown extra keys are allowed at every level, so blocks added later pass):

- the top-level fields every run writes (:data:`TOP_FIELDS`), ``status`` one of ``ok`` /
  ``failures`` and saying whether a stage failed; ``n_samples``, ``seconds`` and ``files``
  when present;
- ``systems``: one object per system, at least one; a system's ``scored`` ≤ ``n`` ≤
  ``n_samples``; ``failures``: a count per stage;
- ``calls``: one object per role with the fields the calls table reads (:data:`CALL_FIELDS`);
- ``comparisons``, when present: the fields its table and forest plot read
  (:data:`COMPARISON_FIELDS`, :data:`COMPARISON_ROW_FIELDS`);
- at every level: numbers finite and at most :data:`~taiwa.harness.summary_fields.MAX_VALUE`
  in magnitude (taiwa writes ``null`` for a missing number); every named field holds its
  kind (:data:`~taiwa.harness.summary_fields.FIELD_KINDS`) and range
  (:data:`~taiwa.harness.summary_fields.RANGES`); the values of an object whose keys are all
  data (systems, acts, bins) hold one kind; every estimate (an object with ``value``
  and ``n``) is consistent (:func:`_check_estimate`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeGuard

from taiwa.core.errors import InputError
from taiwa.core.io import json_type
from taiwa.harness.summary_fields import FIELD_KINDS, MAX_VALUE, RANGES

Where = Sequence[str | int]
Fail = Callable[..., InputError]


def _is_count(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _is_number(v: Any) -> TypeGuard[float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "count": ("a count (a whole number >= 0)", _is_count),
    "number": ("a number", _is_number),
    "string": ("a string", lambda v: isinstance(v, str)),
    "object": ("an object", lambda v: isinstance(v, dict)),
    "list": ("an array", lambda v: isinstance(v, list)),
    "bool": ("true or false", lambda v: isinstance(v, bool)),
}
"""The kinds of value a field may hold; a kind ending in ``?`` also allows null."""


def kind_text(spec: str) -> str:
    """``"number?|object"`` as words: ``a number, null or an object``."""
    words = [KINDS[k.rstrip("?")][0] for k in spec.split("|")]
    if "?" in spec:
        words.append("null")
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def kind_ok(spec: str, value: Any) -> bool:
    """Whether ``value`` is of one of the kinds of ``spec`` (``"count"``, ``"number?|list"``)."""
    if value is None:
        return "?" in spec
    return any(KINDS[k.rstrip("?")][1](value) for k in spec.split("|"))


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

STATUSES = ("ok", "failures")

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
"""The fields of each ``calls`` entry the calls table reads (others, e.g. tokens, may follow,
typed by their names)."""

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

ROUNDING = 1e-6
"""Relative slack of the estimate checks (a bound and a value rounded apart)."""


def check_summary(path: Path, obj: dict[str, Any], text: str) -> None:
    """Validate a run's summary (see the module's docstring); raises :class:`InputError`
    naming ``path``, the line and the field."""

    def fail(where: Where, expected: str, value: Any, missing: bool = False) -> InputError:
        name = ".".join(_cut(str(p)) for p in where)
        got = None if missing else shown(value)
        return InputError(str(path), line_of(text, where), name, expected, got)

    systems = set(obj["systems"]) if isinstance(obj.get("systems"), dict) else set()
    _check_every_level(obj, fail, systems)
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
        _check_system_counts(obj, system, block, fail)
    for stage, count in obj["failures"].items():
        _check_kind(count, ["failures", stage], "count", fail)
    if obj["status"] not in STATUSES:
        raise fail(["status"], " or ".join(repr(s) for s in STATUSES), obj["status"])
    failed = any(obj["failures"].values())
    if (obj["status"] == "failures") != failed:
        said = f"{'failures' if failed else 'ok'!r} (the failure counts say so)"
        raise fail(["status"], said, obj["status"])
    for k, call in enumerate(obj["calls"]):
        _check_kind(call, ["calls", k], "object", fail)
        _check_fields(call, ["calls", k], CALL_FIELDS, fail)
    for k, note in enumerate(obj["notes"]):
        _check_kind(note, ["notes", k], "string", fail)
    if isinstance(obj.get("seconds"), dict):
        for stage, seconds in obj["seconds"].items():
            _check_kind(seconds, ["seconds", stage], "number", fail)
            _check_range(seconds, ["seconds", stage], (0.0, MAX_VALUE), fail)
    for k, name in enumerate(obj.get("files") or []):
        _check_kind(name, ["files", k], "string", fail)
    if "comparisons" in obj:
        _check_comparisons(obj["comparisons"], fail)


def _check_system_counts(
    obj: dict[str, Any], system: str, block: dict[str, Any], fail: Fail
) -> None:
    """A system's head (written by the runner): ``scored`` ≤ ``n`` ≤ ``n_samples``."""
    n, scored, total = block.get("n"), block.get("scored"), obj.get("n_samples")
    if _is_count(n) and _is_count(total) and n > total:
        raise fail(["systems", system, "n"], f"at most n_samples ({total})", n)
    if _is_count(n) and _is_count(scored) and scored > n:
        raise fail(["systems", system, "scored"], f"at most the system's n ({n})", scored)
    if isinstance(block.get("failures"), dict):
        for stage, count in block["failures"].items():
            _check_kind(count, ["systems", system, "failures", stage], "count", fail)


def _check_fields(
    obj: dict[str, Any], where: list[str | int], fields: dict[str, str], fail: Fail
) -> None:
    for key, kind in fields.items():
        if key not in obj:
            raise fail([*where, key], "this field to be present", None, missing=True)
        _check_kind(obj[key], [*where, key], kind, fail)


def _check_comparisons(block: Any, fail: Fail) -> None:
    """The ``comparisons`` block, when a run has one (two or more systems)."""
    _check_kind(block, ["comparisons"], "object", fail)
    _check_fields(block, ["comparisons"], COMPARISON_FIELDS, fail)
    for k, row in enumerate(block["rows"]):
        where: list[str | int] = ["comparisons", "rows", k]
        _check_kind(row, where, "object", fail)
        _check_fields(row, where, COMPARISON_ROW_FIELDS, fail)
        if "value" not in row["difference"] or "n" not in row["difference"]:
            raise fail([*where, "difference"], "an estimate (value, n, ci_low, ci_high)", None)


def _check_every_level(obj: dict[str, Any], fail: Fail, systems: set[str]) -> None:
    """Numbers, named fields, estimates and the kinds of the values of data maps (keyed by
    the run's ``systems``) at every level."""
    stack: list[tuple[list[str | int], Any]] = [([], obj)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, float | int) and not isinstance(value, bool):
            _check_number(value, where, fail)
        elif isinstance(value, dict):
            for k, v in value.items():
                spec = FIELD_KINDS.get(k)
                if spec is not None:
                    _check_kind(v, [*where, k], spec, fail)
                    if k in RANGES and _is_number(v):
                        _check_range(v, [*where, k], RANGES[k], fail)
            _check_siblings(value, where, fail, systems)
            if "value" in value and "n" in value:
                _check_estimate(value, where, fail)
            stack += [([*where, k], v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [([*where, k], v) for k, v in enumerate(value)]


def _check_number(value: float, where: Where, fail: Fail) -> None:
    if not math.isfinite(value):
        raise fail(where, "a finite number or null", value)
    if abs(value) > MAX_VALUE:
        raise fail(where, f"a number of magnitude at most {MAX_VALUE:.0e}", value)


def _class(v: Any) -> str:
    return "number" if _is_number(v) else json_type(v)


def _data_key(key: str, systems: set[str]) -> bool:
    """A key that is data, not a field's name: a system of the run, a pair of them (``A vs
    B``), a number (the bins of a histogram)."""
    return key in systems or key.isdigit() or all(p in systems for p in key.split(" vs "))


def _check_siblings(
    obj: dict[str, Any], where: list[str | int], fail: Fail, systems: set[str]
) -> None:
    """The values of a data map (every key a system, a pair of systems or a number) hold one
    kind: a string among numbers is a damaged file. Any other object is a record whose fields
    a later taiwa may add with any kind."""
    if len(obj) < 2 or not all(_data_key(k, systems) for k in obj):
        return
    classes: dict[str, list[str]] = {}
    for k, v in obj.items():
        if v is not None:
            classes.setdefault(_class(v), []).append(k)
    if len(classes) > 1:
        most = max(classes, key=lambda c: len(classes[c]))
        odd = next(c for c in classes if c != most)
        key = classes[odd][0]
        raise fail([*where, key], f"{most} like the other values beside it", obj[key])


def _check_kind(value: Any, where: Where, spec: str, fail: Fail) -> None:
    if not kind_ok(spec, value):
        raise fail(where, kind_text(spec), value)


def _check_range(value: float, where: Where, bounds: tuple[float, float], fail: Fail) -> None:
    low, high = bounds
    if not low - ROUNDING <= value <= high + ROUNDING:
        raise fail(where, f"a number from {low:g} to {high:g}", value)


def _check_estimate(value: dict[str, Any], where: list[str | int], fail: Fail) -> None:
    """An estimate: ``n`` a count, ``value`` / ``ci_low`` / ``ci_high`` numbers or null, a
    ``value`` that is null only when there is no interval either and is a number only when
    ``n`` ≥ 1, both bounds or none, ``ci_low`` ≤ ``ci_high`` and the value no further outside
    its interval than the interval is wide (a percentile interval of a plug-in statistic may
    lie beside its point: :mod:`taiwa.metrics.da_bootstrap`), within rounding."""
    _check_kind(value["n"], [*where, "n"], "count", fail)
    for k in ("value", "ci_low", "ci_high"):
        v = value.get(k)
        if k == "value" or not isinstance(v, list):  # some intervals are per-position lists
            _check_kind(v, [*where, k], "number?", fail)
    point = value["value"]
    bounds = [value.get(k) for k in ("ci_low", "ci_high")]
    if point is None and any(_is_number(b) for b in bounds):
        raise fail([*where, "value"], "a number (the interval has bounds)", None)
    if point is not None and value["n"] == 0:
        raise fail([*where, "n"], "at least 1 (there is a value)", 0)
    if "ci_low" in value and "ci_high" in value and (bounds[0] is None) != (bounds[1] is None):
        k = "ci_low" if bounds[0] is None else "ci_high"
        raise fail([*where, k], "a number (the other bound is one)", None)
    low, high = bounds
    if _is_number(low) and _is_number(high) and _is_number(point):
        _check_interval(low, high, point, where, fail)


def _check_interval(
    low: float, high: float, point: float, where: list[str | int], fail: Fail
) -> None:
    slack = ROUNDING * max(1.0, abs(low), abs(high), abs(point))
    if low > high + slack:
        raise fail([*where, "ci_low"], f"at most ci_high ({_number(high)})", low)
    width = high - low
    if not low - width - slack <= point <= high + width + slack:
        expected = f"a value near its interval [{_number(low)}, {_number(high)}]"
        raise fail([*where, "value"], expected, point)


def _number(x: float) -> str:
    return f"{x:.6g}"


def _cut(key: str, limit: int = 60) -> str:
    """A key of a field's path as an error names it (a 100,000-character key cut)."""
    return key if len(key) <= limit else key[: limit - 1] + "…"


def shown(value: Any) -> str:
    """A value of a run's file as an error shows it (non-finite numbers by name, long numbers
    and objects in short)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if _is_number(value) and abs(value) > MAX_VALUE:
        return f"{value:.3g}"
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
