"""Each system's ``corrected`` block in the da-distribution summary and the flags on it
(issues 26, 38): DAE, DAMI and act shares through the tagger's confusion on the validation of
the system's style (:mod:`.correction`), estimated by :mod:`taiwa.metrics.corrected_estimates`.

A corrected value is flagged (:mod:`taiwa.metrics.correction_flags`) where it cannot be read
as the simulation reads it: from fewer replies than ``CORRECTION_MIN_N``
(:mod:`taiwa.metrics.corrected_estimates`), or through a validation of low accuracy with few
replies or few gold items; with a 95 % CI reaching more than 0.3 bits from the value; through
a validation of another style of text than the replies; where the tagger agrees with the run's
own labels far less (or far more) than its validation accuracy; and corrected DAMI by the
plug-in bias rule raw DAMI has (its bias: the plug-in minus the bias-corrected value). The raw
comparisons the corrected DAE contradicts, or whose corrected DAE is flagged, carry a flag too
(:func:`ordering_flags`).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from taiwa.metrics import flags

if TYPE_CHECKING:
    from taiwa.benchmarks.da_distribution.correction import Validation, Validations
    from taiwa.benchmarks.da_distribution.summary import Collected

CORRECTED = ("corrected.dae", "corrected.dami")
"""The keys (in a system's block) of the corrected values flags are raised on."""


def corrected_block(
    acts: Sequence[str],
    previous: Sequence[str | None],
    labels: Sequence[str],
    validation: Validation,
    seed: int,
) -> dict[str, Any]:
    """Corrected ``dae``, ``dami`` (each with its ``plug_in``: the value before the bias
    correction) and act ``shares`` (value, CI, n) of one system's acts, and the
    ``validation`` they went through."""
    from taiwa.metrics.corrected_estimates import adjusted_estimates

    code = {a: j for j, a in enumerate(labels)}
    codes = [code[a] for a in acts if a in code]
    pairs = [
        (code[p], code[a])
        for a, p in zip(acts, previous, strict=True)
        if a in code and p is not None and p in code
    ]
    est = adjusted_estimates(codes, validation.confusion, pairs or None, seed=seed)
    block: dict[str, Any] = {
        "dae": {**est.entropy.as_dict(), "plug_in": est.entropy_plug_in},
        "shares": {a: est.shares[j].as_dict() for j, a in enumerate(labels)},
        "validation": validation.name,
    }
    if est.mutual_information is not None:
        block["dami"] = {
            **est.mutual_information.as_dict(),
            "plug_in": est.mutual_information_plug_in,
        }
    return block


def corrected_flags(
    block: Mapping[str, Any], validation: Validation, mismatch: str | None
) -> list[flags.Flag]:
    """The flags of one system's corrected values (see the module docstring)."""
    from taiwa.benchmarks.da_distribution.correction import STYLE_TEXT
    from taiwa.metrics.corrected_estimates import CORRECTION_MIN_N
    from taiwa.metrics.correction_flags import (
        corrected_bias,
        correction_floor,
        imprecise,
        validation_style,
    )
    from taiwa.metrics.da_bootstrap import PLUG_IN_FLOORS

    out: list[flags.Flag | None] = []
    for key in ("dae", "dami"):
        d = block.get(key)
        if d is None:
            continue
        on = f"corrected.{key}"
        size = int(validation.confusion.sum())
        rough = correction_floor(int(d["n"]), CORRECTION_MIN_N, on, validation.accuracy, size)
        out += [rough, imprecise(d, on) if rough is None else None]
        if mismatch is not None and validation.style is not None:
            out.append(validation_style(on, STYLE_TEXT[validation.style], mismatch))
    dami = block.get("dami")
    if dami is not None and dami.get("plug_in") is not None:
        bias = float(dami["plug_in"]) - float(dami["value"])
        n, floor = int(dami["n"]), PLUG_IN_FLOORS["dami"]
        flag = corrected_bias(float(dami["value"]), bias, n, "corrected.dami", floor)
        out.append(flag)
    return [f for f in out if f is not None]


def add_corrected(
    systems: dict[str, dict[str, Any]],
    across: dict[str, Any],
    c: Collected,
    labels: Sequence[str],
    validations: Validations | None,
    seed: int,
    labelled: Sequence[str] = (),
) -> list[str]:
    """Put each system's ``corrected`` block (with its flags) in the summary, and the
    validation sets used: ``across.tagger_validation`` (the human replies', or the one set of
    every system) and ``across.tagger_validation_systems`` (the systems', when it is another).
    Not for the ``labelled`` systems, whose acts are gold labels, not the tagger's; returns the
    notes."""
    if validations is None:
        return []
    across["tagger_validation"] = validations.human.block()
    if validations.systems is not validations.human:
        across["tagger_validation_systems"] = validations.systems.block()
    corrected = [s for s in c.systems if c.acts[s] and s not in labelled]
    for s in corrected:
        validation = validations.of(s)
        block = corrected_block(c.acts[s], c.previous[s], labels, validation, seed)
        systems[s]["corrected"] = block
        flags.add(systems[s], *corrected_flags(block, validation, validations.mismatch(s)))
    used = "; ".join(
        f"{v.name} for {_whom(validations, v, corrected)}"
        for v in validations.used()
        if _whom(validations, v, corrected)
    )
    notes = [
        f"corrected DAE/DAMI: act distribution estimated through the tagger's confusion on {used}; "
        "bias-corrected by a parametric bootstrap that redraws the validation set with the "
        "replies (docs/correction.md)"
    ]
    if c.prev_from.get("tagger"):
        notes.append(
            f"corrected DAMI takes the previous acts as given: {c.prev_from['tagger']} of them "
            "came from the tagger, uncorrected"
        )
    return notes


def _whom(validations: Validations, v: Validation, systems: Sequence[str]) -> str:
    return ", ".join(s for s in systems if validations.of(s) is v)


def off_validation_flags(
    systems: Mapping[str, MutableMapping[str, Any]],
    agreement: Mapping[str, Any],
    validations: Validations | None,
) -> None:
    """Flag every corrected value when the tagger agrees with the test set's labels of the
    human replies far less (or far more) than its validation on their style says
    (:func:`taiwa.metrics.correction_flags.off_validation`)."""
    from taiwa.metrics.correction_flags import off_validation

    if validations is None:
        return
    for block in systems.values():
        if "corrected" not in block:
            continue
        for on in CORRECTED:
            if on.split(".")[1] in block["corrected"]:
                flag = off_validation(agreement, validations.human.accuracy, on, "the tagger")
                flags.add(block, flag)


def _held(block: Mapping[str, Any]) -> bool:
    """A flag on the corrected DAE that says the correction may be wrong in kind (small n, a
    validation of other text or far from this data), not one that says it is imprecise."""
    return any(
        flags.qualifies(f, "corrected.dae") and f.get("code") not in flags.ESTIMATOR_FLAGS
        for f in block.get("flags", ())
    )


def ordering_flag(
    systems: Mapping[str, Mapping[str, Any]], a: str, b: str, on: str, named: bool = False
) -> flags.Flag | None:
    """A flag for a comparison of ``a`` and ``b`` by raw DAE (the consistency of their
    ordering, their paired difference) when the corrected DAE is shown for both and orders them
    the other way, or is flagged for either in kind (:func:`_held`; a wide interval alone is
    not): the raw comparison then measures the tagger's errors as much as the systems.
    ``named``: the text starts with the pair (several pairs share one ``on``)."""
    ca, cb = (systems[x].get("corrected", {}).get("dae") for x in (a, b))
    if not ca or not cb:
        return None
    why = []
    raw_a, raw_b = (systems[x]["dae"].get("value") for x in (a, b))
    if (
        raw_a is not None
        and raw_b is not None
        and (raw_a - raw_b) * (ca["value"] - cb["value"]) < 0
    ):
        why.append(
            f"raw DAE orders {a} and {b} {raw_a:.3f} vs {raw_b:.3f}, the corrected DAE the other "
            f"way ({ca['value']:.3f} vs {cb['value']:.3f})"
        )
    held = [x for x in (a, b) if _held(systems[x])]
    if held:
        why.append(f"the corrected DAE of {' and '.join(held)} is flagged")
    if not why:
        return None
    pair = f"{a} vs {b}: " if named else ""
    return flags.Flag(
        "corrected-ordering",
        on,
        f"{pair}{'; '.join(why)}: this compares the tagger's raw acts, read it with the "
        "corrected DAE",
        systems=(a, b),
    )


def ordering_flags(
    systems: Mapping[str, Mapping[str, Any]],
    across: MutableMapping[str, Any],
    order: Sequence[str],
) -> None:
    """:func:`ordering_flag` on the consistency of each adjacent pair of ``order`` (``on``:
    ``consistency.A vs B``) and on the paired DAE comparisons of every pair
    (``comparisons.dae``)."""
    from itertools import combinations, pairwise

    if "consistency" in across:
        for a, b in pairwise(order):
            flags.add(across, ordering_flag(systems, a, b, f"consistency.{a} vs {b}"))
    for a, b in combinations(list(systems), 2):
        flags.add(across, ordering_flag(systems, a, b, "comparisons.dae", named=True))
