"""Settings and report of the co-occurrence miner (seed 003 §2.2).

The seed mines word association pairs from the Web Japanese N-gram corpus (about 20 billion
sentences): ``h(v)`` from the 1-grams, ``g(v, w)`` from the 7-grams, ``F`` the number of
sentences, nouns / verbs / adjectives only, pairs with λ ≥ 10000 kept and pairs containing
very frequent words dropped. λ grows linearly with the corpus, so 10000 is a web-scale
threshold: on a corpus of a few thousand to a few million sentences a pair that co-occurs
every time it occurs reaches only ``2 g log(F / g)``; the default here is 10.0 (about
p < 0.002 for one χ²₁ test). The seed names no number for "very frequent"; pick
``exclude_top_k`` and/or ``max_word_ratio`` for your corpus (both off by default).

Every field is written into ``<out>.meta.json`` so a table can always be traced to how it was
made.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from taiwa.text.content_words import DEFAULT_STOPWORDS

InputKind = Literal["text", "tokens", "ngrams"]
Engine = Literal["duckdb", "spark"]

_MEMORY = re.compile(r"^[0-9]+(\.[0-9]+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$")


MAX_COUNT = 2**63 - 1
"""The largest count taken (what the engines' 64-bit integers hold)."""


class DuckDBSettings(BaseModel):
    """The DuckDB engine: out-of-core, so a corpus larger than RAM only needs disk."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    memory_limit: str = "2GB"
    """DuckDB's ``memory_limit``; aggregations, joins and sorts beyond it spill to disk."""
    temp_directory: Path | None = None
    """Where spilled data go (default: a fresh directory beside ``out``,
    removed afterwards)."""
    threads: int | None = Field(None, ge=1, le=1_024)
    """DuckDB worker threads, and the threads that count blocks of ``text``/``tokens`` lines
    (default: one per core)."""
    workers: int = Field(1, ge=1, le=1_024)
    """Python processes that tokenise ``text`` input (fugashi is its slow part)."""

    @field_validator("memory_limit")
    @classmethod
    def _memory(cls, value: str) -> str:
        if not _MEMORY.match(value.strip()):
            raise ValueError("expected a size such as '2GB' or '512MiB'")
        return value.strip()


class SparkSettings(BaseModel):
    """The Spark engine; an active SparkSession (e.g. under ``spark-submit``) is reused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    master: str | None = Field(None, min_length=1, max_length=1_000)
    """Spark master URL; ``None`` leaves it to ``spark-submit --master`` and otherwise to
    Spark's default, ``local[*]`` (every local core)."""
    app_name: str = "taiwa-cooccurrence"
    shuffle_partitions: int | None = Field(None, ge=1)
    """``spark.sql.shuffle.partitions`` (default: Spark's, or 2 × cores for a local session)."""
    conf: dict[str, str] = Field(default_factory=dict)
    """Extra Spark configuration for a session the miner creates itself."""


class MinerConfig(BaseModel):
    """What to count and what to keep (seed 003 §2.2).

    ``input_kind``:

    * ``text``: raw Japanese, one sentence per line (plain or ``.gz``); content words are the
      lemmas of :func:`taiwa.text.content_words`. ``h(v)`` is the number of sentences (or
      windows) containing ``v``, ``g(v, w)`` the number containing both, ``F`` the number of
      sentences (or windows). Blank lines are skipped.
    * ``tokens``: the same, already tokenised: content words separated by white space, one
      sentence per line (an empty line is a sentence without content words).
    * ``ngrams``: Web 1T files (``w1 w2 ... wn<TAB>count``, plain or ``.gz``). 1-gram lines
      give ``h(v)`` (the count of content word ``v``); n-gram lines (one order n ≥ 2 for all
      files) give ``g(v, w)``: each unordered pair of distinct content words of an n-gram is
      counted once per n-gram, times its count. ``F`` (``sentences``) must be given. Tokens
      are taken as words; one is a content word when it is not a stop word or a Web 1T marker
      (``<S>``, ``</S>``, ``<UNK>``) and :func:`taiwa.text.content_words` finds a noun, verb
      or adjective in it (decided once per distinct token).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_kind: InputKind = "text"
    window: int | None = Field(None, ge=2, le=MAX_COUNT)
    """``text``/``tokens``: ``None`` counts whole sentences; ``k`` counts every window of
    ``k`` consecutive content words (a sentence with at most ``k`` is one window). ``7``
    mirrors the seed's 7-grams."""
    sentences: int | None = Field(None, ge=1, le=MAX_COUNT)
    """``F`` for ``ngrams`` (the corpus' sentence count; required there, computed otherwise)."""
    llr_threshold: float = Field(10.0, ge=0, le=1e12, allow_inf_nan=False)
    """Keep pairs with λ ≥ this (the seed: 10000 at web scale; see the module docstring)."""
    min_pair_count: int = Field(2, ge=1, le=MAX_COUNT)
    """Keep pairs with ``g ≥`` this."""
    min_word_count: int = Field(1, ge=1, le=MAX_COUNT)
    """Drop pairs with a word whose ``h <`` this."""
    exclude_top_k: int | None = Field(None, ge=1, le=MAX_COUNT)
    """Drop pairs containing one of the ``k`` words with the largest ``h`` (ties by word)."""
    max_word_ratio: float | None = Field(None, gt=0, le=1)
    """Drop pairs containing a word with ``h / F >`` this."""
    positive_only: bool = True
    """Keep only pairs seen more often than independence predicts (``g F > h_v h_w``): λ is
    two-sided and a large λ can also mean two words avoid each other."""
    infeasible: Literal["clip", "drop"] = "clip"
    """``ngrams`` only: overlapping n-grams count one co-occurrence up to n−1 times, so ``g``
    can exceed ``h``; ``clip`` scores such a pair with ``g`` bounded to the feasible range
    ``[h_v + h_w − F, min(h_v, h_w)]`` (the table keeps the raw ``g``), ``drop`` skips it.
    Pairs with ``h > F`` are always skipped."""
    stopwords: tuple[str, ...] | None = None
    """Lemmas never counted (default: :data:`taiwa.text.DEFAULT_STOPWORDS`)."""
    check_content: bool = True
    """``ngrams``: check tokens with the analyzer; ``False`` takes every non-stop token."""
    chunk_lines: int = Field(20_000, ge=1)
    """Lines per batch: tokenised together (DuckDB, ``text``) or counted before the counts go
    to the shuffle (Spark); bounds Python's memory."""
    duckdb: DuckDBSettings = Field(default_factory=DuckDBSettings)
    spark: SparkSettings = Field(default_factory=SparkSettings)

    @model_validator(mode="after")
    def _kind_fields(self) -> MinerConfig:
        if self.input_kind == "ngrams":
            if self.sentences is None:
                raise ValueError("ngrams input needs 'sentences' (F, the corpus' sentence count)")
            if self.window is not None:
                raise ValueError("'window' is for text/tokens input; n-grams are the windows")
        elif self.sentences is not None:
            raise ValueError("'sentences' is only for ngrams input; F is counted from the text")
        return self

    def stopword_set(self) -> frozenset[str]:
        """The stop words in force."""
        return DEFAULT_STOPWORDS if self.stopwords is None else frozenset(self.stopwords)


class MiningCounts(BaseModel):
    """How many of each thing the miner saw and kept (identical for both engines)."""

    lines: int = 0
    """Input lines counted (text: non-blank; tokens: all; ngrams: all non-blank)."""
    units: int = 0
    """text/tokens: sentences or windows (= ``F``)."""
    tokens: int = 0
    """text/tokens: content-word tokens."""
    unigram_lines: int = 0
    ngram_lines: int = 0
    ngram_order: int | None = None
    words: int = 0
    """Distinct content words with ``h ≥ 1``."""
    words_frequent: int = 0
    """Words excluded as very frequent."""
    words_kept: int = 0
    pairs: int = 0
    """Distinct pairs with ``g ≥ 1``."""
    pairs_candidate: int = 0
    """Pairs of kept words with ``g ≥ min_pair_count``."""
    pairs_infeasible: int = 0
    pairs_clipped: int = 0
    pairs_negative: int = 0
    """Feasible candidates with ``g F ≤ h_v h_w`` (dropped when ``positive_only``)."""
    pairs_out: int = 0


class MiningReport(BaseModel):
    """What :func:`taiwa.resources.cooccurrence.mine_cooccurrence` did."""

    out: Path
    meta: Path
    engine: Engine
    engine_version: str
    F: int
    counts: MiningCounts
    seconds: float
    config: MinerConfig
