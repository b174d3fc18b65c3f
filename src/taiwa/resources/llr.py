"""The log-likelihood ratio of two words, seed 003 §2.2 eq. (1) (Dunning's G²).

For words ``v`` and ``w`` with co-occurrence count ``g = g(v, w)``, occurrence counts
``h_v = h(v)`` and ``h_w = h(w)`` and ``F`` observations (sentences), the 2×2 table is::

    f11 = g              f12 = h_v - g
    f21 = h_w - g        f22 = F - f11 - f12 - f21

and ``λ = 2 Σ_ij f_ij {log(f_ij / F) - log(f_i. f_.j / F²)}`` with natural logarithms; a zero
cell contributes 0 (the limit of ``x log x``). Each term is evaluated as
``f_ij · log(f_ij · F / (f_i. · f_.j))`` in float64, the same expression both mining engines
use in SQL (:mod:`taiwa.resources.cooccurrence.sql`), so the three agree to a few ulps.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["llr", "llr_array"]

ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]


def _term(f: float, row: float, col: float, n: float) -> float:
    return 0.0 if f == 0 else f * math.log(f * n / (row * col))


def llr(g: float, h_v: float, h_w: float, F: float) -> float:
    """λ of seed 003 eq. (1) for co-occurrence ``g``, word counts ``h_v``, ``h_w`` and ``F``.

    Raises ``ValueError`` unless the counts are finite and non-negative,
    ``g <= min(h_v, h_w)`` and ``h_v + h_w - g <= F`` (otherwise a cell would be negative).
    """
    for name, value in (("g", g), ("h_v", h_v), ("h_w", h_w), ("F", F)):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite non-negative count, got {value!r}")
    if g > min(h_v, h_w):
        raise ValueError(f"g must be <= min(h_v, h_w), got g={g}, h_v={h_v}, h_w={h_w}")
    if h_v + h_w - g > F:
        raise ValueError(f"h_v + h_w - g must be <= F, got {h_v} + {h_w} - {g} > {F}")
    g, h_v, h_w, n = float(g), float(h_v), float(h_w), float(F)
    f11, f12, f21 = g, h_v - g, h_w - g
    f22 = n - h_v - h_w + g
    total = (
        _term(f11, h_v, h_w, n)
        + _term(f12, h_v, n - h_w, n)
        + _term(f21, n - h_v, h_w, n)
        + _term(f22, n - h_v, n - h_w, n)
    )
    return max(0.0, 2.0 * total)


def _terms(f: FloatArray, row: FloatArray, col: FloatArray, n: FloatArray) -> FloatArray:
    out = np.zeros_like(f)
    nz = f > 0
    out[nz] = f[nz] * np.log(f[nz] * n[nz] / (row[nz] * col[nz]))
    return out


def llr_array(g: ArrayLike, h_v: ArrayLike, h_w: ArrayLike, F: ArrayLike) -> FloatArray:
    """:func:`llr` element-wise over broadcast arrays (float64); same validation, same values."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (g, h_v, h_w, F)))
    gg, hv, hw, n = (np.array(a, dtype=np.float64) for a in arrays)
    for name, value in (("g", gg), ("h_v", hv), ("h_w", hw), ("F", n)):
        if not np.all(np.isfinite(value)) or np.any(value < 0):
            raise ValueError(f"{name} must hold finite non-negative counts")
    if np.any(gg > np.minimum(hv, hw)):
        raise ValueError("g must be <= min(h_v, h_w) everywhere")
    if np.any(hv + hw - gg > n):
        raise ValueError("h_v + h_w - g must be <= F everywhere")
    total = (
        _terms(gg, hv, hw, n)
        + _terms(hv - gg, hv, n - hw, n)
        + _terms(hw - gg, n - hv, hw, n)
        + _terms(n - hv - hw + gg, n - hv, n - hw, n)
    )
    result: FloatArray = np.maximum(0.0, 2.0 * total)
    return result
