"""Weighted LCS and the weighted dialogue-act edit distance (WED), seed 000 §4.1.

Both compare a predicted DA sequence ``P`` (the system's reply) with the gold sequence ``R``;
importances are renormalised to sum 1 per sequence first (seed 000 eq. 3, see
:mod:`taiwa.metrics.da_steps`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from taiwa.metrics.da_steps import SequenceLike, encode_batch, normalised_steps

EPS = 1e-12
"""Costs closer than this are ties, broken in the order substitution/match, deletion, insertion."""

Op = Literal["match", "substitution", "deletion", "insertion"]


@dataclass(frozen=True)
class AlignmentOp:
    """One edit turning the prediction into the gold sequence (seed 000 eqs. 4–6)."""

    op: Op
    pred_index: int | None
    gold_index: int | None
    pred_act: str | None
    gold_act: str | None
    cost: float


@dataclass(frozen=True)
class WEDResult:
    """WED with its breakdown into deletion, insertion and substitution costs (seed 000 eq. 7).

    ``deletion`` is redundancy in the reply, ``insertion`` is missing content, ``substitution``
    is acts of similar weight that differ (seed 000 §4.3). ``alignment`` lists the edits in order.
    """

    total: float
    deletion: float
    insertion: float
    substitution: float
    alignment: tuple[AlignmentOp, ...]


def wlcs(pred: SequenceLike, gold: SequenceLike, *, renormalise: bool = True) -> float:
    """Weighted LCS, seed 000 §4.1.1.

    Among the subsequences common to ``pred`` and ``gold``, the largest sum of the *predicted*
    importances. With ``renormalise=False`` the importances are used as given (the seed's
    worked example, whose predicted importances sum to 0.9, gives 0.85 that way).
    Empty sequences give 0.
    """
    p_acts, p_w = normalised_steps(pred, renormalise=renormalise, role="pred")
    r_acts, _ = normalised_steps(gold, renormalise=renormalise, role="gold")
    prev = [0.0] * (len(r_acts) + 1)
    for i, p in enumerate(p_acts):
        cur = [0.0] * (len(r_acts) + 1)
        for j, r in enumerate(r_acts):
            best = max(prev[j + 1], cur[j])
            if p == r:
                best = max(best, prev[j] + p_w[i])
            cur[j + 1] = best
        prev = cur
    return prev[-1]


def wed(pred: SequenceLike, gold: SequenceLike, *, renormalise: bool = True) -> WEDResult:
    """Weighted dialogue-act edit distance, seed 000 §4.1.2 (eqs. 4–7), with its alignment.

    The minimum total cost of deletions (``w_p``), insertions (``w_r``) and substitutions
    (0 for equal acts, else ``(w_p + w_r) / 2``) that turn ``pred`` into ``gold``. When several
    edit scripts reach the minimum, the breakdown follows the fixed tie order
    substitution/match, then deletion, then insertion, so it is deterministic.
    Empty vs non-empty gives 1; both empty give 0.
    """
    p_acts, p_w = normalised_steps(pred, renormalise=renormalise, role="pred")
    r_acts, r_w = normalised_steps(gold, renormalise=renormalise, role="gold")
    n, m = len(p_acts), len(r_acts)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[""] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0], move[i][0] = cost[i - 1][0] + p_w[i - 1], "deletion"
    for j in range(1, m + 1):
        cost[0][j], move[0][j] = cost[0][j - 1] + r_w[j - 1], "insertion"
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = p_acts[i - 1] == r_acts[j - 1]
            diag = cost[i - 1][j - 1] + (0.0 if same else (p_w[i - 1] + r_w[j - 1]) / 2)
            dele = cost[i - 1][j] + p_w[i - 1]
            ins = cost[i][j - 1] + r_w[j - 1]
            best = min(diag, dele, ins)
            if diag <= best + EPS:
                cost[i][j], move[i][j] = diag, "match" if same else "substitution"
            elif dele <= best + EPS:
                cost[i][j], move[i][j] = dele, "deletion"
            else:
                cost[i][j], move[i][j] = ins, "insertion"
    ops: list[AlignmentOp] = []
    i, j = n, m
    while i or j:
        mv = move[i][j]
        if mv in ("match", "substitution"):
            c = cost[i][j] - cost[i - 1][j - 1]
            ops.append(AlignmentOp(mv, i - 1, j - 1, p_acts[i - 1], r_acts[j - 1], c))  # type: ignore[arg-type]
            i, j = i - 1, j - 1
        elif mv == "deletion":
            ops.append(AlignmentOp("deletion", i - 1, None, p_acts[i - 1], None, p_w[i - 1]))
            i -= 1
        else:
            ops.append(AlignmentOp("insertion", None, j - 1, None, r_acts[j - 1], r_w[j - 1]))
            j -= 1
    ops.reverse()
    parts = {op: sum(a.cost for a in ops if a.op == op) for op in ("deletion", "insertion")}
    sub = sum(a.cost for a in ops if a.op == "substitution")
    return WEDResult(cost[n][m], parts["deletion"], parts["insertion"], sub, tuple(ops))


def wed_batch(
    preds: list[SequenceLike], golds: list[SequenceLike], *, chunk: int = 32768
) -> np.ndarray:
    """WED for many pairs at once, vectorised over pairs with numpy.

    Returns an ``(N, 4)`` array of total, deletion, insertion and substitution cost, equal to
    :func:`wed` pair by pair (same tie order), without the alignments.
    """
    if len(preds) != len(golds):
        raise ValueError(f"{len(preds)} predictions but {len(golds)} gold sequences")
    vocab: dict[str, int] = {}
    out = np.zeros((len(preds), 4))
    for start in range(0, len(preds), chunk):
        stop = min(start + chunk, len(preds))
        p_codes, p_w, p_len = encode_batch(preds[start:stop], vocab, role="pred")
        r_codes, r_w, r_len = encode_batch(golds[start:stop], vocab, role="gold")
        out[start:stop] = _wed_dp(p_codes, p_w, p_len, r_codes, r_w, r_len)
    return out


def _wed_dp(
    p_codes: np.ndarray,
    p_w: np.ndarray,
    p_len: np.ndarray,
    r_codes: np.ndarray,
    r_w: np.ndarray,
    r_len: np.ndarray,
) -> np.ndarray:
    """The DP of :func:`wed` over a batch; each cell carries (cost, del, ins, sub) of its path."""
    batch, n, m = len(p_len), p_codes.shape[1], r_codes.shape[1]
    # state[i][j] has shape (4, batch): total, deletion, insertion, substitution.
    state = np.zeros((n + 1, m + 1, 4, batch))
    for i in range(1, n + 1):
        state[i, 0] = state[i - 1, 0]
        state[i, 0, 0] += p_w[:, i - 1]
        state[i, 0, 1] += p_w[:, i - 1]
    for j in range(1, m + 1):
        state[0, j] = state[0, j - 1]
        state[0, j, 0] += r_w[:, j - 1]
        state[0, j, 2] += r_w[:, j - 1]
    for i in range(1, n + 1):
        wp = p_w[:, i - 1]
        for j in range(1, m + 1):
            wr = r_w[:, j - 1]
            sub = np.where(p_codes[:, i - 1] == r_codes[:, j - 1], 0.0, (wp + wr) / 2)
            diag = state[i - 1, j - 1, 0] + sub
            dele = state[i - 1, j, 0] + wp
            ins = state[i, j - 1, 0] + wr
            best = np.minimum(np.minimum(diag, dele), ins)
            take_diag = diag <= best + EPS
            take_del = ~take_diag & (dele <= best + EPS)
            cell = np.where(
                take_diag, state[i - 1, j - 1], np.where(take_del, state[i - 1, j], state[i, j - 1])
            )
            cell[0] = np.where(take_diag, diag, np.where(take_del, dele, ins))
            cell[1] += np.where(take_del, wp, 0.0)
            cell[2] += np.where(~take_diag & ~take_del, wr, 0.0)
            cell[3] += np.where(take_diag, sub, 0.0)
            state[i, j] = cell
    idx = np.arange(batch)
    return state[p_len, r_len, :, idx]
