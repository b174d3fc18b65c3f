"""Cohesion evaluation of dialogues (seed 003 §2.3, §3): one row per dialogue with the verdict of
every utterance; per system the share of cohesive agent utterances (Table 3's 評価値, pooled and
per dialogue, and per condition), agreement with the human labels (precision A/B, recall A/C,
§3.2) and the per-dialogue Pearson correlation with the human rate (§3.2: 0.84, and 0.50
without the human–human dialogues).

Speed (``benchmarks/cohesion_speed.py``): the utterances of a dialogue are analysed in one call
that never builds tokens for function words (:func:`taiwa.text.content_words.content_many`);
φ is worked out word by word from the resource's list of associated pairs
(:func:`taiwa.metrics.cohesion.links_within`); each system's bootstrap resamples are drawn once
for all its shares, precision and recall, and the correlation's a block at a time. The
resamples are those :func:`taiwa.metrics.stats.bootstrap_ci` and
:func:`taiwa.metrics.stats.correlation` draw, so every number is the same as theirs.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import TYPE_CHECKING, Any

import numpy as np
from rich.progress import Progress

from taiwa.benchmarks.cohesion.dataset import AGENT_ROLES, system_of
from taiwa.core.schema import Dialogue
from taiwa.metrics.cohesion import CONDITIONS, Link, check_conditions, cohesive_utterances
from taiwa.metrics.stats import N_RESAMPLES, bootstrap_ci, correlation, percentile_estimate
from taiwa.resources.association import AssociationResource, Word
from taiwa.text.content_words import content_blocks, content_many, is_content
from taiwa.text.tokenizer import MorphAnalyzer, Token, default_tokenizer

if TYPE_CHECKING:
    from taiwa.text.tagging_worker import TaggingWorker

MAX_PAIRS = 5
"""Links listed per utterance (the evidence of its conditions, in the order a, b, c)."""

_CHUNK = 250_000
"""Draws handled at a time in the bootstraps: blocks that stay in the CPU cache are about a
third faster than the 4M of :func:`taiwa.metrics.stats.bootstrap_ci` (same draws, same order)."""


def words_of(text: str, analyzer: MorphAnalyzer) -> list[Word]:
    """The content words of one utterance (seed 003 §2.2)."""
    return [Word(t.lemma, t.norm or t.lemma) for t in analyzer.analyze(text) if is_content(t)]


def _content_word(token: Token) -> Word | None:
    return Word(token.lemma, token.norm or token.lemma) if is_content(token) else None


def dialogue_words(texts: Sequence[str], analyzer: MorphAnalyzer) -> list[list[Word]]:
    """The content words of each of ``texts`` (a dialogue's utterances, or several dialogues'),
    analysed in one call: the same words as :func:`words_of` on each."""
    return content_many(texts, _content_word, analyzer=analyzer)


def _pair(link: Link) -> dict[str, Any]:
    return {
        "between": [link.a, link.b],
        "w1": link.w1,
        "w2": link.w2,
        "kind": link.kind,
        "score": round(link.score, 4),
    }


def score_dialogue(
    dialogue: Dialogue,
    resource: AssociationResource,
    *,
    d: int = 3,
    strict: bool = False,
    conditions: Collection[str] = CONDITIONS,
    analyzer: MorphAnalyzer | None = None,
) -> dict[str, Any]:
    """The verdicts of one dialogue (seed 003 §2.3): ``{"system", "utterances"}`` with, per
    utterance, ``index``, ``role``, ``cohesive`` (one of the selected ``conditions`` holds),
    ``conditions`` (every condition that holds), ``pairs`` (up to five links explaining them:
    ``between``, ``w1``, ``w2``, ``kind``, ``score``) and the human label ``correct`` if any."""
    words = dialogue_words([u.text for u in dialogue.utterances], analyzer or default_tokenizer())
    return _scored(dialogue, words, resource, d, strict, conditions)


def _scored(
    dialogue: Dialogue,
    words: Sequence[Sequence[Word]],
    resource: AssociationResource,
    d: int,
    strict: bool,
    conditions: Collection[str],
) -> dict[str, Any]:
    utts = dialogue.utterances
    verdicts = cohesive_utterances(
        [u.role for u in utts], words, resource, d=d, strict=strict, conditions=conditions
    )
    out: list[dict[str, Any]] = []
    for v, utt in zip(verdicts, utts, strict=True):
        row: dict[str, Any] = {
            "index": v.index,
            "role": v.role,
            "cohesive": v.cohesive,
            "conditions": v.conditions,
            "pairs": [_pair(ln) for ln in v.links[:MAX_PAIRS]] if v.links else [],
        }
        if utt.correct is not None:
            row["correct"] = utt.correct
        out.append(row)
    return {"system": system_of(dialogue), "utterances": out}


BLOCK = 64
"""Dialogues :func:`iter_scored` analyses together before scoring them: MeCab's tables and
the scorer's objects then take turns in the CPU caches a block at a time rather than every
dialogue (a few percent faster; a larger block keeps more objects alive for the collector)."""


def iter_scored(
    dialogues: Sequence[Dialogue],
    resource: AssociationResource,
    *,
    d: int = 3,
    strict: bool = False,
    conditions: Collection[str] = CONDITIONS,
    analyzer: MorphAnalyzer | None = None,
    worker: TaggingWorker | None = None,
    worker_min_texts: int | None = None,
) -> Iterator[dict[str, Any]]:
    """:func:`score_dialogue` of each dialogue, in order, a block of :data:`BLOCK` at a time
    (the block's texts analysed together, then scored). With the default analyzer, MeCab's
    work is shared with a second process while this one scores: ``worker`` (a run's), or from
    ``worker_min_texts`` utterances (default
    :data:`taiwa.text.content_words.WORKER_MIN_TEXTS`) one started for these dialogues
    (:func:`taiwa.text.content_words.content_blocks`; the same rows)."""
    check_conditions(conditions)
    blocks = [dialogues[start : start + BLOCK] for start in range(0, len(dialogues), BLOCK)]
    texts = [[u.text for dlg in block for u in dlg.utterances] for block in blocks]
    tagged = content_blocks(
        texts, _content_word, analyzer=analyzer, worker=worker, worker_min_texts=worker_min_texts
    )
    with closing(tagged):  # stops the worker when the caller stops early
        for block, words in zip(blocks, tagged, strict=True):
            at = 0
            for dlg in block:
                upto = at + len(dlg.utterances)
                yield _scored(dlg, words[at:upto], resource, d, strict, conditions)
                at = upto


def score_dialogues(
    dialogues: Sequence[Dialogue],
    resource: AssociationResource,
    *,
    d: int = 3,
    strict: bool = False,
    conditions: Collection[str] = CONDITIONS,
    analyzer: MorphAnalyzer | None = None,
    show_progress: bool = False,
) -> list[dict[str, Any]]:
    """One row per dialogue: ``{"id", **score_dialogue(...)}`` (seed 003 §2.3)."""
    rows: list[dict[str, Any]] = []
    scored = iter_scored(
        dialogues, resource, d=d, strict=strict, conditions=conditions, analyzer=analyzer
    )
    with Progress(disable=not show_progress, transient=True) as progress:
        task = progress.add_task("cohesion", total=len(dialogues))
        for dlg, row in zip(dialogues, scored, strict=True):
            rows.append({"id": dlg.id, **row})
            if show_progress:
                progress.advance(task, 1)
    return rows


# -- summary ---------------------------------------------------------------------------------

_COHESIVE, _A, _B, _C, _LABELLED, _CORRECT = 1, 2, 4, 8, 16, 32
"""Bits of the code summarising one agent utterance."""


def _codes(utterances: Iterable[dict[str, Any]], out: list[int]) -> int:
    """Append the code of each agent utterance to ``out``; return how many there were."""
    before = len(out)
    for u in utterances:
        if u["role"] in AGENT_ROLES:
            code = _COHESIVE if u["cohesive"] else 0
            conds = u["conditions"]
            if conds:
                code |= (
                    (_A if "a" in conds else 0)
                    | (_B if "b" in conds else 0)
                    | (_C if "c" in conds else 0)
                )
            if "correct" in u:
                code |= _LABELLED | (_CORRECT if u["correct"] else 0)
            out.append(code)
    return len(out) - before


def resample_counts(
    features: np.ndarray, *, seed: int = 0, n_resamples: int = N_RESAMPLES
) -> np.ndarray:
    """``(n_resamples, m)``: how many items of each bootstrap resample have each of ``m`` binary
    features (``features``: items × m, 0/1).

    The resamples are the ones :func:`taiwa.metrics.stats.bootstrap_ci` and
    :func:`~taiwa.metrics.stats.paired_bootstrap_ci` draw for ``n`` items and ``seed`` (NumPy's
    stream of bounded integers does not depend on how the draws are chunked), so any share,
    precision or recall computed from these counts equals theirs. The features of an item are
    packed into bit fields of one 64-bit word, so one gather serves them all; draws are summed
    in blocks short enough that no field overflows, and the fields of the block sums added up.
    """
    n, m = features.shape
    out = np.zeros((n_resamples, m), dtype=np.int64)
    if n == 0 or m == 0:
        return out
    if m > 16:
        return np.hstack(
            [
                resample_counts(features[:, j : j + 16], seed=seed, n_resamples=n_resamples)
                for j in range(0, m, 16)
            ]
        )
    bits = 64 // m
    block = min(n, (1 << bits) - 1)
    mask = np.uint64((1 << bits) - 1)
    shifts = np.arange(m, dtype=np.uint64) * np.uint64(bits)
    packed = (np.asarray(features, dtype=np.uint64) << shifts).sum(axis=1, dtype=np.uint64)
    starts = np.arange(0, n, block)
    rng = np.random.default_rng(seed)
    step = max(1, _CHUNK // n)
    for start in range(0, n_resamples, step):
        k = min(step, n_resamples - start)
        drawn = packed[rng.integers(0, n, size=(k, n))]  # int64 indices: no conversion
        sums = np.add.reduceat(drawn, starts, axis=1, dtype=np.uint64)
        for j in range(m):
            field = (sums >> shifts[j]) & mask
            out[start : start + k, j] = field.sum(axis=1, dtype=np.uint64).astype(np.int64)
    return out


def _estimate(point: float, stats: np.ndarray, n: int) -> dict[str, float | int]:
    """:func:`taiwa.metrics.stats.bootstrap_ci`'s estimate from its resampled statistics."""
    return percentile_estimate(point, stats, n).as_dict()


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` as floats, NaN where ``den`` is 0 (an undefined share)."""
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _shares(codes: np.ndarray, seed: int) -> dict[str, Any]:
    """Per-system shares of agent utterances with bootstrap CIs (seed 003 Table 3): cohesive,
    each condition, and with labels the human rate, precision A/B and recall A/C (§3.2)."""
    coh = (codes & _COHESIVE) > 0
    labelled = (codes & _LABELLED) > 0
    n = len(codes)
    columns = {
        "cohesive": coh,
        "a": (codes & _A) > 0,
        "b": (codes & _B) > 0,
        "c": (codes & _C) > 0,
    }
    lab = codes[labelled]
    n_lab = len(lab)
    lab_columns: dict[str, np.ndarray] = {}
    if n_lab:
        judged = (lab & _COHESIVE) > 0
        correct = (lab & _CORRECT) > 0
        lab_columns = {"judged": judged, "correct": correct, "both": judged & correct}
    if n_lab == n:  # the usual case: one set of resamples serves every share
        names = [*columns, *lab_columns]
        counts = resample_counts(
            np.column_stack([*columns.values(), *lab_columns.values()]), seed=seed
        )
        got = dict(zip(names, counts.T, strict=True))
    else:
        stacked = np.column_stack(list(columns.values()))
        got = dict(zip(columns, resample_counts(stacked, seed=seed).T, strict=True))
        if n_lab:
            lab_counts = resample_counts(np.column_stack(list(lab_columns.values())), seed=seed)
            got.update(zip(lab_columns, lab_counts.T, strict=True))
    totals = {k: int(c.sum()) for k, c in {**columns, **lab_columns}.items()}

    def mean(name: str, size: int) -> dict[str, float | int]:
        return _estimate(totals[name] / size, got[name] / size, size)

    def share(num: str, den: str) -> dict[str, float | int]:
        point = totals[num] / totals[den] if totals[den] else float("nan")
        return _estimate(point, _ratio(got[num], got[den]), n_lab)

    entry: dict[str, Any] = {
        "cohesive_share": mean("cohesive", n),
        "conditions": {c: mean(c, n) for c in CONDITIONS},
    }
    if n_lab:
        entry["human_rate"] = mean("correct", n_lab)
        # seed 003 §3.2: precision A/B (cohesive and correct / cohesive), recall A/C
        # (cohesive and correct / correct), resampled over the labelled utterances
        entry["precision"] = share("both", "judged")
        entry["recall"] = share("both", "correct")
        entry["n_labelled"] = n_lab
    return entry


def pearson(x: Sequence[float], y: Sequence[float], *, seed: int = 0) -> dict[str, Any]:
    """Pearson r with scipy's p-value and a seeded bootstrap CI over the pairs
    (:func:`taiwa.metrics.stats.correlation`). Needs at least 3 pairs."""
    if len(x) != len(y) or len(x) < 3:
        raise ValueError(f"a correlation needs at least 3 pairs of equal length, got {len(x)}")
    c = correlation(x, y, "pearson", seed=seed)
    return {"r": c.r, "p": c.p, "n": c.n, "ci_low": c.low, "ci_high": c.high}


def summarize(
    rows: Iterable[dict[str, Any]],
    *,
    seed: int = 0,
    human_systems: Collection[str] = ("human",),
) -> dict[str, Any]:
    """Summary of per-dialogue rows (seed 003 §3).

    Per system (those with agent utterances): ``cohesive_share``, the share of its agent
    utterances judged cohesive, pooled (Table 3's 評価値; n = agent utterances);
    ``dialogue_mean``, the mean over its dialogues of each dialogue's share (n = dialogues with
    an agent utterance); ``conditions``, the pooled share for which each of (a), (b), (c) holds;
    ``n_dialogues``; and with labels ``human_rate``, precision A/B and recall A/C over the
    labelled agent utterances (§3.2) and ``n_labelled``. Every share carries a seeded 95 %
    bootstrap CI and its n. Across systems: the Pearson correlation of each dialogue's cohesive
    share with its human-labelled rate (labelled agent utterances; §3.2 reports 0.84), over all
    dialogues and without those of ``human_systems`` (§3.2: 0.50 without human–human dialogues),
    when at least 3 dialogues take part.
    """
    codes: list[int] = []  # one per agent utterance, dialogue after dialogue
    per_dialogue: list[int] = []  # agent utterances of each dialogue
    dialogues_of: dict[str, int] = {}
    system_names: list[str] = []
    n_utterances = 0
    for r in rows:  # one pass: the rows may be streamed from disk
        dialogues_of[r["system"]] = dialogues_of.get(r["system"], 0) + 1
        per_dialogue.append(_codes(r["utterances"], codes))
        system_names.append(r["system"])
        n_utterances += len(r["utterances"])
    n_rows = len(per_dialogue)
    code = np.array(codes, dtype=np.uint8)
    counts = np.array(per_dialogue, dtype=np.int64)
    owner = np.repeat(np.arange(n_rows), counts)  # the dialogue of each agent utterance

    def per(bit: int, among: int = 0) -> np.ndarray:
        """Per dialogue: agent utterances with ``bit`` (and ``among``) set."""
        hit = (code & (bit | among)) == (bit | among)
        return np.bincount(owner, weights=hit, minlength=n_rows).astype(np.int64)

    cohesive, labelled = per(_COHESIVE), per(_LABELLED)
    # per-dialogue shares as Python would divide the integer counts (correctly rounded)
    share = cohesive / np.where(counts > 0, counts, 1)
    lab_share = per(_COHESIVE, _LABELLED) / np.where(labelled > 0, labelled, 1)
    lab_rate = per(_CORRECT, _LABELLED) / np.where(labelled > 0, labelled, 1)
    order = list(dict.fromkeys(s for s, c in zip(system_names, per_dialogue, strict=True) if c))
    position = {s: k for k, s in enumerate(order)}
    system_of_row = np.array([position.get(s, -1) for s in system_names], dtype=np.int64)
    system_of_code = np.repeat(system_of_row, counts)
    systems: dict[str, Any] = {}
    # the systems' resamples on threads (NumPy draws and sums without the GIL; a core is free)
    with ThreadPoolExecutor(max(1, min(len(order), os.cpu_count() or 1))) as pool:
        entries = list(pool.map(_shares, [code[system_of_code == k] for k in range(len(order))],
                                [seed] * len(order)))  # fmt: skip
    for k, (system, entry) in enumerate(zip(order, entries, strict=True)):
        in_system = system_of_row == k
        shares = share[in_system & (counts > 0)]
        systems[system] = {
            "cohesive_share": entry.pop("cohesive_share"),
            "dialogue_mean": bootstrap_ci(shares.tolist(), seed=seed).as_dict(),
            **entry,
            "n_dialogues": dialogues_of[system],
        }
    summary: dict[str, Any] = {
        "n_dialogues": n_rows,
        "n_utterances": n_utterances,
        "n_agent_utterances": len(codes),
        "systems": systems,
    }
    with_labels = np.flatnonzero(labelled > 0)
    points = [(system_names[i], float(lab_share[i]), float(lab_rate[i])) for i in with_labels]
    excluded = list(
        dict.fromkeys([human_systems] if isinstance(human_systems, str) else human_systems)
    )
    agents_only = [p for p in points if p[0] not in set(excluded)]
    for key, pts in (("all", points), ("agents_only", agents_only)):
        if len(pts) >= 3:
            corr = pearson([p[1] for p in pts], [p[2] for p in pts], seed=seed)
            if key == "agents_only":
                corr["excluded_systems"] = excluded
            summary[f"correlation_{key}"] = corr
    return summary
