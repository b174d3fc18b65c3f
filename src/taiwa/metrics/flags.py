"""Flags: a number that cannot carry its usual meaning, said in one line beside it.

DESIGN.md ("Flags are data"): a degenerate output (one option for every multiple-choice answer,
one rating for every judgment, no pair judged, n below a metric's floor, a plug-in estimate
with a noticeable bias) becomes a :class:`Flag` stored in ``summary.json`` in the block of the
number it qualifies: ``block["flags"]`` is a list of ``{"code", "on", "text"}``, ``on`` the key
of that number in the same block (a system's block or ``across``); ``covers`` (when present)
the keys of the other numbers derived from the same outputs (a constant answerer's accuracy
flag covers its splits and its stability curve), and for a flag of ``across``, ``systems`` the
systems whose numbers it qualifies. A flag travels to every number it covers and to the
paired comparisons made on them (:func:`flags_on`), its text printed once. Methods raise flags; this
module, which knows no method, holds the checks (small pure functions) and how flags print:
:func:`mark` adds :data:`MARK` to a flagged cell, :func:`flag_lines` gives the lines printed
after the tables (``taiwa run``, :func:`taiwa.display.tables.print_result`) and listed by the HTML
report (:mod:`taiwa.report.page`), the same text in both.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

MARK = "⚑"
"""Appended to a table cell whose number carries a flag; the flag's line follows the table."""

ALPHA = 0.01
"""The significance level of the distribution tests below."""

MCQ_TEST_FLOOR = 20
"""Parsed answers needed before the chi-square test runs (below it only the exact binomial
test of the most chosen option does)."""

RATING_SHARE = 0.9
"""A judge whose most given rating takes this share of its ratings or more is flagged."""

IDENTICAL_SHARE = 0.5
"""A system whose most frequent reply is this share of its replies or more is flagged."""

MIN_N = 5
"""Below this n no share-based check runs (one or two answers alike say nothing)."""

CI_MIN_N = 10
"""An estimate over fewer items than this is flagged wherever it is shown (:func:`small_n_flags`,
and :func:`taiwa.display.tables.ci_cell` marks its cell): from a handful of items a percentile
bootstrap interval is too narrow (it covers the true value well under 95 % of the time), and
one item more or less moves the estimate by a tenth of its range or more."""

BIAS_SHARE = 0.1
"""A plug-in estimate whose |jackknife bias| is this share of |value| or more is flagged."""


@dataclass(frozen=True)
class Flag:
    """``code`` names the check, ``on`` the key of the number it qualifies (in the same
    block), ``text`` says in one line what it means for that number."""

    code: str
    on: str
    text: str
    covers: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "on": self.on, "text": self.text}
        if self.covers:
            out["covers"] = list(self.covers)
        if self.systems:
            out["systems"] = list(self.systems)
        return out


def add(block: MutableMapping[str, Any], *flags: Flag | None) -> None:
    """Store ``flags`` (``None`` skipped) in ``block["flags"]``."""
    for f in flags:
        if f is not None:
            block.setdefault("flags", []).append(f.as_dict())


def _within(key: str, keys: Iterable[str]) -> bool:
    """``key`` is one of ``keys`` or lies under one (``stability.stable_from`` under
    ``stability``)."""
    return any(key == k or key.startswith(k + ".") for k in keys)


def qualifies(flag: Mapping[str, Any], key: str) -> bool:
    """Whether ``flag`` (as stored) is on ``key`` or covers it."""
    return flag.get("on") == key or _within(key, flag.get("covers", ()))


def flagged(block: Mapping[str, Any] | None, key: str) -> bool:
    """Whether a flag of ``block`` is on ``key`` or covers it."""
    return bool(block) and any(qualifies(f, key) for f in block.get("flags", ()))  # type: ignore[union-attr]


def flags_on(summary: Mapping[str, Any], system: str, keys: Sequence[str]) -> list[dict[str, str]]:
    """The flags (``code``, ``on``, ``text``) that qualify any of ``keys`` of ``system``'s
    numbers: its block's flags on or covering them, and the flags of ``across`` naming the
    system and covering them. Flags about an estimator rather than the outputs
    (:data:`ESTIMATOR_FLAGS`: small n, plug-in bias) stay with their own estimate: a
    comparison has its own n and its own estimator."""
    own = (summary.get("systems") or {}).get(system) or {}
    out: list[dict[str, str]] = []
    for f in own.get("flags", ()):
        if f.get("code") not in ESTIMATOR_FLAGS and any(qualifies(f, k) for k in keys):
            out.append({"code": f["code"], "on": f["on"], "text": f["text"]})
    for f in (summary.get("across") or {}).get("flags", ()):
        if system in f.get("systems", ()) and any(_within(k, f.get("covers", ())) for k in keys):
            out.append({"code": f["code"], "on": f"across.{f['on']}", "text": f["text"]})
    return out


def mark(cell: str, block: Mapping[str, Any] | None, key: str) -> str:
    """``cell`` with :data:`MARK` after its first line when ``block`` flags ``key`` (once:
    a cell already marked, e.g. for its small n, is left as it is)."""
    if not flagged(block, key):
        return cell
    return marked(cell)


def marked(cell: str) -> str:
    """``cell`` with :data:`MARK` after its first line (unless it is there already)."""
    first, _, rest = cell.partition("\n")
    if first.endswith(MARK):
        return cell
    return f"{first} {MARK}" + (f"\n{rest}" if rest else "")


def flag_lines(summary: Mapping[str, Any]) -> list[str]:
    """Every flag of a summary as one line: ``⚑ WHERE KEY: TEXT`` (plain text, in the
    order of the systems, then ``across``); a block's small-n flags share one line after its
    other flags, naming the block's keys that hold them and the range of their n."""
    out: list[str] = []
    blocks = [*summary.get("systems", {}).items(), ("across", summary.get("across", {}))]
    for where, block in blocks:
        small: dict[str, None] = {}
        ns: list[int] = []
        for f in block.get("flags", ()) if isinstance(block, Mapping) else ():
            if f.get("code") == SMALL_N:
                small[str(f["on"]).split(".", 1)[0]] = None
                ns.append(int(str(f["text"]).split(",", 1)[0].removeprefix("n=")))
            else:
                covers, systems = f.get("covers", ()), f.get("systems", ())
                extent = f" (and {', '.join(covers)}" if covers else ""
                if covers and systems:
                    extent += f" of {', '.join(systems)}"
                extent += ")" if covers else ""
                out.append(f"{MARK} {where} · {f['on']}{extent}: {f['text']}")
        if small:
            span = f"{min(ns)}" if min(ns) == max(ns) else f"{min(ns)}–{max(ns)}"
            out.append(
                f"{MARK} {where} · {', '.join(small)}: n={span}, below {CI_MIN_N}: the "
                "estimates and their CIs are unstable"
            )
    return out


# ------------------------------------------------------------------------------------ checks


SMALL_N = "small-n"

ESTIMATOR_FLAGS = frozenset({SMALL_N, "plug-in-bias", "correction-imprecise"})
"""Flag codes about how a number was estimated, not about the outputs it rests on (a corrected
value's wide interval says nothing of the raw numbers compared beside it)."""


def small_n(n: int, floor: int, on: str) -> Flag | None:
    """``n`` below the ``floor`` a number needs to be read at all."""
    if n >= floor:
        return None
    return Flag(SMALL_N, on, f"n={n}, below {floor}: the estimate and its CI are unstable")


def is_estimate(d: Any) -> bool:
    """Whether ``d`` is an estimate as summaries store it: value, CI bounds and n."""
    return (
        isinstance(d, Mapping)
        and {"value", "ci_low", "ci_high", "n"} <= d.keys()
        and isinstance(d["n"], int)
    )


def too_few(d: Mapping[str, Any], floor: int = CI_MIN_N) -> bool:
    """Whether the estimate ``d`` has a value from fewer than ``floor`` items (but some)."""
    value = d.get("value")
    return value is not None and value == value and 0 < d["n"] < floor


def small_n_flags(block: Mapping[str, Any], floor: int = CI_MIN_N) -> list[Flag]:
    """A small-n flag for every estimate of ``block`` (nested mappings too, ``on`` the keys
    joined by dots) with a value from fewer than ``floor`` items, unless the block already
    flags it for that."""
    have = {(f.get("code"), f.get("on")) for f in block.get("flags", ())}
    out: list[Flag] = []

    def walk(d: Mapping[str, Any], path: str) -> None:
        for key, value in d.items():
            if key == "flags" or not isinstance(value, Mapping):
                continue
            on = f"{path}.{key}" if path else str(key)
            if not is_estimate(value):
                walk(value, on)
            elif too_few(value, floor) and (SMALL_N, on) not in have:
                flag = small_n(value["n"], floor, on)
                if flag is not None:
                    out.append(flag)

    walk(block, "")
    return out


def small_n_lines(block: Mapping[str, Any], where: str) -> list[str]:
    """The printed line (:func:`flag_lines`) of the small-n flags of ``block``, a summary or
    report not kept as a run's (``taiwa score``, ``taiwa validate``): none when no estimate
    rests on too few items."""
    small = [f.as_dict() for f in small_n_flags(block)]
    return flag_lines({"systems": {where: {"flags": small}}}) if small else []


def add_small_n(
    systems: Mapping[str, MutableMapping[str, Any]], across: MutableMapping[str, Any]
) -> None:
    """Flag every estimate of a summary that rests on too few items (:func:`small_n_flags`)."""
    for block in [*systems.values(), across]:
        add(block, *small_n_flags(block))


def no_pair_judged(n_judged: int, on: str, forfeits: int = 0) -> Flag | None:
    """A rate over pairs when no pair reached the judge."""
    if n_judged:
        return None
    why = f" ({forfeits} decided by forfeit)" if forfeits else ""
    return Flag("no-pair-judged", on, f"no pair judged{why}: there is no rate to report")


def nothing_counted(count: int, what: str, on: str) -> Flag | None:
    """A ratio over ``count`` things (n-grams, pairs) when there were none: its value is a
    convention (Distinct-n gives 0), not a measurement, and it has no interval."""
    if count:
        return None
    return Flag("nothing-counted", on, f"no {what}: the value is 0 by convention, not a measure")


def all_imputed(
    imputed: int, n: int, on: str, what: str, covers: Sequence[str] = ()
) -> Flag | None:
    """A mean over ``n`` values every one of which is ``what`` (a rule's stand-in, no
    measurement): it says how the rule scores, not how the system did; ``covers``: the numbers
    derived from the same values."""
    if not n or imputed < n:
        return None
    text = f"every value (n={n}) is {what}: a convention, not a measure"
    return Flag("all-imputed", on, text, tuple(covers))


def plug_in_bias(value: float, bias: float, n: int, on: str, floor: int) -> Flag | None:
    """A plug-in estimate (DAMI, Distinct) whose jackknife bias is a noticeable share of its
    value (|bias| ≥ :data:`BIAS_SHARE` · |value|, either sign) or whose n is below ``floor``."""
    if not (math.isfinite(value) and math.isfinite(bias)):
        return None
    if abs(bias) < 5e-4:  # prints as ±0.000: rounding noise, not a bias worth a word
        bias = 0.0
    share = abs(bias) / abs(value) if value else math.inf if bias else 0.0
    if share < BIAS_SHARE and n >= floor:
        return None
    why = [f"n={n} < {floor}"] if n < floor else []
    if share >= BIAS_SHARE:
        of = f"is {share:.0%} of the value" if value else "on a value of 0"
        why.append(f"jackknife bias {bias:+.3f} {of}")
    return Flag("plug-in-bias", on, f"{'; '.join(why)}: a plug-in estimate at this n is biased")


def plug_in_flags(row: Mapping[str, Any], floors: Mapping[str, int]) -> list[Flag]:
    """:func:`plug_in_bias` for each estimate ``row[key]`` (``{value, n, bias}``) of
    ``floors`` (key → its floor of n); estimates without a bias are skipped."""
    out = []
    for key, floor in floors.items():
        d = row.get(key)
        if not isinstance(d, Mapping) or d.get("value") is None or d.get("bias") is None:
            continue
        f = plug_in_bias(float(d["value"]), float(d["bias"]), int(d["n"]), key, floor)
        if f is not None:
            out.append(f)
    return out


def beyond_validation(
    lengths: Sequence[int], validated: Sequence[int], on: str, instrument: str
) -> Flag | None:
    """Half or more of :data:`MIN_N` texts or more are longer than the longest text
    ``instrument`` was validated on: its validation figures (and a correction built on them)
    say nothing of how it reads these (e.g. a tagger checked on chat utterances of up to 40
    characters, given an LLM's paragraphs)."""
    if len(lengths) < MIN_N or not validated:
        return None
    longest = max(validated)
    k = sum(x > longest for x in lengths)
    if k / len(lengths) < IDENTICAL_SHARE:
        return None
    return Flag(
        "beyond-validation",
        on,
        f"{k} of {len(lengths)} replies are longer than the longest utterance {instrument} was "
        f"validated on ({longest} characters): its validation does not describe these tags",
    )


def identical_replies(
    texts: Iterable[str], on: str = "replies"
) -> tuple[dict[str, Any], Flag | None]:
    """The share of replies equal to the most frequent one (``{"share", "n", "top"}``) and a
    flag when it is :data:`IDENTICAL_SHARE` or more of :data:`MIN_N` replies or more."""
    counts = Counter(texts)
    n = sum(counts.values())
    if not n:
        return {"share": float("nan"), "n": 0, "top": None}, None
    top, k = counts.most_common(1)[0]
    share = k / n
    stats = {"share": share, "n": n, "top": top[:80]}
    if n < MIN_N or share < IDENTICAL_SHARE:
        return stats, None
    return stats, Flag(
        "identical-replies",
        on,
        f"{k} of {n} replies are the same text: the scores rate one reply, not the system",
    )


def rating_histogram_flag(bins: Mapping[str, int], on: str, who: str = "the judge") -> Flag | None:
    """A rating histogram where one rating takes :data:`RATING_SHARE` or more of
    :data:`MIN_N` ratings or more."""
    n = sum(bins.values())
    if n < MIN_N:
        return None
    rating, k = max(bins.items(), key=lambda kv: kv[1])
    if k / n < RATING_SHARE:
        return None
    return Flag(
        "constant-rating",
        on,
        f"{who} gave rating {rating} to {k} of {n} replies: the mean rating does not separate "
        "replies",
    )
