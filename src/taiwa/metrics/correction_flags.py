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

OFF_VALIDATION_GAP = 0.10
"""How far from its validation accuracy an instrument's agreement with the run's own labels
must be (with the accuracy outside the agreement's 95 % CI too) to be flagged: sampling alone
puts 240 labelled replies within about ±0.06 of the accuracy."""


def correction_floor(n: int, floor: int, on: str) -> Flag | None:
    """A corrected value from fewer than ``floor`` items: the simulation that checks the
    correction's bias and coverage (``docs/correction.md``) does not hold there."""
    if n >= floor:
        return None
    return Flag(
        CORRECTION_N,
        on,
        f"n={n} < {floor}: below the n where the correction's bias stays within 0.05 bits and "
        "its 95 % CI covers the truth (docs/correction.md); read it as a rough value",
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
