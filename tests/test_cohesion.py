"""Cohesion (seed 003 §2.3): conditions (a)–(c), distance, φ without agent–agent, reiteration."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from taiwa.metrics.cohesion import cohesive_utterances
from taiwa.resources.association import Word
from taiwa.resources.murmurhash import hash_string, murmurhash64a
from taiwa.resources.vectors import GinzaVectors


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
