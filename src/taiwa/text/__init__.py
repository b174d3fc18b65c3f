"""Japanese text: NFKC normalisation, the tokenizer protocol and content words."""

from taiwa.text.content_words import DEFAULT_STOPWORDS, content_words
from taiwa.text.normalize import nfkc
from taiwa.text.tokenizer import (
    FugashiTokenizer,
    MorphAnalyzer,
    Token,
    Tokenizer,
    default_tokenizer,
)

__all__ = [
    "DEFAULT_STOPWORDS",
    "FugashiTokenizer",
    "MorphAnalyzer",
    "Token",
    "Tokenizer",
    "content_words",
    "default_tokenizer",
    "nfkc",
]
