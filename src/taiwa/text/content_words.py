"""Content words: lemmas of nouns, verbs and adjectives (seed 003 §2.2, DESIGN.md)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator, Sequence
from contextlib import closing
from functools import cache
from typing import TYPE_CHECKING, TypeVar

from taiwa.text.tokenizer import FugashiTokenizer, MorphAnalyzer, Token, default_tokenizer

if TYPE_CHECKING:
    from taiwa.text.tagging_worker import TaggingWorker

T = TypeVar("T")

CONTENT_POS = frozenset({"名詞", "動詞", "形容詞"})

DEFAULT_STOPWORDS = frozenset(
    {
        # light and auxiliary verbs (UniDic 非自立可能 in their grammatical use)
        "する",
        "ある",
        "いる",
        "なる",
        "おく",
        "みる",
        "くる",
        "いく",
        "しまう",
        "もらう",
        "くれる",
        "あげる",
        "いう",
        "できる",
        "れる",
        "られる",
        "せる",
        "させる",
        "ない",
        "よい",
        "いい",
        # formal nouns
        "こと",
        "もの",
        "よう",
        "ため",
        "の",
        "ん",
        "ところ",
        "わけ",
        "はず",
        "とき",
        "方",
    }
)
"""Lemmas that are grammatical rather than contentful; pass your own set to change it."""


def is_content(token: Token, stopwords: Collection[str] = DEFAULT_STOPWORDS) -> bool:
    """Whether ``token`` is a content word: noun (not a numeral), verb or adjective, not stopped."""
    pos = token.pos
    if not pos or pos[0] not in CONTENT_POS or token.lemma in stopwords:
        return False
    return not (pos[0] == "名詞" and len(pos) > 1 and pos[1] == "数詞")


def content_words(
    text: str,
    *,
    analyzer: MorphAnalyzer | None = None,
    stopwords: Collection[str] = DEFAULT_STOPWORDS,
) -> list[str]:
    """The content-word lemmas of ``text`` in order (repeats kept)."""
    tok = analyzer or default_tokenizer()
    return [t.lemma for t in tok.analyze(text) if is_content(t, stopwords)]


def content_tokens_many(
    texts: Sequence[str],
    *,
    analyzer: MorphAnalyzer | None = None,
    stopwords: Collection[str] = DEFAULT_STOPWORDS,
) -> list[list[Token]]:
    """The content-word tokens of each text, in order (seed 003 §2.2): ``is_content`` applied
    to ``analyze(text)``, in one call per dialogue when the analyzer has ``map_many`` (the
    default one, which never builds tokens for the other parts of speech)."""
    return content_many(texts, content_filter(frozenset(stopwords)), analyzer=analyzer)


def content_many(
    texts: Sequence[str],
    fn: Callable[[Token], T | None],
    *,
    analyzer: MorphAnalyzer | None = None,
) -> list[list[T]]:
    """For each text, ``fn(token)`` of its nouns, verbs and adjectives, leaving out ``None``.
    ``fn`` must be pure (the default analyzer keeps its results per distinct morpheme); pass
    the same function object each time, e.g. one made by :func:`content_filter`."""
    tok = analyzer or default_tokenizer()
    many = getattr(tok, "map_many", None)
    if many is not None:
        mapped: list[list[T]] = many(texts, CONTENT_POS, fn)
        return mapped
    return [
        [y for t in tok.analyze(text) if t.pos1 in CONTENT_POS and (y := fn(t)) is not None]
        for text in texts
    ]


WORKER_MIN_TEXTS = 8_192
"""Texts from which :func:`content_blocks` starts a worker process of its own when it is handed
none: below, its start-up (a fresh interpreter loading the dictionary, about 0.1 s of the
other core) is not repaid."""


def content_blocks(
    blocks: Sequence[Sequence[str]],
    fn: Callable[[Token], T | None],
    *,
    analyzer: MorphAnalyzer | None = None,
    worker: TaggingWorker | None = None,
    worker_min_texts: int | None = None,
) -> Generator[list[list[T]], None, None]:
    """:func:`content_many` of each block of texts, in order. With the default analyzer (a plain
    :class:`~taiwa.text.tokenizer.FugashiTokenizer`), MeCab's work is shared with a second
    process (:meth:`~taiwa.text.tagging_worker.TaggingWorker.share`: it tags blocks from the
    front, this process from the back whenever it would wait): ``worker`` when one is handed in
    (a run's, :class:`~taiwa.text.tagging_worker.RunTagger`), else one started for these blocks
    from ``worker_min_texts`` texts (default :data:`WORKER_MIN_TEXTS`) and stopped when the
    iterator ends or is closed. The results are the same either way (the worker returns
    MeCab's lines, made into ``fn``'s results here, through the same per-line caches)."""
    tok = analyzer or default_tokenizer()
    if type(tok) is not FugashiTokenizer or len(blocks) < 2:  # a subclass may tag its own way;
        # one block: nothing to tag beside it
        yield from (content_many(block, fn, analyzer=tok) for block in blocks)
        return
    texts = [list(b) for b in blocks]
    if worker is not None and worker.pos1 == CONTENT_POS and worker.normalize == tok.normalize:
        with closing(worker.share(texts)) as shared:  # leaving early stops the worker
            for lines in shared:
                yield tok.map_found(lines, fn)
        return
    if sum(map(len, blocks)) < (WORKER_MIN_TEXTS if worker_min_texts is None else worker_min_texts):
        yield from (content_many(block, fn, analyzer=tok) for block in blocks)
        return
    from taiwa.text.tagging_worker import TaggingWorker

    with TaggingWorker(CONTENT_POS, tok.normalize) as own, closing(own.share(texts)) as shared:
        for lines in shared:
            yield tok.map_found(lines, fn)


@cache
def content_filter(
    stopwords: frozenset[str] = DEFAULT_STOPWORDS,
) -> Callable[[Token], Token | None]:
    """The token itself if it is a content word (``is_content`` with ``stopwords``), else None."""

    def keep(token: Token) -> Token | None:
        return token if is_content(token, stopwords) else None

    return keep
