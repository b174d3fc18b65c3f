"""WLCS and WED: seed 000 §4.1 worked example and Table 2, plus DP properties."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from taiwa.core.schema import DASequence, DAStep
from taiwa.metrics import wed, wed_batch, wlcs
from taiwa.metrics.da_steps import ImportanceWarning

Q, CQ, A, INF, R, S, C = (
    "Question",
    "Check-Question",
    "Answer",
    "Inform",
    "Request",
    "Suggestion",
    "Commissive",
)


def test_wlcs_worked_example_seed000_4_1_1() -> None:
    gt = [(Q, 0.7), (S, 0.1), (INF, 0.2)]
    pred = [(Q, 0.7), (S, 0.15), (A, 0.05)]
    assert wlcs(pred, gt, renormalise=False) == pytest.approx(0.85)
    # The example's predicted importances sum to 0.9; by eq. (3) they are renormalised.
    with pytest.warns(ImportanceWarning):
        assert wlcs(pred, gt) == pytest.approx(0.85 / 0.9)


# Seed 000 Table 2: (gold, pred, total, deletion, insertion, substitution)
TABLE2 = [
    ([(C, 0.60), (Q, 0.25), (INF, 0.15)], [(INF, 1.00)], 0.85, 0.0, 0.85, 0.0),
    ([(Q, 0.65), (INF, 0.15), (C, 0.20)], [(R, 0.70), (Q, 0.30)], 1.05, 0.70, 0.35, 0.0),
    ([(C, 0.60), (Q, 0.20), (Q, 0.20)], [(CQ, 0.30), (INF, 0.50), (INF, 0.20)], 1.0, 0.0, 0.0, 1.0),
    ([(INF, 0.65), (Q, 0.35)], [(INF, 0.75), (Q, 0.25)], 0.0, 0.0, 0.0, 0.0),
]


@pytest.mark.parametrize(("gold", "pred", "total", "dele", "ins", "sub"), TABLE2)
def test_wed_table2_rows(gold, pred, total, dele, ins, sub) -> None:  # type: ignore[no-untyped-def]
    res = wed(pred, gold)
    assert res.total == pytest.approx(total)
    assert (res.deletion, res.insertion, res.substitution) == pytest.approx((dele, ins, sub))
    assert sum(op.cost for op in res.alignment) == pytest.approx(total)


def test_table2_row1_alignment_keeps_inform() -> None:
    res = wed([(INF, 1.0)], [(C, 0.6), (Q, 0.25), (INF, 0.15)])
    assert [op.op for op in res.alignment] == ["insertion", "insertion", "match"]


def test_empty_sequences() -> None:
    assert wed([], []).total == 0.0
    assert wlcs([], []) == 0.0
    assert wed([], [(Q, 1.0)]).total == pytest.approx(1.0)
    assert wed([(Q, 1.0)], []).deletion == pytest.approx(1.0)
    assert wlcs([(Q, 1.0)], []) == 0.0


def test_accepts_dasteps_and_sequences() -> None:
    seq = DASequence(steps=[DAStep(act=Q, importance=0.5), DAStep(act=INF, importance=0.5)])
    assert wed(seq, [(Q, 0.5), (INF, 0.5)]).total == 0.0
    assert wlcs(seq.steps, [{"act": Q, "importance": 1.0}]) == pytest.approx(0.5)


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf])
def test_rejects_bad_importance(bad: float) -> None:
    with pytest.raises(ValueError, match="importance"):
        wed([(Q, bad)], [(Q, 1.0)])


def test_rejects_all_zero_importances() -> None:
    with pytest.raises(ValueError, match="sum to 0"):
        wlcs([(Q, 0.0)], [(Q, 1.0)])


def test_renormalisation_warns_only_when_off() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wed([(Q, 0.3), (INF, 0.7)], [(Q, 1.0)])
    with pytest.warns(ImportanceWarning, match="renormalised"):
        res = wed([(Q, 0.6), (INF, 0.2)], [(Q, 1.0)])
    assert res.deletion == pytest.approx(0.25)


# ---------------------------------------------------------------- properties

ACTS = st.sampled_from([Q, CQ, A, INF, R, S, C])
SEQ = st.lists(st.tuples(ACTS, st.floats(0.01, 1.0)), min_size=0, max_size=5)


def _norm(seq: list[tuple[str, float]]) -> list[tuple[str, float]]:
    total = sum(w for _, w in seq)
    return [(a, w / total) for a, w in seq]


def brute_force(p: list[tuple[str, float]], r: list[tuple[str, float]]) -> tuple[float, int]:
    """Minimum cost over every edit script, and how many scripts reach it."""
    costs: list[float] = []

    def walk(i: int, j: int, acc: float) -> None:
        if i == len(p) and j == len(r):
            costs.append(acc)
            return
        if i < len(p) and j < len(r):
            same = p[i][0] == r[j][0]
            walk(i + 1, j + 1, acc + (0.0 if same else (p[i][1] + r[j][1]) / 2))
        if i < len(p):
            walk(i + 1, j, acc + p[i][1])
        if j < len(r):
            walk(i, j + 1, acc + r[j][1])

    walk(0, 0, 0.0)
    best = min(costs)
    return best, sum(1 for c in costs if abs(c - best) < 1e-9)


@given(SEQ)
def test_wed_identity(x: list[tuple[str, float]]) -> None:
    assert wed(_norm(x) if x else x, _norm(x) if x else x).total == pytest.approx(0.0, abs=1e-12)


@given(SEQ, SEQ)
def test_wed_bounds_and_breakdown(x: list[tuple[str, float]], y: list[tuple[str, float]]) -> None:
    p, r = (_norm(x) if x else x), (_norm(y) if y else y)
    res = wed(p, r)
    assert -1e-12 <= res.total <= 2 + 1e-9
    assert res.deletion + res.insertion + res.substitution == pytest.approx(res.total)
    assert 0.0 <= wlcs(p, r) <= 1 + 1e-9


@given(SEQ, SEQ)
def test_wed_symmetry(x: list[tuple[str, float]], y: list[tuple[str, float]]) -> None:
    p, r = (_norm(x) if x else x), (_norm(y) if y else y)
    fwd, bwd = wed(p, r), wed(r, p)
    assert fwd.total == pytest.approx(bwd.total)
    if brute_force(p, r)[1] == 1:  # a unique optimal script: deletions and insertions swap
        assert fwd.deletion == pytest.approx(bwd.insertion)
        assert fwd.insertion == pytest.approx(bwd.deletion)
        assert fwd.substitution == pytest.approx(bwd.substitution)


@given(
    st.lists(st.tuples(ACTS, st.floats(0.01, 1.0)), max_size=4),
    st.lists(st.tuples(ACTS, st.floats(0.01, 1.0)), max_size=4),
)
def test_wed_matches_brute_force(x: list[tuple[str, float]], y: list[tuple[str, float]]) -> None:
    p, r = (_norm(x) if x else x), (_norm(y) if y else y)
    assert wed(p, r).total == pytest.approx(brute_force(p, r)[0])


@given(st.lists(st.tuples(SEQ, SEQ), min_size=1, max_size=20))
def test_wed_batch_equals_wed(
    pairs: list[tuple[list[tuple[str, float]], list[tuple[str, float]]]],
) -> None:
    preds = [_norm(p) if p else p for p, _ in pairs]
    golds = [_norm(r) if r else r for _, r in pairs]
    got = wed_batch(preds, golds, chunk=7)
    for k, (p, r) in enumerate(zip(preds, golds, strict=True)):
        res = wed(p, r)
        assert got[k].tolist() == pytest.approx(
            [res.total, res.deletion, res.insertion, res.substitution]
        )


def test_wlcs_self_is_one() -> None:
    seq = [(Q, 0.4), (INF, 0.35), (S, 0.25)]
    assert wlcs(seq, seq) == pytest.approx(1.0)
