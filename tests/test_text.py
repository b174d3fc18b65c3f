"""The Japanese text layer: fugashi + unidic-lite tokens, lemmas, content words, NFKC."""

from __future__ import annotations

from taiwa.text import (
    FugashiTokenizer,
    MorphAnalyzer,
    Tokenizer,
    content_words,
    default_tokenizer,
    nfkc,
)
from taiwa.text.tokenizer import CHUNK_CHARS, _tagger, chunks


def test_protocols() -> None:
    tok = FugashiTokenizer()
    assert isinstance(tok, Tokenizer)
    assert isinstance(tok, MorphAnalyzer)


def test_tokenize_drops_punctuation_and_space() -> None:
    assert default_tokenizer().tokenize("今日は　晴れ。") == ["今日", "は", "晴れ"]


def test_lemma_is_orthbase_not_glossed_lemma() -> None:
    toks = default_tokenizer().analyze("タイマーをセットしておいた")
    lemmas = [t.lemma for t in toks]
    assert "タイマー" in lemmas  # UniDic `lemma` would be タイマー-timer
    assert "おく" in lemmas and "置く" not in lemmas


def test_unknown_words_fall_back_to_surface() -> None:
    toks = default_tokenizer().analyze("スマホ")
    assert toks[0].lemma == "スマホ"


def test_content_words() -> None:
    words = content_words("昨日は友達と美味しいラーメンを食べに行ってみた。3杯も食べた。")
    assert words[:3] == ["昨日", "友達", "美味しい"]
    assert "食べる" in words and "ラーメン" in words
    assert "みる" not in words  # auxiliary use is stopped
    assert "3" not in words  # numerals are not content words
    assert content_words("本を読んだ", stopwords={"本"}) == ["読む"]


def test_nfkc() -> None:
    assert nfkc("ＡＢＣ１２３ｶﾀｶﾅ") == "ABC123カタカナ"
    assert default_tokenizer().tokenize("ｶﾀｶﾅ") == ["カタカナ"]


def test_one_tagger_per_process() -> None:
    FugashiTokenizer().tokenize("一回目")
    FugashiTokenizer().tokenize("二回目")
    assert _tagger.cache_info().currsize == 1
    assert default_tokenizer() is default_tokenizer()


def test_long_texts_are_cut_at_sentence_ends() -> None:
    short = "今日は晴れ。" * 10
    assert chunks(short) == [short]
    text = ("今日は晴れ。明日は雨かもしれません\n" * 1000) + "あ" * (3 * CHUNK_CHARS)
    pieces = chunks(text)
    assert "".join(pieces) == text and all(len(p) <= CHUNK_CHARS for p in pieces)
    assert all(p.endswith(("。", "\n")) for p in pieces[:-4])
    assert [len(p) for p in pieces[-3:]] == [CHUNK_CHARS, CHUNK_CHARS, CHUNK_CHARS]


def test_chunked_analysis_matches_sentence_by_sentence() -> None:
    tok = FugashiTokenizer()
    sentence = "私は昨日東京で美味しいラーメンを食べました。"
    text = sentence * 500
    assert len(text) > CHUNK_CHARS
    assert tok.tokenize(text) == tok.tokenize(sentence) * 500
    words = tok.map_many([text], {"名詞", "動詞"}, lambda t: t.lemma)[0]
    assert words == tok.map_many([sentence], {"名詞", "動詞"}, lambda t: t.lemma)[0] * 500
