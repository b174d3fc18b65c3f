"""Flags on a number corrected through an instrument's validation (a tagger's confusion on
gold labels): where the correction's simulation says it is unreliable, where the run's own
labels say the validation does not describe this data (the instrument errs far more, or far
less, there), and where the validation's text is of
another style than the text scored (issue 38; DESIGN.md "Flags are data").

Like :mod:`taiwa.metrics.flags`, whose :class:`~taiwa.metrics.flags.Flag` these are, this
module knows no method: the method names the number (``on``) and the instrument.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from taiwa.metrics.flags import Flag, plug_in_bias

CORRECTION_N = "correction-small-n"
OFF_VALIDATION = "off-validation"
VALIDATION_STYLE = "validation-style"
IMPRECISE = "correction-imprecise"

WEAK_ACCURACY = 0.75
"""Below this validation accuracy the correction's simulation (``docs/correction.md``) needs
more: :data:`WEAK_MIN_N` replies and a validation set of :data:`WEAK_MIN_VALIDATION` gold
items keep the bias within 0.05 bits (accuracy 0.6: −0.05 to −0.07 bits with 226 or 400
validation items; −0.03 to 0.00 with 500 to 721 items from n = 300 on). At accuracy 0.8 a
validation of 226 items suffices from n = 100 (|bias| ≤ 0.02)."""
WEAK_MIN_N = 300
WEAK_MIN_VALIDATION = 500

PRECISION_BITS = 0.3
"""A corrected value whose 95 % CI reaches further than this from it on either side cannot be
placed within that many bits (issue 38's check on real text): flagged, so that it is read as
the interval it is, not as its point."""

OFF_VALIDATION_GAP = 0.10
"""How far from its validation accuracy an instrument's agreement with the run's own labels
must be (with the accuracy outside the agreement's 95 % CI too) to be flagged: sampling alone
puts 240 labelled replies within about ±0.06 of the accuracy."""


def correction_floor(
    n: int,
    floor: int,
    on: str,
    accuracy: float | None = None,
    validation_n: int | None = None,
) -> Flag | None:
    """A corrected value from fewer than ``floor`` items, or through a weak validation
    (accuracy below :data:`WEAK_ACCURACY`) with fewer than :data:`WEAK_MIN_N` items or
    :data:`WEAK_MIN_VALIDATION` gold items: the simulation that checks the correction's bias
    and coverage (``docs/correction.md``) does not hold there."""
    rough = "read it as a rough value"
    if n < floor:
        return Flag(
            CORRECTION_N,
            on,
            f"n={n} < {floor}: below the n where the correction's bias stays within 0.05 bits "
            f"and its 95 % CI covers the truth (docs/correction.md); {rough}",
        )
    if accuracy is None or accuracy >= WEAK_ACCURACY:
        return None
    short = [f"n={n} < {WEAK_MIN_N}"] if n < WEAK_MIN_N else []
    if validation_n is not None and validation_n < WEAK_MIN_VALIDATION:
        short.append(f"a validation of {validation_n} < {WEAK_MIN_VALIDATION} items")
    if not short:
        return None
    return Flag(
        CORRECTION_N,
        on,
        f"validation accuracy {accuracy:.0%} < {WEAK_ACCURACY:.0%} with {' and '.join(short)}: "
        f"the correction's simulated bias exceeds 0.05 bits there (docs/correction.md); {rough}",
    )


def imprecise(estimate: Mapping[str, Any], on: str, bits: float = PRECISION_BITS) -> Flag | None:
    """A corrected value whose 95 % CI reaches more than ``bits`` from it on a side: the
    correction adds the validation's noise to the replies', and at this n and validation size
    the value cannot be placed within ``bits`` (on real chat, halves of 360 replies corrected
    through the other half land up to 0.34 bits off, inside their intervals)."""
    value, low, high = estimate.get("value"), estimate.get("ci_low"), estimate.get("ci_high")
    if value is None or low is None or high is None:
        return None
    reach = max(value - low, high - value)
    if reach <= bits:
        return None
    return Flag(
        IMPRECISE,
        on,
        f"its 95 % CI [{low:.2f}, {high:.2f}] reaches {reach:.2f} bits from the value: the "
        f"correction cannot place it within {bits} bits here; read the interval, not the point",
    )


def off_validation(
    agreement: Mapping[str, Any], accuracy: float | None, on: str, instrument: str
) -> Flag | None:
    """The instrument agrees with the run's own labels (``agreement``: an estimate of the
    share of labelled items it gets right) far from its validation accuracy: at least
    :data:`OFF_VALIDATION_GAP` away, with the accuracy outside the agreement's 95 % CI. The
    confusion measured on the validation set then does not describe this data, and neither
    does a number corrected through it: far below, the correction misses errors it makes here;
    far above, it takes out errors it does not make here."""
    value, low, high = agreement.get("value"), agreement.get("ci_low"), agreement.get("ci_high")
    if accuracy is None or value is None or low is None or high is None:
        return None
    if abs(accuracy - value) < OFF_VALIDATION_GAP or low <= accuracy <= high:
        return None
    side = "below" if value < accuracy else "above"
    return Flag(
        OFF_VALIDATION,
        on,
        f"{instrument} agrees with this run's labels {value:.0%} of the time "
        f"[{low:.0%}, {high:.0%}] (n={agreement['n']}), far {side} its validation accuracy "
        f"{accuracy:.0%}: the confusion the value is corrected through does not describe "
        "these texts",
    )


def validation_style(on: str, validated: str, scored: str) -> Flag:
    """The value is corrected through a validation on ``validated`` text while the text
    scored is ``scored``: the instrument's errors differ between styles (a tagger checked on
    human chat confuses other acts in an assistant's replies)."""
    return Flag(
        VALIDATION_STYLE,
        on,
        f"corrected through a validation on {validated}, but these are {scored}: the "
        "instrument's errors there may differ",
    )


def corrected_bias(value: float, bias: float, n: int, on: str, floor: int) -> Flag | None:
    """Raw DAMI's rule (:func:`taiwa.metrics.flags.plug_in_bias`: the bias is a tenth of the
    value or more, or n is below ``floor``) on a bias-corrected value, ``bias`` being what the
    correction took out (the plug-in minus the value): a correction that large leaves part of
    the bias, and the value leans on the bootstrap's model of it."""
    flag = plug_in_bias(value, bias, n, on, floor)
    if flag is None:
        return None
    why = [f"n={n} < {floor}"] if n < floor else []
    share = abs(bias) / abs(value) if value else math.inf
    if abs(bias) >= 5e-4:
        of = f"{share:.0%} of the value" if value else "on a value of 0"
        why.append(f"the bootstrap took out a bias of {bias:+.3f}, {of}")
    return Flag(flag.code, on, f"{'; '.join(why)}: the correction leaves part of a bias this large")
