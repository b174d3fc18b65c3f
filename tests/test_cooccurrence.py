"""The co-occurrence miner (seed 003 §2.2): counts, λ, filters, errors, and both engines."""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from pydantic import ValidationError

from taiwa.core.errors import InputError, TaiwaError
from taiwa.resources import (
    AssociationPairs,
    DuckDBSettings,
    MinerConfig,
    SparkSettings,
    llr,
    meta_path,
    mine_cooccurrence,
)
from taiwa.text import content_words

NOUNS = [
    "天気", "電車", "学校", "先生", "猫", "犬", "料理", "音楽", "映画", "公園",
    "海", "山", "友達", "会社", "仕事", "旅行", "写真", "野菜", "果物", "時計",
]  # fmt: skip

ALL_PAIRS = {"llr_threshold": 0.0, "min_pair_count": 1, "positive_only": False}


def synthetic_corpus(n: int = 3000, seed: int = 0) -> list[str]:
    """Sentences of three random nouns; 地震 and 津波 planted together in every tenth one."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        words = rng.sample(NOUNS, 3)
        if i % 10 == 0:
            words += ["地震", "津波"]
        elif i % 37 == 0:
            words.append("地震")
        elif i % 41 == 0:
            words.append("津波")
        rng.shuffle(words)
        lines.append("と".join(words) + "の話をした。")
    return lines


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n".join(synthetic_corpus()) + "\n", encoding="utf-8")
    return path


def rows(path: Path) -> list[dict[str, Any]]:
    return list(pq.read_table(path).to_pylist())


def assert_same_table(a: Path, b: Path) -> None:
    ta, tb = pq.read_table(a), pq.read_table(b)
    assert ta.schema.equals(tb.schema)
    ra, rb = ta.to_pylist(), tb.to_pylist()
    assert [(r["w1"], r["w2"], r["g"]) for r in ra] == [(r["w1"], r["w2"], r["g"]) for r in rb]
    for x, y in zip(ra, rb, strict=True):
        assert x["llr"] == pytest.approx(y["llr"], rel=1e-9)


def oracle(sentences: list[list[str]], config: MinerConfig) -> dict[tuple[str, str], float]:
    """The table by brute force: sentence sets, Python counters, :func:`llr`, the filters."""
    h: Counter[str] = Counter()
    g: Counter[tuple[str, str]] = Counter()
    for words in sentences:
        distinct = sorted(set(words))
        h.update(distinct)
        g.update(combinations(distinct, 2))
    F = len(sentences)
    out = {}
    for (v, w), count in g.items():
        value = llr(count, h[v], h[w], F)
        positive = count * F > h[v] * h[w]
        strong = count >= config.min_pair_count and value >= config.llr_threshold
        if strong and (positive or not config.positive_only):
            out[(v, w)] = value
    return out


# ---------------------------------------------------------------------------- DuckDB, text


def test_planted_pair_found_and_random_pair_not(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "pairs.parquet"
    report = mine_cooccurrence(corpus_file, out, MinerConfig())
    assert report.F == 3000 and report.counts.units == 3000 and report.engine == "duckdb"
    pairs = AssociationPairs(out)
    assert pairs.associated("津波", "地震") and pairs.associated("地震", "津波")
    assert (pairs.llr("地震", "津波") or 0) > 500
    assert not pairs.associated("猫", "公園") and pairs.llr("猫", "公園") is None
    assert len(pairs) == report.counts.pairs_out
    assert pairs.partners("地震") >= {"津波"}
    # The whole table equals a brute-force count with the same tokenizer.
    sentences = [content_words(line) for line in synthetic_corpus()]
    expected = oracle(sentences, MinerConfig())
    table = {(r["w1"], r["w2"]): r["llr"] for r in rows(out)}
    assert table.keys() == expected.keys()
    for key, value in expected.items():
        assert table[key] == pytest.approx(value, rel=1e-12)
    everything = oracle(sentences, MinerConfig(**ALL_PAIRS))
    assert everything[("公園", "猫")] < 10  # a random pair is far below the planted one


def test_table_layout_and_metadata(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub" / "pairs.parquet"
    config = MinerConfig(**ALL_PAIRS)
    report = mine_cooccurrence([corpus_file], out, config)
    table = pq.read_table(out)
    assert table.column_names == ["w1", "w2", "g", "llr"]
    assert [str(t) for t in table.schema.types] == ["string", "string", "int64", "double"]
    keys = [(r["w1"], r["w2"]) for r in table.to_pylist()]
    assert keys == sorted(keys) and all(a < b for a, b in keys)
    meta = json.loads(meta_path(out).read_text(encoding="utf-8"))
    assert meta["engine"] == "duckdb" and meta["F"] == 3000
    assert meta["config"]["llr_threshold"] == 0.0 and "する" in meta["config"]["stopwords"]
    assert meta["counts"]["pairs_out"] == report.counts.pairs_out == len(keys)
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name, meta_path(out).name]


def test_window_counts(tmp_path: Path) -> None:
    src = tmp_path / "tokens.txt"
    src.write_text("春 夏 秋 冬\n春 夏\n\n", encoding="utf-8")
    out = tmp_path / "w.parquet"
    config = MinerConfig(input_kind="tokens", window=2, **ALL_PAIRS)
    report = mine_cooccurrence(src, out, config)
    # windows: [春 夏] [夏 秋] [秋 冬] | [春 夏] | [] -> F = 5
    assert report.F == 5 and report.counts.tokens == 6
    got = {(r["w1"], r["w2"]): r["g"] for r in rows(out)}
    assert got == {("夏", "春"): 2, ("夏", "秋"): 1, ("冬", "秋"): 1}
    assert AssociationPairs(out).llr("春", "夏") == pytest.approx(llr(2, 2, 3, 5))


def messy_token_lines(n: int = 400, seed: int = 1) -> list[str]:
    """Token lines with every kind of white space str.split() knows, stop words and blanks."""
    rng = random.Random(seed)
    spaces = [" ", "  ", "\t", "\u3000", "\xa0", "\u2003", "\x1f", " \r "]
    lines = []
    for i in range(n):
        words = rng.sample([*NOUNS, "する", "こと"], rng.randint(0, 6))
        line = "".join(w + rng.choice(spaces) for w in words)
        lines.append(rng.choice(["", " "]) + line if i % 7 else "")
    return [*lines, "猫 犬"]  # the last line is not blank: files may end without a newline


def windows(words: list[str], k: int | None) -> list[list[str]]:
    if k is None or len(words) <= k:
        return [words]
    return [words[i : i + k] for i in range(len(words) - k + 1)]


@pytest.mark.parametrize("window", [None, 3])
def test_tokens_input_splits_like_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int | None
) -> None:
    """Blocks, Unicode white space, CRLF, stop words and .gz read exactly like str.split()."""
    import taiwa.resources.cooccurrence.duckdb_text as native

    monkeypatch.setattr(native, "BLOCK_BYTES", 256)  # many blocks, lines cut at block ends
    lines = messy_token_lines()
    plain, packed = tmp_path / "a.tokens", tmp_path / "b.tokens.gz"
    plain.write_bytes("\r\n".join(lines[:200]).encode() + b"\r\n")
    with gzip.open(packed, "wb") as fh:
        fh.write("\n".join(lines[200:]).encode())  # no final newline
    config = MinerConfig(input_kind="tokens", window=window, **ALL_PAIRS)
    report = mine_cooccurrence([plain, packed], tmp_path / "t.parquet", config)
    stop = config.stopword_set()
    found = [[w for w in line.split() if w not in stop] for line in lines]
    units = [u for f in found for u in windows(f, window)]
    assert report.counts.lines == len(lines) and len(units) == report.F
    assert report.counts.tokens == sum(map(len, found))
    expected = oracle(units, config)
    table = {(r["w1"], r["w2"]): r["llr"] for r in rows(tmp_path / "t.parquet")}
    assert table.keys() == expected.keys() and len(table) > 50
    for key, value in expected.items():
        assert table[key] == pytest.approx(value, rel=1e-12)


def test_tokens_utf8_error_names_the_line_across_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import taiwa.resources.cooccurrence.duckdb_text as native

    monkeypatch.setattr(native, "BLOCK_BYTES", 100)
    src = tmp_path / "bad.tokens"
    src.write_bytes("猫 犬 天気\n".encode() * 40 + "猫 ".encode() + b"\xe3\x81 x\n" + b"a b\n")
    with pytest.raises(InputError) as info:
        mine_cooccurrence(src, tmp_path / "x.parquet", MinerConfig(input_kind="tokens"))
    assert info.value.line == 41 and "column 5" in str(info.value)  # byte column
    assert not (tmp_path / "x.parquet").exists()


def test_out_of_core_under_a_small_memory_limit(tmp_path: Path) -> None:
    """A corpus whose working set exceeds memory_limit spills to disk and gives the same table."""
    rng = random.Random(3)
    vocab = [f"語{i}" for i in range(20_000)]
    src = tmp_path / "big.tokens"
    with src.open("w", encoding="utf-8") as fh:
        for _ in range(150_000):
            fh.write(" ".join(rng.sample(vocab, 8)) + "\n")
    config = MinerConfig(input_kind="tokens", llr_threshold=0.0)
    roomy = mine_cooccurrence(src, tmp_path / "roomy.parquet", config)
    tight = MinerConfig(
        input_kind="tokens",
        llr_threshold=0.0,
        duckdb=DuckDBSettings(memory_limit="40MB", threads=1, temp_directory=tmp_path / "spill"),
    )
    small = mine_cooccurrence(src, tmp_path / "small.parquet", tight)
    assert roomy.counts == small.counts and roomy.counts.pairs > 4_000_000
    assert_same_table(tmp_path / "roomy.parquet", tmp_path / "small.parquet")
    starved = tight.model_copy(update={"duckdb": DuckDBSettings(memory_limit="1MB")})
    with pytest.raises(TaiwaError, match="memory_limit=1MB"):
        mine_cooccurrence(src, tmp_path / "x.parquet", starved)
    assert not (tmp_path / "x.parquet").exists()


def test_counting_threads_give_the_table_of_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks counted by several threads (words first seen in any order, sums partly handed to
    DuckDB) and SciPy's public product give the counts and table of one thread."""
    import taiwa.resources.cooccurrence.duckdb_text as native
    import taiwa.resources.cooccurrence.incidence as incidence

    monkeypatch.setattr(native, "BLOCK_BYTES", 2048)  # about 100 blocks
    rng = random.Random(5)
    vocab = [f"語{i}" for i in range(3000)]
    src = tmp_path / "c.tokens"
    lines = (" ".join(rng.sample(vocab, rng.randint(1, 9))) for _ in range(30_000))
    src.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    flushed = []
    flush = incidence.PairSums._flush
    monkeypatch.setattr(incidence.PairSums, "_flush", lambda self: flushed.append(1) or flush(self))

    def mine(name: str, threads: int, memory: str) -> Any:
        duck = DuckDBSettings(threads=threads, memory_limit=memory, temp_directory=tmp_path)
        config = MinerConfig(input_kind="tokens", duckdb=duck, **ALL_PAIRS)
        return mine_cooccurrence(src, tmp_path / name, config).counts

    one = mine("one.parquet", 1, "1GB")
    assert not flushed and one.pairs > 100_000
    monkeypatch.setattr(incidence, "ENTRY_BYTES", 1000)  # the budget holds 64,000 pairs
    many = mine("many.parquet", 3, "256MB")
    assert len(flushed) > 1  # the sums went beyond a quarter of memory_limit
    monkeypatch.setattr(incidence, "ENTRY_BYTES", 16)
    monkeypatch.setattr(incidence, "DIRECT_PRODUCT_ENTRIES", 0)
    public = mine("public.parquet", 2, "1GB")
    assert one == many == public
    table = pq.read_table(tmp_path / "one.parquet")
    assert table.num_rows == one.pairs_out > 100_000
    assert table.equals(pq.read_table(tmp_path / "many.parquet"))  # the same values, bit for bit
    assert table.equals(pq.read_table(tmp_path / "public.parquet"))


def test_frequent_words_excluded(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "top.parquet"
    report = mine_cooccurrence(corpus_file, out, MinerConfig(exclude_top_k=1, **ALL_PAIRS))
    # 話 is in every sentence: the most frequent word, gone from every pair.
    assert report.counts.words_frequent == 1
    assert not any("話" in (r["w1"], r["w2"]) for r in rows(out))
    report = mine_cooccurrence(corpus_file, out, MinerConfig(max_word_ratio=0.5, **ALL_PAIRS))
    assert report.counts.words_frequent == 1
    assert any(r["w1"] == "地震" for r in rows(out))


def test_parallel_workers_give_the_same_table(corpus_file: Path, tmp_path: Path) -> None:
    one, two = tmp_path / "one.parquet", tmp_path / "two.parquet"
    mine_cooccurrence(corpus_file, one, MinerConfig(chunk_lines=500))
    config = MinerConfig(chunk_lines=500, duckdb=DuckDBSettings(workers=2, memory_limit="256MB"))
    mine_cooccurrence(corpus_file, two, config)
    assert_same_table(one, two)


# ---------------------------------------------------------------------------- n-grams

CONTENT = {"地震", "津波", "被害", "警報", "発生"}
UNIGRAMS = [
    ("地震", 1000), ("津波", 800), ("被害", 500), ("警報", 300), ("発生", 400),
    ("の", 100000), ("が", 90000), ("と", 50000), ("<S>", 9000), ("</S>", 9000),
]  # fmt: skip
SEVENGRAMS = [
    ("<S> 地震 が 発生 と 津波 の", 100),
    ("地震 と 津波 の 被害 が 発生", 60),
    ("津波 の 警報 が 発生 と 地震", 40),
    ("被害 の 被害 が 警報 と 警報", 30),
    ("の が の と が の </S>", 500),
]


def write_web1t(root: Path) -> list[Path]:
    (root / "1gms").mkdir(parents=True)
    (root / "7gms").mkdir()
    vocab = root / "1gms" / "vocab"
    vocab.write_text("".join(f"{w}\t{c}\n" for w, c in UNIGRAMS), encoding="utf-8")
    seven = root / "7gms" / "7gm-0000.gz"
    with gzip.open(seven, "wt", encoding="utf-8") as fh:
        fh.writelines(f"{ng}\t{c}\n" for ng, c in SEVENGRAMS)
    return [vocab, seven]


@pytest.fixture(scope="module")
def web1t(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_web1t(tmp_path_factory.mktemp("web1t"))


NGRAM_CONFIG = MinerConfig(input_kind="ngrams", sentences=10_000, **ALL_PAIRS)


def test_ngram_counts(web1t: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "ng.parquet"
    report = mine_cooccurrence(web1t, out, NGRAM_CONFIG)
    g: Counter[tuple[str, str]] = Counter()
    for ngram, count in SEVENGRAMS:
        for pair in combinations(sorted(set(ngram.split()) & CONTENT), 2):
            g[pair] += count
    h = dict(UNIGRAMS)
    got = {(r["w1"], r["w2"]): (r["g"], r["llr"]) for r in rows(out)}
    assert {k: v[0] for k, v in got.items()} == dict(g)
    for (v, w), (count, value) in got.items():
        assert value == pytest.approx(llr(count, h[v], h[w], 10_000), rel=1e-12)
    assert report.F == 10_000 and report.counts.ngram_order == 7
    assert report.counts.unigram_lines == 10 and report.counts.ngram_lines == 5
    assert report.counts.words == len(CONTENT)  # particles and <S> are not content words


def test_infeasible_tables_clip_or_drop(tmp_path: Path) -> None:
    (tmp_path / "1gm").write_text("甲\t10\n乙\t10\n丙\t40\n", encoding="utf-8")
    (tmp_path / "2gm").write_text("甲 乙\t25\n丙 乙\t5\n", encoding="utf-8")
    inputs = [tmp_path / "1gm", tmp_path / "2gm"]
    base = {"input_kind": "ngrams", "sentences": 100, "check_content": False, **ALL_PAIRS}
    out = tmp_path / "c.parquet"
    report = mine_cooccurrence(inputs, out, MinerConfig(**base))
    assert report.counts.pairs_clipped == 1
    got = {(r["w1"], r["w2"]): (r["g"], r["llr"]) for r in rows(out)}
    assert got[("乙", "甲")] == (25, pytest.approx(llr(10, 10, 10, 100)))  # raw g, clipped λ
    report = mine_cooccurrence(inputs, out, MinerConfig(**base, infeasible="drop"))
    assert report.counts.pairs_infeasible == 1
    assert [(r["w1"], r["w2"]) for r in rows(out)] == [("丙", "乙")]


@pytest.mark.parametrize(
    ("line", "field"),
    [("地震 津波 12", None), ("地震 津波\tabc", "count"), ("\t12", "ngram"), ("a\tb\t1", None)],
)
def test_malformed_ngram_line(tmp_path: Path, line: str, field: str | None) -> None:
    bad = tmp_path / "7gm-0001"
    bad.write_text(f"地震 の 津波\t5\n\n{line}\n地震 津波\t3\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        mine_cooccurrence([bad], tmp_path / "x.parquet", NGRAM_CONFIG)
    assert info.value.file == str(bad) and info.value.line == 3 and info.value.field == field
    assert f"{bad}:3" in str(info.value)
    assert not (tmp_path / "x.parquet").exists()


def test_mixed_orders_and_missing_parts(web1t: list[Path], tmp_path: Path) -> None:
    three = tmp_path / "3gm.gz"
    with gzip.open(three, "wt", encoding="utf-8") as fh:
        fh.write("地震 と 津波\t9\n")
    with pytest.raises(InputError) as info:
        mine_cooccurrence([*web1t, three], tmp_path / "x.parquet", NGRAM_CONFIG)
    assert info.value.file == str(three) and info.value.line == 1
    with pytest.raises(InputError, match="1-gram lines"):
        mine_cooccurrence([web1t[1]], tmp_path / "x.parquet", NGRAM_CONFIG)


def test_a_corpus_directory_as_the_docs_show(tmp_path: Path) -> None:
    """Issue 42: ``taiwa build cooccurrence corpus/ --out pairs.parquet --window 7
    --exclude-top-k 100`` (docs/methods/cohesion.md) reads every file below the directory,
    in its directories too (hidden ones left out), as the files given one by one; a path that
    is not there says "no such file or directory"."""
    from cli import taiwa_main

    lines = synthetic_corpus(600)
    corpus = tmp_path / "corpus"
    (corpus / "2024").mkdir(parents=True)
    (corpus / ".cache").mkdir()
    parts = [corpus / "2024" / "a.txt", corpus / "b.txt"]
    parts[0].write_text("\n".join(lines[:300]) + "\n", encoding="utf-8")
    parts[1].write_text("\n".join(lines[300:]) + "\n", encoding="utf-8")
    (corpus / ".cache" / "junk.txt").write_bytes(b"\xff not text")
    flags = ["--window", "7", "--exclude-top-k", "2"]  # the docs say 100 of a real corpus
    r = taiwa_main(
        "build", "cooccurrence", f"{corpus}/", "--out", str(tmp_path / "d.parquet"), *flags
    )
    assert r.returncode == 0, r.stderr
    config = MinerConfig(window=7, exclude_top_k=2)
    mine_cooccurrence(parts, tmp_path / "f.parquet", config)
    assert_same_table(tmp_path / "d.parquet", tmp_path / "f.parquet")
    planted = sum("地震" in line and "津波" in line for line in lines)  # in both files
    assert {(r["w1"], r["w2"]): r["g"] for r in rows(tmp_path / "d.parquet")}[
        ("地震", "津波")
    ] == planted
    r = taiwa_main(
        "build", "cooccurrence", str(tmp_path / "nothing"), "--out", str(tmp_path / "x.parquet")
    )
    assert r.returncode == 2 and "no such file or directory" in r.stderr


def test_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        mine_cooccurrence(tmp_path / "missing.txt", tmp_path / "x.parquet")
    broken = tmp_path / "broken.txt"
    broken.write_bytes("猫と犬\n".encode() + b"\xff\xfe\n")
    with pytest.raises(InputError) as info:
        mine_cooccurrence(broken, tmp_path / "x.parquet")
    assert info.value.line == 2 and "UTF-8" in str(info.value)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(InputError, match="at least one sentence"):
        mine_cooccurrence(empty, tmp_path / "x.parquet")
    fake_gz = tmp_path / "fake.gz"
    fake_gz.write_text("not gzip", encoding="utf-8")
    with pytest.raises(InputError, match="gzip"):
        mine_cooccurrence(fake_gz, tmp_path / "x.parquet")


@pytest.mark.parametrize("kind", ["text", "tokens"])
def test_byte_order_mark_is_not_text(tmp_path: Path, kind: str) -> None:
    """A UTF-8 BOM starts a file, it is no word: the same table with and without it, and a
    corpus holding only a BOM has no sentence."""
    lines = synthetic_corpus()[:200] if kind == "text" else messy_token_lines()
    plain, marked = tmp_path / "plain.txt", tmp_path / "marked.txt"
    plain.write_text("\n".join(lines) + "\n", encoding="utf-8")
    marked.write_text("\n".join(lines) + "\n", encoding="utf-8-sig")
    config = MinerConfig(input_kind=kind, **ALL_PAIRS)  # type: ignore[arg-type]
    a = mine_cooccurrence(plain, tmp_path / "a.parquet", config)
    b = mine_cooccurrence(marked, tmp_path / "b.parquet", config)
    assert a.counts == b.counts and a.counts.pairs_out > 10
    assert_same_table(tmp_path / "a.parquet", tmp_path / "b.parquet")
    only = tmp_path / "bom.txt"
    only.write_bytes(b"\xef\xbb\xbf")
    with pytest.raises(InputError, match="at least one sentence"):
        mine_cooccurrence(only, tmp_path / "c.parquet", config)


def test_config_validation() -> None:
    with pytest.raises(ValidationError, match="sentences"):
        MinerConfig(input_kind="ngrams")
    with pytest.raises(ValidationError, match="window"):
        MinerConfig(input_kind="ngrams", sentences=10, window=7)
    with pytest.raises(ValidationError, match="only for ngrams"):
        MinerConfig(sentences=10)
    with pytest.raises(ValidationError, match="size"):
        DuckDBSettings(memory_limit="lots")


def test_association_pairs_loader(tmp_path: Path) -> None:
    pairs = AssociationPairs({("津波", "地震"): 120.0, ("猫", "犬"): 8.0}, min_llr=10)
    assert len(pairs) == 1 and ("地震", "津波") in pairs and pairs.llr("猫", "犬") is None
    assert list(pairs) == [("地震", "津波")]
    with pytest.raises(InputError, match="no such file"):
        AssociationPairs(tmp_path / "none.parquet")
    import pyarrow as pa

    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"a": ["x"], "b": ["y"]}), bad)
    with pytest.raises(InputError, match="field 'w1'"):
        AssociationPairs(bad)


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"w1": ["猫"], "w2": ["犬"], "llr": [float("nan")]}, r":1: field 'llr'.*finite"),
        ({"w1": ["猫", " "], "w2": ["犬", "鳥"], "llr": [1.0, 2.0]}, r":2: field 'w1'"),
        ({"w1": ["猫"], "w2": ["犬" * 100_001], "llr": [1.0]}, r":1: field 'w2'"),
        ({"w1": [], "w2": [], "llr": []}, "no rows"),
    ],
)
def test_unusable_pair_tables(tmp_path: Path, columns: dict[str, list[Any]], message: str) -> None:
    import pyarrow as pa

    table = tmp_path / "pairs.parquet"
    types = {"w1": pa.string(), "w2": pa.string(), "llr": pa.float64()}
    pq.write_table(pa.table({k: pa.array(v, types[k]) for k, v in columns.items()}), table)
    with pytest.raises(InputError, match=message):
        AssociationPairs(table)


def test_pair_table_with_garbage_metadata(tmp_path: Path) -> None:
    import pyarrow as pa

    table = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"w1": ["猫"], "w2": ["犬"], "llr": [3.0]}), table)
    meta_path(table).write_bytes(b"\xff{not json")
    with pytest.raises(InputError, match="UTF-8"):
        AssociationPairs(table)
    meta_path(table).write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="a JSON object"):
        AssociationPairs(table)
    (tmp_path / "dir.parquet").mkdir()
    with pytest.raises(InputError, match="a directory"):
        AssociationPairs(tmp_path / "dir.parquet")


# ---------------------------------------------------------------------------- Spark


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pytest.importorskip("pyspark")
    from taiwa.resources.cooccurrence.spark_engine import spark_session

    # short-lived test JVMs (spark-submit's launcher and the driver): the C1 compiler only and
    # the serial collector; C2's compiler threads and the parallel collector were half these
    # four tests' CPU (33 -> 17 s). Set for the launch only: the JVMs read it as they start.
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        settings = SparkSettings(master="local[2]", conf={"spark.sql.shuffle.partitions": "4"})
        session, _ = spark_session(settings)
    yield session
    session.stop()


@pytest.mark.slow
def test_spark_equals_duckdb_on_text(spark: Any, corpus_file: Path, tmp_path: Path) -> None:
    config = MinerConfig(exclude_top_k=1, min_pair_count=1, llr_threshold=0.5, positive_only=False)
    duck = mine_cooccurrence(corpus_file, tmp_path / "duck.parquet", config)
    sprk = mine_cooccurrence(corpus_file, tmp_path / "spark.parquet", config, engine="spark")
    assert sprk.engine == "spark" and sprk.F == duck.F == 3000
    assert sprk.counts == duck.counts
    assert duck.counts.pairs_out > 10
    assert_same_table(tmp_path / "duck.parquet", tmp_path / "spark.parquet")


@pytest.mark.slow
def test_spark_equals_duckdb_on_ngrams(spark: Any, web1t: list[Path], tmp_path: Path) -> None:
    duck = mine_cooccurrence(web1t, tmp_path / "duck.parquet", NGRAM_CONFIG)
    sprk = mine_cooccurrence(web1t, tmp_path / "spark.parquet", NGRAM_CONFIG, engine="spark")
    assert sprk.counts == duck.counts and duck.counts.pairs_out == 10  # all 5·4/2
    assert_same_table(tmp_path / "duck.parquet", tmp_path / "spark.parquet")


@pytest.mark.slow
def test_spark_malformed_line(spark: Any, web1t: list[Path], tmp_path: Path) -> None:
    bad = tmp_path / "7gm-0001"
    bad.write_text("地震 の 津波\t5\n\n地震 津波 12\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        mine_cooccurrence([*web1t, bad], tmp_path / "x.parquet", NGRAM_CONFIG, engine="spark")
    assert info.value.file == str(bad) and info.value.line == 3
    assert not (tmp_path / "x.parquet").exists()


@pytest.mark.slow
def test_spark_equals_duckdb_on_tokens_windows(spark: Any, tmp_path: Path) -> None:
    src = tmp_path / "t.tokens"
    src.write_text("\r\n".join(messy_token_lines()) + "\r\n", encoding="utf-8-sig")  # with a BOM
    config = MinerConfig(input_kind="tokens", window=3, **ALL_PAIRS)
    duck = mine_cooccurrence(src, tmp_path / "duck.parquet", config)
    sprk = mine_cooccurrence(src, tmp_path / "spark.parquet", config, engine="spark")
    assert sprk.counts == duck.counts and duck.counts.pairs_out > 50
    assert_same_table(tmp_path / "duck.parquet", tmp_path / "spark.parquet")


def test_whitespace_is_what_str_isspace_says() -> None:
    from taiwa.resources.cooccurrence.duckdb_text import WHITESPACE

    assert "".join(c for c in map(chr, range(0x110000)) if c.isspace()) == WHITESPACE
