"""Crowd-vote labels (seed 002 §3.3) and the consistency analysis (seed 002 §5.1, Fig. 3)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from taiwa.benchmarks.da_distribution import consistency as cons
from taiwa.benchmarks.da_distribution.consistency import consistency
from taiwa.benchmarks.da_distribution.plots import write_curve_svg
from taiwa.benchmarks.da_distribution.votes import (
    OPINION,
    UtteranceVotes,
    aggregate_votes,
    load_votes,
    refine,
)
from taiwa.core.io import InputError
from taiwa.core.taxonomies import load_taxonomy
from taiwa.metrics.da_distribution import act_codes, batch_counts, dae, dami, entropy_rows

ACTS = load_taxonomy("chitchat11").names
# Seed 002 Table 1, human replies (counts, taxonomy order).
TABLE1_HUMAN = [366, 446, 1080, 115, 790, 3116, 132, 162, 199, 223, 79]


def _write(path: Path, rows: Sequence[object]) -> Path:
    path.write_text(
        "".join(
            (r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows
        ),
        encoding="utf-8",
    )
    return path


def _item(uid: str, **counts: int) -> UtteranceVotes:
    return UtteranceVotes(uid, 1, dict(counts))


# ---------------------------------------------------------------- §3.3 aggregation


def test_adopts_the_act_with_most_votes_at_least_two() -> None:
    agg = aggregate_votes([_item("u1", 意見=3, 質問=2), _item("u2", 質問=2, 提案=1)])
    assert agg.labels == {"u1": "意見", "u2": "質問"}
    assert agg.tied == {}
    assert agg.unlabelled == ()


def test_no_act_with_two_votes_is_reported_not_labelled() -> None:
    items = [_item("u1", 意見=1, 質問=1, 提案=1), _item("u2", 意見=2), _item("u3", あいさつ=1)]
    agg = aggregate_votes(items)
    assert agg.labels == {"u2": "意見"}
    assert agg.unlabelled == ("u1", "u3")
    assert agg.n_unlabelled == 2
    assert aggregate_votes(items, min_votes=1).n_unlabelled == 0


def test_ties_are_broken_reproducibly_by_seed() -> None:
    items = [_item(f"u{i}", 意見=2, 質問=2, 提案=1) for i in range(40)]
    first = aggregate_votes(items, seed=7)
    assert first == aggregate_votes(items, seed=7)
    assert set(first.tied) == {f"u{i}" for i in range(40)}
    assert all(t == ("意見", "質問") for t in first.tied.values())
    # Both tied acts are drawn, never the one with fewer votes ...
    assert set(first.labels.values()) == {"意見", "質問"}
    # ... another seed draws differently, and a label does not depend on the other items.
    assert aggregate_votes(items, seed=8).labels != first.labels
    alone = aggregate_votes([items[5]], seed=7)
    assert alone.labels["u5"] == first.labels["u5"]
    reversed_ = aggregate_votes(items[::-1], seed=7)
    assert reversed_.labels == first.labels


def test_ballots_are_counted_per_annotator(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "votes.jsonl",
        [
            {"id": "u1", "annotator": "w1", "acts": ["意見", "質問"]},
            {"id": "u1", "annotator": "w2", "acts": ["Opinion"]},  # en alias
            {"id": "u2", "annotator": "w1", "acts": ["提案"]},
            {"id": "u1", "annotator": "w3", "acts": ["質問", "あいさつ"]},
            {"id": "u3", "votes": {"リアクション": 3, "Greeting": 2, "その他": 0}},
        ],
    )
    items = load_votes(path)
    assert [i.id for i in items] == ["u1", "u2", "u3"]
    assert items[0].counts == {"あいさつ": 1, "意見": 2, "質問": 2}  # taxonomy order
    assert items[0].annotators == {"w1", "w2", "w3"}
    assert items[2].counts == {"あいさつ": 2, "リアクション": 3}
    agg = aggregate_votes(items, seed=0)
    assert agg.tied == {"u1": ("意見", "質問")}
    assert agg.unlabelled == ("u2",)
    assert agg.labels["u3"] == "リアクション"


def test_custom_taxonomy(tmp_path: Path) -> None:
    tax = tmp_path / "tax.yaml"
    tax.write_text(
        "name: tiny\nacts:\n"
        "  - {name: ask, ja: 質問する, en: Ask, definition: 尋ねる}\n"
        "  - {name: tell, ja: 伝える, en: Tell, definition: 伝える}\n",
        encoding="utf-8",
    )
    path = _write(
        tmp_path / "v.jsonl",
        [{"id": 1, "votes": {"ask": 2, "伝える": 3}}, {"id": 2, "annotator": "a", "acts": ["Ask"]}],
    )
    agg = aggregate_votes(load_votes(path, str(tax)))
    assert agg.labels == {"1": "tell"}
    assert agg.act_counts(load_taxonomy(tax)) == {"ask": 0, "tell": 1}
    with pytest.raises(InputError, match="taxonomy 'tiny'"):
        load_votes(_write(tmp_path / "w.jsonl", [{"id": 1, "votes": {"意見": 2}}]), str(tax))


BAD = [
    ('{"id": "u2", "annotator": "w1", "acts": ["意見", "雑談"]}', "acts[1]", "雑談"),
    ('{"id": "u2", "annotator": "w1", "acts": []}', "acts", "at least one act"),
    ('{"id": "u2", "annotator": "w1", "acts": "意見"}', "acts", "a list of acts"),
    ('{"id": "u2", "annotator": "w1", "acts": ["意見", "Opinion"]}', "acts[1]", "once"),
    ('{"id": "u2", "annotator": "w1", "acts": ["意見"', None, "JSON"),
    ('{"id": "u2", "acts": ["意見"]}', "annotator", "present"),
    ('{"annotator": "w1", "acts": ["意見"]}', "id", "present"),
    ('{"id": "u2", "annotator": "w1"}', "acts", "present"),
    ('{"id": "u2", "annotator": "w1", "acts": ["意見"], "note": 1}', "note", "no such field"),
    ('{"id": "u1", "annotator": "w1", "acts": ["質問"]}', "annotator", "one ballot"),
    ('{"id": "u2", "votes": {}}', "votes", "at least one vote"),
    ('{"id": "u2", "votes": {"意見": -1}}', "votes.意見", ">= 0"),
    ('{"id": "u2", "votes": {"意見": 1.5}}', "votes.意見", ">= 0"),
    ('{"id": "u2", "votes": {"意見": 0}}', "votes", "at least one vote"),
    ('{"id": "u2", "votes": {"雑談": 2}}', "votes.雑談", "an act of taxonomy"),
    ('{"id": "u1", "votes": {"意見": 2}}', "id", "already on line 1"),
    ('{"id": "u3", "annotator": "w1", "acts": ["意見"]}', "id", "tally on line 2"),
    ('{"id": "u2", "acts": ["意見"], "votes": {"意見": 2}}', "votes", "either"),
]


@pytest.mark.parametrize(("line", "field", "text"), BAD)
def test_bad_input_names_file_line_and_field(
    tmp_path: Path, line: str, field: str | None, text: str
) -> None:
    path = _write(
        tmp_path / "votes.jsonl",
        [
            '{"id": "u1", "annotator": "w1", "acts": ["意見"]}',
            '{"id": "u3", "votes": {"意見": 2}}',
            line,
        ],
    )
    with pytest.raises(InputError) as info:
        load_votes(path)
    err = info.value
    assert (err.file, err.line) == (str(path), 3)
    if field is not None:
        assert err.field == field
    assert str(err).startswith(f"{path}:3: ")
    assert text in str(err)


# ---------------------------------------------------------------- Table 1 → DAE


def test_table1_human_counts_give_dae_2_52(tmp_path: Path) -> None:
    # Each utterance's tally adopts one act; the adopted acts reproduce Table 1's human column.
    rows = []
    for act, count in zip(ACTS, TABLE1_HUMAN, strict=True):
        other = ACTS[(ACTS.index(act) + 1) % len(ACTS)]
        rows += [{"id": f"{act}-{i}", "votes": {act: 3, other: 1}} for i in range(count)]
    agg = aggregate_votes(load_votes(_write(tmp_path / "t1.jsonl", rows)))
    counts = agg.act_counts("chitchat11")
    assert list(counts.values()) == TABLE1_HUMAN
    assert sum(counts.values()) == 6708
    assert round(dae(agg.labels.values()), 2) == 2.52
    assert dae(agg.labels.values()) == pytest.approx(2.5215, abs=1e-4)


# ---------------------------------------------------------------- App. A, Table 4

# Seed 002 Table 4: opinions by target × polarity (counts and the printed percentages).
TABLE4 = {
    "human": ([1127, 320, 792, 308, 237, 181], [38, 11, 27, 10, 8, 6]),
    "system": ([1467, 391, 648, 311, 151, 129], [47, 13, 21, 10, 5, 4]),
}
TABLE1_OPINION = {"human": 3116, "system": 3245}


@pytest.mark.parametrize("side", ["human", "system"])
def test_opinion_subtypes_reproduce_table_4(tmp_path: Path, side: str) -> None:
    """Round 1 (chitchat11) labels Table 1's opinions; round 2 (opinion6, one pick each of 5
    annotators) the Table 4 counts; the rest of round 1's opinions get no sub-type."""
    sub_acts = load_taxonomy("opinion6").names
    counts, percents = TABLE4[side]
    n_opinion = TABLE1_OPINION[side]
    first = [{"id": f"o{i}", "votes": {OPINION: 4, "質問": 1}} for i in range(n_opinion)]
    first += [{"id": "g0", "votes": {"あいさつ": 5}}]
    second, uid = [], 0
    for act, count in zip(sub_acts, counts, strict=True):
        other = sub_acts[(sub_acts.index(act) + 3) % 6]
        for _ in range(count):
            second.append({"id": f"o{uid}", "votes": {act: 3, other: 2}})
            uid += 1
    for _ in range(n_opinion - sum(counts)):  # five different picks: no sub-type has 2 votes
        second.append({"id": f"o{uid}", "votes": {a: 1 for a in sub_acts[:5]}})
        uid += 1
    coarse = aggregate_votes(load_votes(_write(tmp_path / "r1.jsonl", first)))
    fine = aggregate_votes(load_votes(_write(tmp_path / "r2.jsonl", second), "opinion6"))
    merged = refine(coarse, fine)
    table = merged.act_counts("chitchat16")
    got = [table[a] for a in sub_acts]
    assert got == counts
    assert [round(100 * c / sum(got)) for c in got] == percents
    assert table["あいさつ"] == 1
    assert merged.n_unlabelled == n_opinion - sum(counts)  # 151 human, 148 system
    assert all(uid.startswith("o") for uid in merged.unlabelled)


# ---------------------------------------------------------------- §5.1 consistency


def _systems(n: int, seed: int) -> tuple[list[str], list[str], list[str]]:
    rng = np.random.default_rng(seed)
    k = len(ACTS)
    a = [ACTS[i] for i in rng.choice(k, n, p=rng.dirichlet(np.ones(k)))]
    b = [ACTS[i] for i in rng.choice(k, n, p=rng.dirichlet(np.ones(k)))]
    prev = [ACTS[i] for i in rng.choice(k, n)]
    return a, b, prev


def _reference(
    a: list[str], b: list[str], prev: list[str], sizes: list[int], reps: int, seed: int, metric: str
) -> list[tuple[int, int]]:
    """Plain Python: the module's sampling contract, the metrics from taiwa.metrics."""

    def score(acts: list[str], idx: list[int]) -> float:
        if metric == "dae":
            return dae(acts[i] for i in idx)
        return dami((prev[i], acts[i]) for i in idx)

    full = score(a, list(range(len(a)))) - score(b, list(range(len(b))))
    rng = np.random.default_rng(seed)
    out = []
    for size in sizes:
        agree = ties = 0
        for _ in range(reps):
            keys = rng.random(len(a)).tolist()
            idx = sorted(range(len(a)), key=keys.__getitem__)[:size]
            diff = score(a, idx) - score(b, idx)
            if abs(diff) <= 1e-12:
                ties += 1
            elif (diff > 0) == (full > 0):
                agree += 1
        out.append((agree, ties))
    return out


@pytest.mark.parametrize("metric", ["dae", "dami"])
def test_consistency_matches_plain_python_reference(
    metric: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, prev = _systems(60, seed=3)
    sizes, reps = [5, 20, 45, 60], 250
    monkeypatch.setattr(cons, "BLOCK_ELEMENTS", 60 * 37)  # several blocks, a ragged last one
    kind: cons.Metric = "dae" if metric == "dae" else "dami"
    got = consistency(
        a, b, previous=prev, metric=kind, batch_sizes=sizes, repetitions=reps, seed=11
    )
    want = _reference(a, b, prev, sizes, reps, 11, metric)
    assert [(round(p.agreement.value * reps), p.ties) for p in got.points] == want
    assert 0 < got.points[0].agreement.value < 1  # small batches disagree sometimes
    assert got.points[-1].agreement.value == 1.0  # the full set agrees with itself
    for p in got.points:
        assert p.agreement.n == reps
        assert p.agreement.low <= p.agreement.value <= p.agreement.high


def test_batch_scores_equal_the_metrics() -> None:
    a, _, prev = _systems(300, seed=5)
    codes, vocab = act_codes([a, prev])
    k = len(vocab)
    rng = np.random.default_rng(0)
    for b in (1, 7, 150, 300):
        idx = np.argpartition(rng.random((4, 300)), b - 1, axis=1)[:, :b]
        ent = entropy_rows(batch_counts(codes[0], idx, k))
        mi = cons._mutual_information(codes[1], codes[0], idx, k)
        for row in range(4):
            assert ent[row] == pytest.approx(dae(a[i] for i in idx[row]), abs=1e-12)
            want = dami((prev[i], a[i]) for i in idx[row])
            assert mi[row] == pytest.approx(want, abs=1e-12)


def test_result_does_not_depend_on_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, _ = _systems(200, seed=1)
    whole = consistency(a, b, batch_sizes=[20, 100], repetitions=500, seed=4)
    monkeypatch.setattr(cons, "BLOCK_ELEMENTS", 200 * 33)
    assert consistency(a, b, batch_sizes=[20, 100], repetitions=500, seed=4) == whole
    assert consistency(a, b, batch_sizes=[20, 100], repetitions=500, seed=5) != whole


def test_consistency_errors() -> None:
    a, b, _ = _systems(100, seed=2)
    with pytest.raises(ValueError, match="batch size 500 is larger than the 100 items"):
        consistency(a, b)
    with pytest.raises(ValueError, match="same contexts"):
        consistency(a, b[:-1], batch_sizes=[10])
    with pytest.raises(ValueError, match="previous"):
        consistency(a, b, metric="dami", batch_sizes=[10])
    with pytest.raises(ValueError, match="tie on the full set"):
        consistency(a, list(a), batch_sizes=[10])


def test_seed_scale_timing_and_svg(tmp_path: Path) -> None:
    a, b, prev = _systems(2000, seed=9)
    start = time.perf_counter()
    result = consistency(a, b, seed=0)
    seconds = time.perf_counter() - start
    print(f"\nconsistency: 4 sizes x 20,000 paired resamples of 2,000 items: {seconds:.2f} s")
    assert [p.batch_size for p in result.points] == [500, 1000, 1500, 2000]
    assert all(p.agreement.n == 20_000 for p in result.points)
    values = [p.agreement.value for p in result.points]
    assert values == sorted(values) and values[-1] == 1.0
    other = consistency(prev, b, batch_sizes=[500, 1000, 1500, 2000], repetitions=2000)
    svg = tmp_path / "fig3" / "consistency.svg"
    write_curve_svg({"A vs B": result, "文脈 vs B": other}, svg)
    text = svg.read_text(encoding="utf-8")
    assert svg.stat().st_size > 1000
    assert "<svg" in text and "A vs B" in text and "文脈 vs B" in text
    assert text.count("<path") > 10  # axes, ticks, two curves with error bars
    with pytest.raises(ValueError, match="no curves"):
        write_curve_svg({}, tmp_path / "empty.svg")
