"""Features of a (context, reply) pair for the default dialogue-act classifier.

Blocks of one feature row (see :class:`FeatureSettings` for the sizes):

1. the reply's character 1–3-grams (NFKC, with start/end marks), hashed (CRC-32) into
   ``2**reply_bits`` columns, TF-IDF weighted (sublinear tf, smoothed idf), L2-normalised;
2. the context's (previous utterance's) character 1–3-grams in a separate hash space of
   ``2**context_bits`` columns, weighted and normalised the same way, scaled by
   ``context_scale``;
3. the mean ja-ginza word vector of the reply's words (punctuation left out; looked up by
   normalised form, then lemma, as cohesion does), L2-normalised, scaled by ``vector_scale``;
   zeros when no word has a vector, or when the settings leave the vectors out;
4. overlap and shape features (:data:`EXTRA_NAMES`): exact repeat, repeat up to trailing
   punctuation and lengthening marks, the reply (so trimmed) found inside the context, the
   share of the reply's characters / bigrams found in the context, the share of the context's
   bigrams found in the reply, a question mark at the end, length, empty reply. These make an
   echo (``builtin:parrot``, or a piece of the context + ？) come out as うなずき・おうむ返し;
5. optional (``use_position``): where the utterance stands in its turn (:data:`POSITION_NAMES`:
   only / first / middle / last sentence, log of the number of sentences), for taxonomies
   tagged sentence by sentence (seed 000 §3.2: a reply is a sequence of acts);
6. optional (``use_endings``): the sentence-final form apart from its closing punctuation
   and of the context (:mod:`.da_sentence_endings`), hashed into ``2**ending_bits`` columns
   scaled by ``ending_scale``: 〜ますか？, 〜ますか。 and an unpunctuated 〜ますか share their
   ending; with ``ending_cross``, also those endings and the sentence's position joined with
   how the context ends (:func:`~taiwa.annotators.da_classifier.endings.cross_keys`).
7. optional (``word_bits``, issue 26): the reply's morpheme keys (bag, last, last two, first;
   :mod:`.da_morph_features`) hashed into ``2**word_bits`` columns, binary, L2-normalised,
   scaled by ``word_scale``;
8. optional (``casual``, issue 26): the n-grams of blocks 1–2 and the morphemes are read from
   the casual core (:func:`~taiwa.annotators.da_classifier.chat_text.casual_form`: laughter,
   lengthening,
   fillers and punctuation normalised away), and the shape flags it returns (question,
   exclamation, period, ellipsis, laughter, filler, lengthening) plus ``opening`` (no previous
   utterance) are a block of their own;
9. optional (``prev_acts``, issue 26): the probabilities of the previous utterance's act, one
   column per act, scaled by ``prev_scale``, given by the caller (``prev``; the shipped model
   gets them from its context tagger, :mod:`.da_previous_act`); zeros for an opening.

The hash is CRC-32 of the UTF-8 n-gram (not Python's ``hash``, which changes between
processes), so the same text gives the same columns everywhere. The idf vectors are fitted
on the training texts and shipped with the model.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from taiwa.annotators.da_classifier.chat_text import SHAPE_NAMES, casual_form
from taiwa.annotators.da_classifier.endings import ending_columns, position_class
from taiwa.annotators.da_classifier.morphs import analysed, vectors_of, word_columns
from taiwa.text.normalize import nfkc

EXTRA_NAMES = (
    "exact_repeat",
    "trimmed_repeat",
    "reply_inside_context",
    "reply_chars_in_context",
    "reply_bigrams_in_context",
    "context_bigrams_in_reply",
    "ends_with_question",
    "log_length",
    "empty_reply",
)

POSITION_NAMES = ("only", "first", "middle", "last", "log_sentences")

Position = tuple[int, int]
"""``(index, count)`` of a sentence in its turn."""

_TRAIL = re.compile(r"[\s。、．，.,!！?？…‥～〜ー~wｗ笑)）」』♪☆★]+$")
_START, _END = "\x02", "\x03"


@dataclass(frozen=True)
class FeatureSettings:
    """Sizes and scales of the feature blocks (recorded in the model's JSON sidecar)."""

    reply_bits: int = 16
    context_bits: int = 14
    ngram_max: int = 3
    min_df: int = 2
    context_scale: float = 0.5
    vector_dim: int = 300
    vector_scale: float = 1.0
    use_vectors: bool = True
    use_context: bool = True
    use_extras: bool = True
    use_position: bool = False
    use_endings: bool = False
    ending_bits: int = 10
    ending_scale: float = 1.0
    ending_cross: bool = False
    casual: bool = False
    word_bits: int = 0
    word_scale: float = 1.0
    prev_acts: int = 0
    prev_scale: float = 1.0

    @property
    def n_reply(self) -> int:
        return 1 << self.reply_bits

    @property
    def n_context(self) -> int:
        return 1 << self.context_bits

    @property
    def n_words(self) -> int:
        return 1 << self.word_bits if self.word_bits else 0

    @property
    def n_shape(self) -> int:
        return len(SHAPE_NAMES) + 1 if self.casual else 0

    @property
    def off_words(self) -> int:
        n = self.n_reply + self.n_context + self.vector_dim + len(EXTRA_NAMES)
        n += len(POSITION_NAMES) if self.use_position else 0
        return n + ((1 << self.ending_bits) if self.use_endings else 0)

    @property
    def off_prev(self) -> int:
        return self.off_words + self.n_words + self.n_shape

    @property
    def n_features(self) -> int:
        return self.off_prev + self.prev_acts

    def ngram_text(self, text: str) -> str:
        """The text the character n-grams are read from (the casual core, or the text)."""
        return casual_form(text)[0] if self.casual else text

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def char_ngrams(text: str, ngram_max: int = 3) -> list[str]:
    """Character 1..``ngram_max``-grams of the NFKC text, with start/end marks on the longer
    ones (a one-character text still gets its marked bigrams)."""
    s = nfkc(text).strip()
    marked = _START + s + _END
    grams = list(s)
    for n in range(2, ngram_max + 1):
        grams += [marked[i : i + n] for i in range(len(marked) - n + 1)]
    return grams


def hashed_counts(text: str, bits: int, ngram_max: int) -> dict[int, int]:
    """Column → count of the text's hashed character n-grams."""
    mask = (1 << bits) - 1
    out: dict[int, int] = {}
    crc = zlib.crc32
    for g in char_ngrams(text, ngram_max):
        col = crc(g.encode("utf-8")) & mask
        out[col] = out.get(col, 0) + 1
    return out


def fit_idf(docs: Sequence[dict[int, int]], size: int, min_df: int = 1) -> np.ndarray:
    """Smoothed idf ``log((1 + n) / (1 + df)) + 1`` per column (float64); 0 for columns in
    fewer than ``min_df`` documents (those n-grams, and any never seen, are left out)."""
    df = np.zeros(size, dtype=np.float64)
    for d in docs:
        df[list(d)] += 1.0
    idf = np.log((1.0 + len(docs)) / (1.0 + df)) + 1.0
    idf[df < max(min_df, 1)] = 0.0
    return idf


def position_features(index: int, count: int) -> list[float]:
    """The values of :data:`POSITION_NAMES` for sentence ``index`` of ``count``."""
    only = count <= 1
    return [
        float(only),
        float(not only and index == 0),
        float(not only and 0 < index < count - 1),
        float(not only and index == count - 1),
        math.log(max(count, 1)),
    ]


def _trim(text: str) -> str:
    return _TRAIL.sub("", text)


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)}


def extra_features(context: str, reply: str) -> list[float]:
    """The values of :data:`EXTRA_NAMES` for one pair."""
    c, r = nfkc(context).strip(), nfkc(reply).strip()
    tc, tr = _trim(c), _trim(r)
    chars_r = set(r) - {" "}
    big_r, big_c = _bigrams(r), _bigrams(c)
    return [
        float(bool(r) and r == c),
        float(bool(tr) and tr == tc),
        float(bool(tr) and tr in c),
        len(chars_r & set(c)) / len(chars_r) if chars_r else 0.0,
        len(big_r & big_c) / len(big_r) if big_r else 0.0,
        len(big_c & big_r) / len(big_c) if big_c else 0.0,
        float(r.endswith(("?", "？"))),
        math.log1p(len(r)) / 5.0,
        float(not tr),
    ]


class Featurizer:
    """Turns (context, reply) pairs into a CSR matrix with the fitted idf vectors."""

    def __init__(
        self, settings: FeatureSettings, idf_reply: np.ndarray, idf_context: np.ndarray
    ) -> None:
        self.settings = settings
        self.idf_reply = np.asarray(idf_reply, dtype=np.float64)
        self.idf_context = np.asarray(idf_context, dtype=np.float64)
        self._idf_reply = self.idf_reply.tolist()  # list look-ups: faster per n-gram
        self._idf_context = self.idf_context.tolist()

    @classmethod
    def fit(
        cls, settings: FeatureSettings, contexts: Sequence[str], replies: Sequence[str]
    ) -> Featurizer:
        s = settings
        idf_r = fit_idf(
            [hashed_counts(s.ngram_text(t), s.reply_bits, s.ngram_max) for t in replies],
            s.n_reply,
            s.min_df,
        )
        idf_c = fit_idf(
            [hashed_counts(s.ngram_text(t), s.context_bits, s.ngram_max) for t in contexts],
            s.n_context,
            s.min_df,
        )
        return cls(settings, idf_r, idf_c)

    def transform(
        self,
        contexts: Sequence[str],
        replies: Sequence[str],
        positions: Sequence[Position] | None = None,
        prev: Any = None,
    ) -> Any:
        """The CSR feature matrix (float64) of the pairs (``positions``: required when the
        settings use them; ``prev``: ``n × prev_acts`` previous-act probabilities, required
        when the settings use them)."""
        import scipy.sparse as sp

        s = self.settings
        if len(contexts) != len(replies):
            raise ValueError("contexts and replies differ in length")
        if s.use_position and (positions is None or len(positions) != len(replies)):
            raise ValueError("positions: one (index, count) per reply expected")
        if s.prev_acts and (prev is None or np.shape(prev) != (len(replies), s.prev_acts)):
            raise ValueError(f"prev: {s.prev_acts} previous-act probabilities per reply expected")
        off_p = s.n_reply + s.n_context + s.vector_dim + len(EXTRA_NAMES)
        off_e = off_p + (len(POSITION_NAMES) if s.use_position else 0)
        n = len(replies)
        indptr = [0]
        indices: list[int] = []
        data: list[float] = []
        off_c = s.n_reply
        off_x = s.n_reply + s.n_context + s.vector_dim
        idf_r, idf_c = self._idf_reply, self._idf_context
        texts = [s.ngram_text(r) for r in replies]
        words = analysed(texts) if n and (s.use_vectors or s.word_bits) else []
        for k, (ctx, rep) in enumerate(zip(contexts, replies, strict=True)):
            counts = hashed_counts(texts[k], s.reply_bits, s.ngram_max)
            _add_tfidf(indices, data, counts, idf_r, 0, 1.0)
            if s.use_context:
                counts = hashed_counts(s.ngram_text(ctx), s.context_bits, s.ngram_max)
                _add_tfidf(indices, data, counts, idf_c, off_c, s.context_scale)
            if s.use_extras:
                _add_values(indices, data, off_x, extra_features(ctx, rep))
            if s.use_position and positions is not None:
                _add_values(indices, data, off_p, position_features(*positions[k]))
            if s.use_endings:
                place = position_class(*positions[k]) if s.ending_cross and positions else None
                for col, v in sorted(
                    ending_columns(rep, ctx, s.ending_bits, s.ending_scale, place).items()
                ):
                    indices.append(off_e + col)
                    data.append(v)
            if s.word_bits:
                cols = word_columns(words[k], s.word_bits)
                indices.extend(s.off_words + c for c in cols)
                data.extend([s.word_scale / math.sqrt(len(cols))] * len(cols))
            if s.casual:
                shape = [*casual_form(rep)[1], float(not ctx.strip())]
                _add_values(indices, data, s.off_words + s.n_words, shape)
            if s.prev_acts:
                _add_values(indices, data, s.off_prev, [s.prev_scale * float(v) for v in prev[k]])
            indptr.append(len(indices))
        x = sp.csr_matrix(
            (np.array(data, dtype=np.float64), np.array(indices, dtype=np.int64), indptr),
            shape=(n, s.n_features),
        )
        if s.use_vectors and n:
            dense = vectors_of(words) * s.vector_scale
            off_v = s.n_reply + s.n_context
            vcols = np.arange(off_v, off_v + s.vector_dim)
            vec = sp.csr_matrix(
                (
                    dense.ravel(),
                    np.tile(vcols, n),
                    np.arange(0, (n + 1) * s.vector_dim, s.vector_dim),
                ),
                shape=(n, s.n_features),
            )
            x = (x + vec).tocsr()
        return x


def _add_values(indices: list[int], data: list[float], offset: int, values: list[float]) -> None:
    for j, v in enumerate(values):
        if v:
            indices.append(offset + j)
            data.append(v)


def _add_tfidf(
    indices: list[int],
    data: list[float],
    counts: dict[int, int],
    idf: list[float],
    offset: int,
    scale: float,
) -> None:
    cols = sorted(c for c in counts if idf[c])
    if not cols:
        return
    vals = [(1.0 + math.log(counts[c])) * idf[c] for c in cols]
    norm = math.sqrt(sum(v * v for v in vals))
    k = scale / norm
    indices.extend(offset + c for c in cols)
    data.extend(v * k for v in vals)
