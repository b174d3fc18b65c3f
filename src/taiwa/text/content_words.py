"""Content words: lemmas of nouns, verbs and adjectives (seed 003 §2.2, DESIGN.md)."""

from __future__ import annotations

from collections.abc import Collection

from taiwa.text.tokenizer import MorphAnalyzer, Token, default_tokenizer

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
    if token.pos1 not in CONTENT_POS or token.lemma in stopwords:
        return False
    return not (token.pos1 == "名詞" and len(token.pos) > 1 and token.pos[1] == "数詞")


def content_words(
    text: str,
    *,
    analyzer: MorphAnalyzer | None = None,
    stopwords: Collection[str] = DEFAULT_STOPWORDS,
) -> list[str]:
    """The content-word lemmas of ``text`` in order (repeats kept)."""
    tok = analyzer or default_tokenizer()
    return [t.lemma for t in tok.analyze(text) if is_content(t, stopwords)]
