"""Cohesion (seed 003 §2.3, §3): conditions (a)–(c), distance, φ without agent–agent, reiteration;
the scorer against the straightforward loop it replaced (an oracle kept below); the summary."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from taiwa.benchmarks.cohesion.dataset import load_dialogues
from taiwa.benchmarks.cohesion.scoring import (
    iter_scored,
    resample_counts,
    score_dialogue,
    score_dialogues,
    summarize,
    words_of,
)
from taiwa.core.samples import sample_path
from taiwa.core.schema import Dialogue, Utterance
from taiwa.metrics.cohesion import cohesive_utterances
from taiwa.metrics.stats import bootstrap_ci, correlation, paired_bootstrap_ci
from taiwa.resources import vectors as vectors_module
from taiwa.resources.association import Word
from taiwa.resources.cooccurrence.table import AssociationPairs
from taiwa.resources.murmurhash import hash_string, murmurhash64a
from taiwa.resources.pairs_resource import PairTableResource
from taiwa.resources.vectors import GinzaVectors
from taiwa.text.content_words import CONTENT_POS
from taiwa.text.tokenizer import default_tokenizer

DIALOGUES = sample_path("cohesion/dialogues.jsonl")


class PairSet:
    """A toy resource: the listed lemma pairs are associated."""

    name = "toy"

    def __init__(self, *pairs: tuple[str, str]) -> None:
        self.pairs = {frozenset(p) for p in pairs}

    def association_matrix(self, words: Sequence[Word]) -> tuple[np.ndarray, np.ndarray]:
        n = len(words)
        m = np.array(
            [[frozenset((a.lemma, b.lemma)) in self.pairs for b in words] for a in words]
        ).reshape(n, n)
        return m, m.astype(float)


def W(*lemmas: str) -> list[Word]:
    return [Word(x, x) for x in lemmas]


def test_seed_figure1_pairs_for_condition_c() -> None:
    # 7 utterances, target (4) (index 3), d = 3: condition (c) may only use <2,5>, <3,5>, <3,6>
    # (1-based). Put an associated pair at <2,5> only: (c) holds; at <1,5> (distance 4): not.
    roles = ["human", "agent"] * 3 + ["human"]
    words = [W("x1"), W("x2"), W("x3"), W("target"), W("x5"), W("x6"), W("x7")]
    near = cohesive_utterances(roles, words, PairSet(("x2", "x5")))[3]
    assert near.conditions == ["c"] and near.cohesive
    far = cohesive_utterances(roles, words, PairSet(("x1", "x5")))[3]
    assert not far.cohesive


def test_prior_and_posterior_within_d() -> None:
    roles = ["human", "agent", "human", "agent", "human", "agent"]
    words = [W("休日"), W(), W(), W("買い物"), W(), W()]
    v = cohesive_utterances(roles, words, PairSet(("休日", "買い物")))
    assert v[3].conditions == ["a"] and v[0].conditions == ["b"]
    assert not cohesive_utterances(roles, words, PairSet(("休日", "買い物")), d=2)[3].cohesive


def test_never_agent_to_agent() -> None:
    roles = ["agent", "human", "agent"]
    words = [W("地震"), W(), W("津波")]
    assert not cohesive_utterances(roles, words, PairSet(("地震", "津波")))[2].cohesive
    roles = ["human", "agent", "agent"]
    assert cohesive_utterances(roles, words, PairSet(("地震", "津波")))[2].conditions == ["a"]


def test_reiteration_and_strict() -> None:
    roles = ["human", "agent"]
    words = [W("カレー"), W("カレー")]
    v = cohesive_utterances(roles, words, PairSet())[1]
    assert v.cohesive and v.links[0].kind == "reiteration"
    assert not cohesive_utterances(roles, words, PairSet(), strict=True)[1].cohesive


def test_utterance_without_content_words_via_condition_c() -> None:
    # "なるほど" has no content word; cohesive when the talk around it goes on (seed 003 §2.3).
    roles = ["human", "agent", "human"]
    v = cohesive_utterances(roles, [W("試験"), W(), W("勉強")], PairSet(("試験", "勉強")))[1]
    assert v.conditions == ["c"]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        cohesive_utterances(["human"], [], PairSet())
    with pytest.raises(ValueError):
        cohesive_utterances(["human"], [W()], PairSet(), d=0)


def test_murmurhash64a_matches_the_ginza_keys() -> None:
    # MurmurHash64A with seed 1 over UTF-8, as spaCy's StringStore: the keys must be found.
    assert murmurhash64a("東京".encode(), 1) == hash_string("東京") != hash_string("京都")
    assert murmurhash64a(b"abcdefghi", 1) != murmurhash64a(b"abcdefgh", 1)  # tail bytes count
    vec = GinzaVectors()
    found = [
        w
        for w in ("東京", "地震", "津波", "食べる", "ラーメン", "休日")
        if hash_string(w) in vec.key2row
    ]
    assert len(found) == 6  # the hash matches the keys in the ja-ginza wheel


def test_vector_resource_associations() -> None:
    vec = GinzaVectors(0.5)
    words = [
        Word("地震", "地震"),
        Word("津波", "津波"),
        Word("ラーメン", "ラーメン"),
        Word("ぬぬぬ", "ぬぬぬ"),
    ]
    assoc, score = vec.association_matrix(words)
    assert assoc[0, 1] and not assoc[0, 2]
    assert score[3].sum() == 0.0  # no vector, no association
    assert vec.row(Word("りんご", "林檎")) >= 0  # found through the normalised form


# -- the seed's worked examples ---------------------------------------------------------------


def test_seed_figure1_every_pair_that_counts() -> None:
    # Fig. 1, d = 3, target (4): (a) uses <1,4> <2,4> <3,4>, (b) <4,5> <4,6> <4,7>, (c) <2,5>
    # <3,5> <3,6> (1-based). Associate every pair of distinct words: exactly those nine fire.
    roles = ["human", "human", "human", "agent", "human", "human", "human"]
    words = [W(f"x{i}") for i in range(1, 8)]
    everything = PairSet(*((f"x{i}", f"x{j}") for i in range(1, 8) for j in range(1, 8) if i != j))
    v = cohesive_utterances(roles, words, everything)[3]
    assert v.conditions == ["a", "b", "c"]
    used = [(ln.a + 1, ln.b + 1) for ln in v.links]
    assert used == [(1, 4), (2, 4), (3, 4), (4, 5), (4, 6), (4, 7), (2, 5), (3, 5), (3, 6)]


def test_seed_tables_5_and_6_pairs() -> None:
    """Tables 5 and 6: the co-occurring pairs the seed names explain the agent's utterances, in
    the context it names (pairs only, as in the seed; UniDic splits 装飾品 into 装飾 + 品)."""
    table5 = [
        "あなたの休日の過ごし方って何ですか？",
        "レポートをやったり、買い物にいったり．それからバイトですね。",
        "おぉ、それからバイトなんですね．どんな買い物をするんですか？",
        "いろいろですね、食料から装飾品まで。",
        "なるほどね、いろいろなんですね。装飾品ってどんな感じですか？",
        "服とか、アクセサリーとかですね。",
    ]
    pairs5 = PairSet(("休日", "買い物"), ("買い物", "食料"), ("装飾", "アクセサリー"))
    got = _explained(table5, pairs5, first="agent")
    assert ("b", "休日", "買い物") in got[0]  # C: 休日・買い物 (後文脈)
    assert ("b", "買い物", "食料") in got[2]  # C: 買い物・食料 (後文脈)
    assert ("c", "装飾", "アクセサリー") in got[4]  # C: 装飾品 (前文脈)・アクセサリー (後文脈)
    table6 = [
        "見に行った映画がつまらなかったのはショックでした．",
        "あなたの好きな映画のジャンルって何ですか？",
        "アクション、コメディ等が好きです．",
        "コメディ等はどうでしたか？",
        "どういう意味ですか？",
        "難しい質問ですね．話は変わりますが、何をしますのですか？",
        "時間があったらのんびりしたいです．",
    ]
    pairs6 = PairSet(("ジャンル", "映画"), ("コメディ", "映画"), ("質問", "時間"))
    got = _explained(table6, pairs6, first="human")
    assert ("a", "映画", "ジャンル") in got[1]  # E: ジャンル・映画 (前文脈)
    assert ("a", "映画", "コメディ") in got[3]  # E: コメディ・映画 (前文脈), judged wrong by people
    assert ("b", "質問", "時間") in got[5]  # E: 質問・時間 (後文脈), judged wrong by people


def _explained(
    texts: list[str], resource: PairSet, first: str
) -> dict[int, set[tuple[str, str, str]]]:
    """Per agent utterance: (condition, w1, w2) of its links, pairs only; turns alternate."""
    other = {"agent": "human", "human": "agent"}[first]
    roles = [first if i % 2 == 0 else other for i in range(len(texts))]
    tok = default_tokenizer()
    verdicts = cohesive_utterances(roles, [words_of(t, tok) for t in texts], resource, strict=True)
    out: dict[int, set[tuple[str, str, str]]] = {}
    for v in verdicts[roles.index("agent") :: 2]:
        kinds = {
            ln: ("a" if ln.b == v.index else "b" if ln.a == v.index else "c") for ln in v.links
        }
        out[v.index] = {(kinds[ln], ln.w1, ln.w2) for ln in v.links}
    return out


def test_conditions_selection() -> None:
    # "なるほど" holds only by (c); without (c) it is not cohesive but still lists "c".
    roles = ["human", "agent", "human"]
    words = [W("試験"), W(), W("勉強")]
    res = PairSet(("試験", "勉強"))
    v = cohesive_utterances(roles, words, res, conditions=("a", "b"))[1]
    assert v.conditions == ["c"] and not v.cohesive and v.links
    assert cohesive_utterances(roles, words, res, conditions="c")[1].cohesive
    for bad in ((), ("a", "d")):
        with pytest.raises(ValueError):
            cohesive_utterances(roles, words, res, conditions=bad)
    dialogue = _dialogue(["来週は試験です。", "なるほど。", "勉強しないと。"], roles)
    row = score_dialogue(dialogue, res, conditions=("a", "b"))["utterances"][1]
    assert row["conditions"] == ["c"] and row["cohesive"] is False
    assert row["pairs"] == [
        {"between": [0, 2], "w1": "試験", "w2": "勉強", "kind": "association", "score": 1.0}
    ]
    assert score_dialogue(dialogue, res)["utterances"][1]["cohesive"] is True


def _dialogue(texts: list[str], roles: list[str], **meta: Any) -> Dialogue:
    return Dialogue(
        id="t",
        utterances=[
            Utterance(speaker=r, text=t, role=r)  # type: ignore[arg-type]
            for t, r in zip(texts, roles, strict=True)
        ],
        meta=meta,
    )


# -- the scorer against the loop it replaced --------------------------------------------------


def reference_verdicts(
    roles: Sequence[str],
    words: Sequence[Sequence[Word]],
    resource: Any,
    d: int = 3,
    strict: bool = False,
) -> list[tuple[bool, list[str], list[tuple[int, int, str, str, str, float]]]]:
    """The scorer before it was made fast (one loop per pair of utterances, then per pair of
    their words, over a dense association matrix): (cohesive, conditions, links) per utterance."""
    vocab: dict[str, int] = {}
    forms: list[Word] = []
    index_lists = []
    for ws in words:
        idx = []
        for w in ws:
            if w.lemma not in vocab:
                vocab[w.lemma] = len(forms)
                forms.append(w)
            idx.append(vocab[w.lemma])
        index_lists.append(sorted(set(idx)))
    assoc, score = (
        resource.association_matrix(forms) if forms else (np.zeros((0, 0), bool), np.zeros((0, 0)))
    )
    lemmas = [w.lemma for w in forms]

    def first_link(ia: list[int], ib: list[int]) -> tuple[str, str, str, float] | None:
        best: tuple[str, str, str, float] | None = None
        for u in ia:
            for v in ib:
                if u == v:
                    if not strict:
                        return lemmas[u], lemmas[v], "reiteration", 1.0
                elif assoc[u, v] and (best is None or score[u, v] > best[3]):
                    best = (lemmas[u], lemmas[v], "association", float(score[u, v]))
        return best

    human = [r in ("human", "user") for r in roles]
    n = len(roles)
    phi: dict[tuple[int, int], tuple[int, int, str, str, str, float] | None] = {}
    for a in range(n):
        for b in range(a + 1, min(n, a + d + 1)):
            hit = first_link(index_lists[a], index_lists[b]) if human[a] or human[b] else None
            phi[(a, b)] = None if hit is None else (a, b, *hit)
    out = []
    for i in range(n):
        prior = [phi[(j, i)] for j in range(max(0, i - d), i)]
        posterior = [phi[(i, k)] for k in range(i + 1, min(n, i + d + 1))]
        spanning = [
            phi[(j, k)]
            for j in range(max(0, i - d + 1), i)
            for k in range(i + 1, min(n, j + d + 1))
        ]
        conditions: list[str] = []
        links: list[tuple[int, int, str, str, str, float]] = []
        for name, found in (("a", prior), ("b", posterior), ("c", spanning)):
            fired = [x for x in found if x is not None]
            if fired:
                conditions.append(name)
                links.extend(fired)
        out.append((bool(conditions), conditions, links))
    return out


def _verdict_tuples(verdicts: Sequence[Any]) -> list[Any]:
    return [
        (v.cohesive, v.conditions, [(x.a, x.b, x.w1, x.w2, x.kind, x.score) for x in v.links])
        for v in verdicts
    ]


@pytest.mark.parametrize("strict", [False, True])
def test_scorer_equals_the_reference_on_the_bundled_dialogues(strict: bool) -> None:
    resource = GinzaVectors()
    tok = default_tokenizer()
    for dlg in load_dialogues(DIALOGUES):
        roles = [u.role for u in dlg.utterances]
        words = [words_of(u.text, tok) for u in dlg.utterances]  # utterance by utterance
        ref = reference_verdicts(roles, words, resource, strict=strict)
        rows = score_dialogue(dlg, resource, strict=strict)["utterances"]
        assert [(r["cohesive"], r["conditions"]) for r in rows] == [x[:2] for x in ref]
        assert [r["pairs"] for r in rows] == [
            [
                {"between": [a, b], "w1": w1, "w2": w2, "kind": k, "score": round(s, 4)}
                for a, b, w1, w2, k, s in links[:5]
            ]
            for _, _, links in ref
        ]
        assert [r.get("correct") for r in rows] == [u.correct for u in dlg.utterances]


def test_scoring_in_blocks_gives_the_rows_of_each_dialogue_alone() -> None:
    """:func:`iter_scored` analyses a block of 64 dialogues' texts together; the rows are those
    of scoring each dialogue alone."""
    resource = GinzaVectors()
    dialogues = load_dialogues(DIALOGUES) * 7  # more than one block of 64
    alone = [score_dialogue(d, resource) for d in dialogues]
    assert list(iter_scored(dialogues, resource)) == alone and len(alone) > 64


class DirectedPairs:
    """A toy resource whose association need not be symmetric, with tied and odd scores."""

    name = "directed"

    def __init__(self, pairs: dict[tuple[str, str], float]) -> None:
        self.pairs = pairs

    def association_matrix(self, words: Sequence[Word]) -> tuple[np.ndarray, np.ndarray]:
        n = len(words)
        score = np.zeros((n, n))
        assoc = np.zeros((n, n), dtype=bool)
        for i, a in enumerate(words):
            for j, b in enumerate(words):
                if (a.lemma, b.lemma) in self.pairs:
                    assoc[i, j] = True
                    score[i, j] = self.pairs[(a.lemma, b.lemma)]
        return assoc, score


LEMMAS = [f"w{i}" for i in range(6)]
small_dialogues = st.integers(0, 9).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(["human", "agent", "user", "system"]), min_size=n, max_size=n),
        st.lists(st.lists(st.sampled_from(LEMMAS), max_size=4), min_size=n, max_size=n),
    )
)
toy_pairs = st.dictionaries(
    st.tuples(st.sampled_from(LEMMAS), st.sampled_from(LEMMAS)),
    st.sampled_from([0.5, 1.0, 1.0, 2.0, -1.0]),
    max_size=12,
)


@given(small_dialogues, toy_pairs, st.integers(1, 4), st.booleans())
def test_scorer_equals_the_reference_on_small_dialogues(
    dialogue: tuple[list[str], list[list[str]]],
    pairs: dict[tuple[str, str], float],
    d: int,
    strict: bool,
) -> None:
    roles, lemmas = dialogue
    words = [[Word(x, x.upper()) for x in ws] for ws in lemmas]
    resource = DirectedPairs(pairs)
    ref = reference_verdicts(roles, words, resource, d=d, strict=strict)
    got = cohesive_utterances(roles, words, resource, d=d, strict=strict)
    assert _verdict_tuples(got) == ref
    picked = cohesive_utterances(roles, words, resource, d=d, strict=strict, conditions="ac")
    assert [v.cohesive for v in picked] == [bool({"a", "c"} & set(c)) for _, c, _ in ref]


# -- the resources' pair listings against their matrices ---------------------------------------


def _listed(assoc: np.ndarray, score: np.ndarray) -> list[tuple[int, int, float]]:
    return [
        (i, j, float(score[i, j]))
        for i in range(len(assoc))
        for j in range(len(assoc))
        if i != j and assoc[i, j]
    ]


@pytest.mark.parametrize("dense", [False, True])
def test_vector_pair_listing_equals_the_matrix(dense: bool, monkeypatch: Any) -> None:
    if dense:  # what a very low threshold falls back to
        monkeypatch.setattr(vectors_module, "MAX_NEIGHBOURS", 0)
    vec = GinzaVectors(0.5)
    rng = np.random.default_rng(0)
    tok = default_tokenizer()
    pool = sorted(
        {w for d in load_dialogues(DIALOGUES) for u in d.utterances for w in words_of(u.text, tok)},
        key=lambda w: (w.lemma, w.norm),
    )
    extra = [Word("りんご", "林檎"), Word("林檎", "林檎"), Word("ぬぬぬ", "ぬぬぬ")]  # shared, none
    for _ in range(30):
        words = [pool[k] for k in rng.choice(len(pool), size=40, replace=False)] + extra
        rng.shuffle(words)  # type: ignore[arg-type]
        assert vec.associated_pairs(words) == _listed(*vec.association_matrix(words))
    assert vec._dense is dense


def test_pair_table_listing_equals_the_matrix() -> None:
    table = PairTableResource.__new__(PairTableResource)
    table.pairs = AssociationPairs(
        {("試験", "勉強"): 12.5, ("勉強", "図書館"): 3.0, ("雨", "傘"): 0.0}
    )
    words = [Word(x, x) for x in ("勉強", "雨", "試験", "傘", "図書館", "試験")]
    assert table.associated_pairs(words) == _listed(*table.association_matrix(words))
    assert table.associated_pairs(words) == [
        (0, 2, 12.5), (0, 4, 3.0), (0, 5, 12.5), (2, 0, 12.5), (4, 0, 3.0), (5, 0, 12.5)
    ]  # fmt: skip


texts_ja = st.text(
    alphabet='あいうえおかきくけこ東京大阪駅行く見る高いアイウエオ、。？！ 1a,"*', max_size=25
)


@given(st.lists(texts_ja, max_size=6))
def test_content_fast_path_equals_filtering_analyze(texts: list[str]) -> None:
    tok = default_tokenizer()
    assert tok.analyze_many(texts, pos1=CONTENT_POS) == [
        [t for t in tok.analyze(x) if t.pos1 in CONTENT_POS] for x in texts
    ]


def test_content_fast_path_on_the_bundled_texts() -> None:
    tok = default_tokenizer()
    texts = [u.text for d in load_dialogues(DIALOGUES) for u in d.utterances]
    assert tok.analyze_many(texts, pos1=CONTENT_POS) == [
        [t for t in tok.analyze(x) if t.pos1 in CONTENT_POS] for x in texts
    ]


# -- the summary --------------------------------------------------------------------------------


def _u(index: int, role: str, conditions: str = "", correct: bool | None = None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "index": index,
        "role": role,
        "cohesive": bool(conditions),
        "conditions": list(conditions),
        "pairs": [],
    }
    if correct is not None:
        row["correct"] = correct
    return row


def test_summary_pooled_dialogue_mean_and_conditions() -> None:
    rows = [
        {"id": "d1", "system": "s", "utterances": [_u(0, "human", "b"), _u(1, "agent", "a")]},
        {
            "id": "d2",
            "system": "s",
            "utterances": [
                _u(0, "agent"),
                _u(1, "human", "a"),
                _u(2, "agent", "c"),
                _u(3, "agent"),
            ],
        },
        {"id": "d3", "system": "s", "utterances": [_u(0, "human", "ab")]},
    ]
    s = summarize(rows, seed=3)
    assert (s["n_dialogues"], s["n_utterances"], s["n_agent_utterances"]) == (3, 7, 4)
    e = s["systems"]["s"]
    assert e["n_dialogues"] == 3 and "precision" not in e
    assert e["cohesive_share"] == bootstrap_ci([1.0, 0.0, 1.0, 0.0], seed=3).as_dict()  # 2/4
    assert e["dialogue_mean"] == bootstrap_ci([1.0, 1 / 3], seed=3).as_dict()  # d3: no agent
    assert (e["cohesive_share"]["n"], e["dialogue_mean"]["n"]) == (4, 2)
    assert e["dialogue_mean"]["value"] == pytest.approx(2 / 3)
    assert e["conditions"]["a"] == bootstrap_ci([1.0, 0.0, 0.0, 0.0], seed=3).as_dict()
    assert e["conditions"]["b"]["value"] == 0.0
    assert e["conditions"]["c"] == bootstrap_ci([0.0, 0.0, 1.0, 0.0], seed=3).as_dict()
    assert "correlation_all" not in s


def _share(given: np.ndarray, hit: np.ndarray) -> float:
    total = given.sum()
    return float((given * hit).sum() / total) if total else float("nan")


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(
        a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k]))
        for k in a
    )


@pytest.mark.parametrize("all_labelled", [True, False])
def test_summary_agreement_equals_the_plain_bootstrap(all_labelled: bool) -> None:
    rng = np.random.default_rng(7)
    rows = []
    for k in range(40):
        utts = []
        for i in range(int(rng.integers(2, 9))):
            role = "agent" if i % 2 else "human"
            conds = "".join(c for c in "abc" if rng.random() < 0.3)
            label = bool(rng.random() < 0.7) if all_labelled or rng.random() < 0.6 else None
            utts.append(_u(i, role, conds, label if role == "agent" else None))
        rows.append({"id": f"d{k}", "system": "eliza" if k % 2 else "human", "utterances": utts})
    s = summarize(rows, seed=5)
    for system, e in s["systems"].items():
        agent = [u for r in rows if r["system"] == system for u in r["utterances"]]
        agent = [u for u in agent if u["role"] == "agent"]
        lab = [u for u in agent if "correct" in u]
        judged = [float(u["cohesive"]) for u in lab]
        correct = [float(u["correct"]) for u in lab]
        assert (
            e["cohesive_share"]
            == bootstrap_ci([float(u["cohesive"]) for u in agent], seed=5).as_dict()
        )
        assert e["human_rate"] == bootstrap_ci(correct, seed=5).as_dict()
        assert _same(e["precision"], paired_bootstrap_ci(judged, correct, _share, seed=5).as_dict())
        assert _same(e["recall"], paired_bootstrap_ci(correct, judged, _share, seed=5).as_dict())
        assert e["n_labelled"] == len(lab) and (e["n_labelled"] == len(agent)) == all_labelled


def test_summary_correlations_without_the_human_systems() -> None:
    rng = np.random.default_rng(11)
    rows = []
    for k in range(24):
        utts = [_u(0, "human")]
        for i in range(1, 7):
            ok = bool(rng.random() < 0.6)
            utts.append(_u(i, "agent", "a" if ok or rng.random() < 0.2 else "", ok))
        rows.append(
            {"id": f"d{k}", "system": ("human", "person", "bot")[k % 3], "utterances": utts}
        )
    s = summarize(rows, seed=2, human_systems=("human", "person"))
    points = [
        (
            r["system"],
            sum(u["cohesive"] for u in r["utterances"][1:]) / 6,
            sum(u["correct"] for u in r["utterances"][1:]) / 6,
        )
        for r in rows
    ]
    for key, pts in (("all", points), ("agents_only", [p for p in points if p[0] == "bot"])):
        c = correlation([p[1] for p in pts], [p[2] for p in pts], "pearson", seed=2)
        got = s[f"correlation_{key}"]
        assert (got["r"], got["p"], got["n"], got["ci_low"], got["ci_high"]) == (
            c.r, c.p, c.n, c.low, c.high
        )  # fmt: skip
    assert s["correlation_all"]["n"] == 24 and s["correlation_agents_only"]["n"] == 8
    assert s["correlation_agents_only"]["excluded_systems"] == ["human", "person"]
    assert "excluded_systems" not in s["correlation_all"]
    few = summarize(rows, seed=2, human_systems=("human", "bot"))
    assert "correlation_agents_only" in few  # 8 'person' dialogues remain
    assert "correlation_agents_only" not in summarize(rows[:6], human_systems=("human", "bot"))


def test_resample_counts_are_the_bootstrap_resamples() -> None:
    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 300, 1030):
        for m in (1, 6, 17):
            features = rng.integers(0, 2, size=(n, m)).astype(bool)
            draws = np.random.default_rng(4)
            expected = np.stack(
                [features[draws.integers(0, n, size=n)].sum(axis=0) for _ in range(30)]
            )
            assert (resample_counts(features, seed=4, n_resamples=30) == expected).all()


def test_score_dialogues_rows_are_per_dialogue() -> None:
    dialogues = load_dialogues(DIALOGUES)[:3]
    rows = score_dialogues(dialogues, PairSet(("ラーメン", "味噌")))
    assert [list(r)[:3] for r in rows] == [["id", "system", "utterances"]] * 3
    assert [r["id"] for r in rows] == [d.id for d in dialogues]
    assert rows[0]["system"] == "human"
    assert [len(r["utterances"]) for r in rows] == [len(d.utterances) for d in dialogues]


def test_examples_read_the_dialogues_only_up_to_the_last_one_wanted() -> None:
    """The report's example utterances get their texts from one pass that stops once every
    wanted dialogue was seen (the examples come from the first rows)."""
    from taiwa.benchmarks.cohesion import _Examples
    from taiwa.core.schema import Dialogue, Utterance

    def dialogue(i: int) -> Dialogue:
        turns = [("u", "human", "ラーメンが好き"), ("a", "agent", "ラーメンいいですね")]
        return Dialogue(
            id=f"d{i}",
            utterances=[Utterance(speaker=s, role=r, text=t) for s, r, t in turns],  # type: ignore[arg-type]
        )

    ex = _Examples()
    row = {"id": "d1", "system": "x", "utterances": [
        {"index": 1, "role": "agent", "cohesive": True,
         "pairs": [{"words": ["ラーメン", "ラーメン"], "between": [0, 1]}]},
    ]}  # fmt: skip
    list(ex.watch([row]))
    read: list[int] = []

    def dialogues() -> Any:
        for i in range(100):
            read.append(i)
            yield dialogue(i)

    [picked] = ex.with_texts(dialogues())
    assert [c["text"] for c in picked["context"]] == ["ラーメンが好き", "ラーメンいいですね"]
    assert read == [0, 1]
