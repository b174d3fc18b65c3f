"""Seeded mutations: from a target's valid input, the malformed variants the fuzzer runs.

Three kinds of target (see :mod:`fuzz_registry`): files of records (JSONL, CSV, Parquet), YAML
documents (run.yaml, taxonomies) and files of text lines (scenario instructions). Each
generator returns :class:`~fuzz_core.Variant` objects whose ``build`` writes the input into a
fresh directory and returns the command line and what must happen. Every random choice comes
from ``random.Random`` seeded by the target, kind and number, so runs are reproducible.
"""

from __future__ import annotations

import codecs
import copy
import csv
import io
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz_core import Built, Expect, Variant

from taiwa.core.schema import MAX_ID_CHARS

HUGE = "あ" * 1_000_000
"""A text far beyond any limit taiwa sets (the issue's reproduction)."""

DEEP = 10_000
"""Nesting depth of the deep-JSON and deep-YAML variants."""

BLANKS = ("", "   ", "\n\t", "\u3000")
"""Blank texts (the last is a full-width space)."""

WRONG_VALUES: tuple[Any, ...] = (None, 0, 1.5, True, "x", [], {}, ["x"], {"x": 1}, -1)

Path_ = tuple[str | int, ...]

# ---------------------------------------------------------------------------- targets


@dataclass(frozen=True)
class RecordTarget:
    """A command reading a file of records (JSONL, CSV, Parquet).

    ``command(file, workdir)`` is the argv that reads ``file``; ``records()`` valid records
    (the command must accept them); ``ids`` the id field (duplicates and blanks refused);
    ``texts`` the text fields (``a.b``, ``list[].c``) that must be non-blank and bounded;
    ``lists`` the lists that must not be empty; ``numbers`` the numeric fields that must be
    finite; ``free`` free-form subtrees (anything goes). ``may_fail``: a run whose samples may
    fail (exit 1) on odd but valid input.
    """

    name: str
    command: Callable[[Path, Path], list[str]]
    records: Callable[[], list[dict[str, Any]]]
    ids: str | None = "id"
    texts: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()
    free: tuple[str, ...] = ()
    formats: tuple[str, ...] = ("jsonl", "csv", "parquet")
    may_fail: bool = False
    share: float = 1.0
    """The seeded share of the variants to run: below 1 for a second command over a loader
    another target already fuzzes in full."""
    id_chars: int = MAX_ID_CHARS
    """The longest id the loader takes (the long-duplicate variant repeats one just below)."""
    xfail: dict[str, str] = field(default_factory=dict)
    """Variant kinds (or ids) known to fail for code owned elsewhere, with the reason."""


@dataclass(frozen=True)
class YamlTarget:
    """A command reading a YAML document: ``document(workdir)`` is a valid one."""

    name: str
    command: Callable[[Path, Path], list[str]]
    document: Callable[[Path], dict[str, Any]]
    also_names: Callable[[Path], tuple[str, ...]] = lambda work: ()
    """Other files an error may rightly name (a data file the document points to)."""
    may_fail: bool = False
    xfail: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LinesTarget:
    """A command reading a text file of lines (``#`` comments unless ``comments`` is false),
    or JSONL with ``key`` (when given). ``bounded``: a line longer than the text limit is
    refused (else it is just long text); ``dirs``: a directory of such files is read too."""

    name: str
    command: Callable[[Path, Path], list[str]]
    lines: Callable[[], list[str]]
    key: str | None = None
    comments: bool = True
    bounded: bool = True
    dirs: bool = False
    may_fail: bool = False
    xfail: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------------------- helpers


def rng(*parts: object) -> random.Random:
    """A generator seeded by ``parts`` (str seeds are hashed with SHA-512: stable)."""
    return random.Random("/".join(map(str, parts)))


def leaves(obj: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    """Paths of every scalar in ``obj`` (and of empty containers)."""
    if isinstance(obj, dict) and obj:
        for k, v in obj.items():
            yield from leaves(v, (*prefix, k))
    elif isinstance(obj, list) and obj:
        for i, v in enumerate(obj):
            yield from leaves(v, (*prefix, i))
    else:
        yield prefix


def keys(obj: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    """Paths of every mapping key in ``obj``."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield (*prefix, k)
            yield from keys(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from keys(v, (*prefix, i))


def pattern(path: Path_) -> str:
    """``("utterances", 2, "text")`` → ``"utterances[].text"``."""
    out = ""
    for p in path:
        out += "[]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def under(path: Path_, patterns: tuple[str, ...]) -> bool:
    """Whether ``path`` is (inside) one of ``patterns``."""
    pat = pattern(path)
    return any(pat == p or pat.startswith(p + ".") or pat.startswith(p + "[") for p in patterns)


def get(obj: Any, path: Path_) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def put(obj: Any, path: Path_, value: Any) -> None:
    get(obj, path[:-1])[path[-1]] = value


def delete(obj: Any, path: Path_) -> None:
    del get(obj, path[:-1])[path[-1]]


def matching(records: list[dict[str, Any]], pat: str) -> list[tuple[int, Path_]]:
    """``(record index, path)`` of every value whose pattern is ``pat``."""
    out = []
    for k, rec in enumerate(records):
        for path in _all_paths(rec):
            if pattern(path) == pat:
                out.append((k, path))
    return out


def _all_paths(obj: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    if prefix:
        yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _all_paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _all_paths(v, (*prefix, i))


def jsonl_bytes(records: list[Any]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


def csv_bytes(records: list[dict[str, Any]]) -> bytes:
    fields: list[str] = []
    for r in records:
        fields.extend(k for k in r if k not in fields)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in records:
        w.writerow(
            {
                k: json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else v
                for k, v in r.items()
            }
        )
    return buf.getvalue().encode("utf-8")


def parquet_bytes(records: list[dict[str, Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: list[str] = []
    for r in records:
        columns.extend(k for k in r if k not in columns)
    sink = io.BytesIO()
    pq.write_table(pa.table({c: [r.get(c) for r in records] for c in columns}), sink)
    return sink.getvalue()


def first_bad_line(data: bytes) -> int | None:
    """The 1-based line of the first byte that is not UTF-8 text (or is NUL), if any."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        if b"\x00" in line:
            return number
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return number
    return None


def located(path: Path, line: int | None) -> tuple[str, ...]:
    return (f"{path}:{line}",) if line is not None else (str(path),)


# ---------------------------------------------------------------------------- generators


def _builders(
    command: Callable[[Path, Path], list[str]], may_fail: bool
) -> tuple[Callable[[Path, Expect], Built], Callable[..., Expect]]:
    """``built(file, expect)``: the target's command line for ``file`` (in the variant's own
    directory); ``expect(file, refuse=, accept=, line=)``: what must happen, located."""

    def built(p: Path, e: Expect) -> Built:
        return Built(command(p, p.parent), e)

    def expect(
        p: Path, *, refuse: bool = False, accept: bool = False, line: int | None = None
    ) -> Expect:
        return Expect(refuse, accept, located(p, line), may_fail)

    return built, expect


class _Maker:
    """Collects the variants of one target, numbering them per kind."""

    def __init__(self, target: str, xfail: dict[str, str]) -> None:
        self.target = target
        self.xfail = xfail
        self.variants: list[Variant] = []
        self._count: dict[str, int] = {}

    def add(self, kind: str, build: Callable[[Path], Built]) -> None:
        n = self._count.get(kind, 0)
        self._count[kind] = n + 1
        v = Variant(self.target, kind, n, build)
        reason = self.xfail.get(v.id) or self.xfail.get(kind)
        self.variants.append(Variant(self.target, kind, n, build, reason))


def _not_a_file(
    m: _Maker,
    suffix: str,
    built: Callable[[Path, Expect], Built],
    expect: Callable[..., Expect],
    dirs: bool = False,
) -> None:
    """A directory (with a file inside) and a missing file where the input file should be
    (``dirs``: the command reads directories too, so a directory need not be refused)."""

    def directory(work: Path) -> Built:
        p = work / f"dir{suffix}"
        p.mkdir()
        (p / "inner.jsonl").write_text('{"id": "a"}\n', encoding="utf-8")
        return built(p, expect(p, refuse=not dirs))

    def missing(work: Path) -> Built:
        p = work / f"missing{suffix}"
        return built(p, expect(p, refuse=True))

    m.add("file/directory", directory)
    m.add("file/missing", missing)


def _bytes_variants(
    m: _Maker,
    valid: bytes,
    suffix: str,
    built: Callable[[Path, Expect], Built],
    expect: Callable[..., Expect],
    dirs: bool = False,
) -> None:
    """Variants of the bytes of a valid text file: encodings, BOM, CRLF, truncation, garbage,
    empty and whitespace files, a directory, a missing file (shared by every text format)."""

    def write(name: str, data: bytes, **kw: Any) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            p = work / name
            p.write_bytes(data)
            return built(p, expect(p, **kw))

        return build

    text = valid.decode("utf-8")
    m.add("valid", write(f"in{suffix}", valid, accept=True))
    m.add("valid/utf8-bom", write(f"in{suffix}", codecs.BOM_UTF8 + valid, accept=True))
    m.add("valid/crlf", write(f"in{suffix}", valid.replace(b"\n", b"\r\n"), accept=True))
    m.add("valid/no-final-newline", write(f"in{suffix}", valid.rstrip(b"\n"), accept=True))
    m.add("valid/unicode-name", write(f"入力 データ{suffix}", valid, accept=True))
    m.add("file/empty", write(f"in{suffix}", b"", refuse=True))
    m.add("file/whitespace", write(f"in{suffix}", " \n\n\t\n\u3000\n".encode(), refuse=True))
    m.add("file/bom-only", write(f"in{suffix}", codecs.BOM_UTF8, refuse=True))

    _not_a_file(m, suffix, built, expect, dirs)
    for enc in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "cp932", "euc-jp"):
        data = text.encode(enc, errors="replace")
        bad = first_bad_line(data)  # ASCII-only text is the same bytes in cp932 and EUC-JP
        m.add(
            f"encoding/{enc}",
            write(f"in{suffix}", data, refuse=bad is not None, accept=bad is None, line=bad),
        )
    for n in range(3):
        r = rng(m.target, "invalid-utf8", n)
        at = r.randrange(len(valid))
        bad = r.choice([b"\xff", b"\xc3\x28", b"\xe3\x81", b"\x80", b"\xf0\x28\x8c\x28"])
        data = valid[:at] + bad + valid[at:]
        m.add(
            "encoding/invalid-utf8",
            write(f"in{suffix}", data, refuse=True, line=first_bad_line(data)),
        )
    for n in range(2):
        r = rng(m.target, "nul", n)
        at = r.randrange(len(valid))
        data = valid[:at] + b"\x00" + valid[at:]
        m.add(
            "encoding/nul-byte", write(f"in{suffix}", data, refuse=True, line=first_bad_line(data))
        )
    for n in range(3):
        r = rng(m.target, "garbage", n)
        data = bytes(r.randrange(256) for _ in range(r.choice([1, 7, 64, 512, 4096])))
        text_like = first_bad_line(data) is None and suffix == ".txt"  # may be a text line
        m.add("binary/garbage", write(f"in{suffix}", data, refuse=not text_like))
    for n in range(5):
        r = rng(m.target, "truncate", n)
        data = valid[: r.randrange(1, len(valid))]
        m.add("truncate/random-offset", write(f"in{suffix}", data, line=None))


def record_variants(t: RecordTarget) -> list[Variant]:
    """Every variant of a file-of-records target."""
    m = _Maker(t.name, t.xfail)
    records = t.records()
    built, expect = _builders(t.command, t.may_fail)
    job = _Job(m, t, records, built, expect)

    if "jsonl" in t.formats:
        _bytes_variants(m, jsonl_bytes(records), ".jsonl", built, expect)
        _jsonl_variants(job)
        _record_mutations(job)
    if "csv" in t.formats:
        _csv_variants(job)
    if "parquet" in t.formats:
        _parquet_variants(job)
    if t.share < 1:
        keep = rng(t.name, "share")
        return [v for v in m.variants if keep.random() < t.share]
    return m.variants


@dataclass(frozen=True)
class _Job:
    """What the generators of one record target share: where variants go, the target, its
    valid records, and how to build a command line and an expectation for a file."""

    m: _Maker
    t: RecordTarget
    records: list[dict[str, Any]]
    built: Callable[[Path, Expect], Built]
    expect: Callable[..., Expect]


def _jsonl_variants(job: _Job) -> None:
    """Line-level JSON variants: lines that are not objects, broken JSON, deep nesting."""
    m, t, records, built, expect = job.m, job.t, job.records, job.built, job.expect

    def lines_file(lines: list[str], **kw: Any) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            p = work / "in.jsonl"
            p.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return built(p, expect(p, **kw))

        return build

    base = [json.dumps(r, ensure_ascii=False) for r in records]
    m.add("valid/blank-lines", lines_file([x for b in base for x in ("", b, "  ")], accept=True))
    m.add("valid/upper-suffix", _renamed(lines_file(base, accept=True), "in.JSONL", built, expect))
    m.add("file/wrong-suffix", _renamed(lines_file(base), "in.txt", built, expect, refuse=True))
    for n, junk in enumerate(("null", "[]", '"text"', "5", "[" + base[0] + "]", "true")):
        r = rng(t.name, "not-object", n)
        k = r.randrange(len(base))
        m.add("json/not-an-object", lines_file(_replaced(base, k, junk), refuse=True, line=k + 1))
    for n in range(3):
        r = rng(t.name, "broken", n)
        k = r.randrange(len(base))
        line = base[k]
        at = r.randrange(len(line))
        broken = line[:at] + r.choice(["", "{", '"', ",", "]"]) + line[at + 1 :]
        m.add("json/broken", lines_file(_replaced(base, k, broken), line=k + 1))
    k = len(base) - 1
    m.add("json/trailing-garbage", lines_file([*base[:k], base[k] + " }"], refuse=True, line=k + 1))
    m.add(
        "json/deep-line",
        lines_file([*base, "[" * DEEP + "]" * DEEP], refuse=True, line=len(base) + 1),
    )
    m.add(
        "json/deep-open", lines_file([*base, "{" + '"a":[' * DEEP], refuse=True, line=len(base) + 1)
    )
    all_same = (
        [json.dumps({**r, t.ids: "same"}, ensure_ascii=False) for r in records] if t.ids else None
    )
    if all_same:
        m.add("id/all-same", lines_file(all_same, refuse=True, line=2))


def _replaced(base: list[str], k: int, line: str) -> list[str]:
    return [*base[:k], line, *base[k + 1 :]]


def _renamed(
    build: Callable[[Path], Built],
    name: str,
    built: Callable[[Path, Expect], Built],
    expect: Callable[..., Expect],
    **kw: Any,
) -> Callable[[Path], Built]:
    def renamed(work: Path) -> Built:
        first = build(work)
        src = work / "in.jsonl"
        p = src.with_name(name)
        src.rename(p)
        e = first.expect if not kw else expect(p, **kw)
        if not kw:
            e = Expect(e.refuse, e.accept, located(p, None), e.may_fail)
        return built(p, e)

    return renamed


def _record_mutations(job: _Job) -> None:
    """Record-level variants written as JSONL: wrong types, missing and extra fields, NaN,
    surrogates, deep values, duplicate and blank ids, blank and huge texts, empty lists."""
    m, t, records, built, expect = job.m, job.t, job.records, job.built, job.expect

    def mutated(
        k: int,
        change: Callable[[dict[str, Any]], None],
        raw: str | None = None,
        also: Callable[[list[dict[str, Any]]], None] | None = None,
        **kw: Any,
    ) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            recs = copy.deepcopy(records)
            change(recs[k])
            if also is not None:
                also(recs)
            lines = [json.dumps(r, ensure_ascii=False) for r in recs]
            if raw is not None:  # a literal JSON fragment spliced in place of a marker value
                lines[k] = lines[k].replace('"__RAW__"', raw)
            p = work / "in.jsonl"
            p.write_text("\n".join(lines) + "\n", encoding="utf-8")
            return built(p, expect(p, **kw))

        return build

    fixed = [(k, path) for k, rec in enumerate(records) for path in leaves(rec) if path]
    free = [kp for kp in fixed if not under(kp[1], t.free)]
    r = rng(t.name, "record")
    for n, (k, path) in enumerate(r.sample(free, min(8, len(free)))):
        value = rng(t.name, "type", n).choice(
            [v for v in WRONG_VALUES if type(v) is not type(get(records[k], path))]
        )
        m.add(
            "record/wrong-type", mutated(k, lambda rec, p=path, v=value: put(rec, p, v), line=k + 1)
        )
    all_keys = [
        (k, p) for k, rec in enumerate(records) for p in keys(rec) if not under(p[:-1], t.free)
    ]
    for k, path in r.sample(all_keys, min(6, len(all_keys))):
        m.add("record/missing-field", mutated(k, lambda rec, p=path: delete(rec, p), line=k + 1))
    for n in range(2):
        k = r.randrange(len(records))
        m.add(
            "record/extra-field",
            mutated(k, lambda rec, n=n: rec.update({f"zz_extra{n}": 1}), line=k + 1),
        )
    numeric = [(k, p) for k, p in free if under(p, t.numbers)]
    for n, literal in enumerate(("NaN", "Infinity", "-Infinity")):
        if numeric:
            k, path = numeric[n % len(numeric)]
            m.add(
                "json/nan",
                mutated(
                    k, lambda rec, p=path: put(rec, p, "__RAW__"), literal, refuse=True, line=k + 1
                ),
            )
    strings = [(k, p) for k, p in fixed if isinstance(get(records[k], p), str)]
    for n, (k, path) in enumerate(r.sample(strings, min(3, len(strings)))):
        lone = ['"\\ud800"', '"x\\udfffy"', '"\\ud83d"'][n]
        m.add(
            "json/lone-surrogate",
            mutated(k, lambda rec, p=path: put(rec, p, "__RAW__"), lone, refuse=True, line=k + 1),
        )
    if strings:
        k, path = strings[0]
        m.add(
            "valid/escaped-emoji",
            mutated(
                k, lambda rec, p=path: put(rec, p, "__RAW__"), '"笑\\ud83d\\ude00"', line=k + 1
            ),
        )
    for n, (k, path) in enumerate(r.sample(fixed, min(2, len(fixed)))):
        deep = "[" * DEEP + "]" * DEEP
        m.add(
            "json/deep-value",
            mutated(k, lambda rec, p=path: put(rec, p, "__RAW__"), deep, refuse=True, line=k + 1),
        )
        del n
    if t.ids:
        ids = t.ids
        for n in range(2):
            j, k = sorted(rng(t.name, "dup", n).sample(range(len(records)), 2))
            dup = records[j][ids]
            m.add(
                "id/duplicate",
                mutated(k, lambda rec, d=dup: rec.update({ids: d}), refuse=True, line=k + 1),
            )
        for n, blank in enumerate(BLANKS):
            k = n % len(records)
            m.add(
                "id/blank",
                mutated(k, lambda rec, b=blank: rec.update({ids: b}), refuse=True, line=k + 1),
            )
        k = len(records) - 1
        m.add("id/huge", mutated(k, lambda rec: rec.update({ids: HUGE}), refuse=True, line=k + 1))
        long_id = "い" * (t.id_chars - 1)  # allowed, but echoed whole it would be slow

        def long_pair(rec: dict[str, Any]) -> None:
            rec[ids] = long_id

        def long_twice(recs: list[dict[str, Any]]) -> None:
            recs[0][ids] = recs[k][ids] = long_id

        m.add("id/long-duplicate", mutated(k, long_pair, refuse=True, line=k + 1, also=long_twice))
        m.add("id/number", mutated(0, lambda rec: rec.update({ids: 7}), line=1))
    for pat in t.texts:
        found = matching(records, pat)
        if not found:
            raise ValueError(f"{t.name}: no value at {pat!r} in the seed records")
        for n, blank in enumerate(BLANKS):
            k, path = found[n % len(found)]
            m.add(
                f"text/blank:{pat}",
                mutated(k, lambda rec, p=path, b=blank: put(rec, p, b), refuse=True, line=k + 1),
            )
        k, path = found[-1]
        m.add(
            f"text/huge:{pat}",
            mutated(k, lambda rec, p=path: put(rec, p, HUGE), refuse=True, line=k + 1),
        )
        m.add(
            f"text/control-chars:{pat}",
            mutated(k, lambda rec, p=path: put(rec, p, "a\x00b\x1bc\u202e"), line=k + 1),
        )
    for pat in t.lists:
        found = matching(records, pat)
        if not found:
            raise ValueError(f"{t.name}: no list at {pat!r} in the seed records")
        k, path = found[0]
        m.add(
            f"list/empty:{pat}",
            mutated(k, lambda rec, p=path: put(rec, p, []), refuse=True, line=k + 1),
        )
        m.add(f"list/null:{pat}", mutated(k, lambda rec, p=path: put(rec, p, None), line=k + 1))


def _csv_variants(job: _Job) -> None:
    """CSV files: valid ones (BOM, CRLF), a header only, ragged rows, bad bytes, huge cells."""
    m, t, records, built, expect = job.m, job.t, job.records, job.built, job.expect

    def write(data: bytes, **kw: Any) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            p = work / "in.csv"
            p.write_bytes(data)
            return built(p, expect(p, **kw))

        return build

    valid = csv_bytes(records)
    header, *rows = valid.decode("utf-8").splitlines(keepends=True)
    m.add("csv/valid", write(valid, accept=True))
    m.add("csv/utf8-bom", write(codecs.BOM_UTF8 + valid, accept=True))
    m.add("csv/crlf", write(valid.replace(b"\n", b"\r\n"), accept=True))
    m.add("csv/header-only", write(header.encode(), refuse=True))
    m.add("csv/empty", write(b"", refuse=True))
    m.add(
        "csv/ragged-extra-cell",
        write((header + rows[0].rstrip("\n") + ",zz\n" + "".join(rows[1:])).encode(), line=2),
    )
    m.add("csv/ragged-short-row", write((header + "x\n" + "".join(rows)).encode(), line=2))
    m.add("csv/unclosed-quote", write((header + '"' + "".join(rows)).encode()))
    cp932 = valid.decode("utf-8").encode("cp932", "replace")
    at = first_bad_line(cp932)  # ASCII-only CSV is the same bytes in cp932
    m.add("csv/cp932", write(cp932, refuse=at is not None, accept=at is None, line=at))
    m.add("csv/utf-16", write(valid.decode("utf-8").encode("utf-16"), refuse=True, line=1))
    k = len(records) - 1
    bad = valid.replace(rows[k].encode(), rows[k].encode()[:5] + b"\xff" + rows[k].encode()[5:])
    m.add("csv/invalid-utf8", write(bad, refuse=True, line=k + 2))
    if t.ids:
        dup = copy.deepcopy(records)
        dup[-1][t.ids] = dup[0][t.ids]
        m.add("csv/duplicate-id", write(csv_bytes(dup), refuse=True, line=len(dup) + 1))
        blank = copy.deepcopy(records)
        blank[0][t.ids] = "  "
        m.add("csv/blank-id", write(csv_bytes(blank), refuse=True, line=2))
    top_texts = [p for p in t.texts if "." not in p and "[" not in p]
    for pat in top_texts[:1]:
        huge = copy.deepcopy(records)
        k = next(i for i, r in enumerate(huge) if pat in r)
        huge[k][pat] = HUGE
        m.add(f"csv/huge:{pat}", write(csv_bytes(huge), refuse=True, line=k + 2))


def _parquet_variants(job: _Job) -> None:
    """Parquet files: valid, no rows, corrupt or truncated bytes, duplicate/blank ids, huge
    texts, a column of the wrong type, a missing column."""
    m, t, records, built, expect = job.m, job.t, job.records, job.built, job.expect

    def write(data: Callable[[], bytes], **kw: Any) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            p = work / "in.parquet"
            p.write_bytes(data())
            return built(p, expect(p, **kw))

        return build

    def changed(change: Callable[[list[dict[str, Any]]], None]) -> Callable[[], bytes]:
        def data() -> bytes:
            recs = copy.deepcopy(records)
            change(recs)
            return parquet_bytes(recs)

        return data

    def no_rows() -> bytes:
        import pyarrow.parquet as pq

        schema = pq.read_table(io.BytesIO(parquet_bytes(records))).schema
        sink = io.BytesIO()
        pq.write_table(schema.empty_table(), sink)
        return sink.getvalue()

    valid = parquet_bytes(records)
    if "jsonl" not in t.formats:
        _not_a_file(m, ".parquet", built, expect)
    for pat in [p for p in t.numbers if "." not in p and "[" not in p][:1]:
        for value in (float("nan"), float("inf")):

            def nan(recs: list[dict[str, Any]], pat: str = pat, v: float = value) -> None:
                recs[0][pat] = v

            m.add("parquet/nan", write(changed(nan), refuse=True, line=1))
    m.add("parquet/valid", write(lambda: valid, accept=True))
    m.add("parquet/no-rows", write(no_rows, refuse=True))
    m.add("parquet/zero-bytes", write(lambda: b"", refuse=True))
    m.add("parquet/magic-only", write(lambda: b"PAR1", refuse=True))
    m.add("parquet/jsonl-content", write(lambda: jsonl_bytes(records), refuse=True))
    for n in range(3):
        r = rng(t.name, "parquet-truncate", n)
        cut = r.randrange(4, len(valid) - 1)
        m.add("parquet/truncated", write(lambda c=cut: valid[:c], refuse=True))
    for n in range(2):
        r = rng(t.name, "parquet-flip", n)
        at = r.randrange(4, len(valid) - 8)
        flipped = valid[:at] + bytes(r.randrange(256) for _ in range(16)) + valid[at + 16 :]
        m.add("parquet/corrupt-bytes", write(lambda f=flipped: f))
    if t.ids:
        ids = t.ids

        def dup(recs: list[dict[str, Any]]) -> None:
            recs[-1][ids] = recs[0][ids]

        def blank(recs: list[dict[str, Any]]) -> None:
            recs[0][ids] = " "

        def numeric(recs: list[dict[str, Any]]) -> None:
            for i, rec in enumerate(recs):
                rec[ids] = i

        def no_id(recs: list[dict[str, Any]]) -> None:
            for rec in recs:
                rec.pop(ids, None)

        m.add("parquet/duplicate-id", write(changed(dup), refuse=True, line=len(records)))
        m.add("parquet/blank-id", write(changed(blank), refuse=True, line=1))
        m.add("parquet/numeric-id", write(changed(numeric), line=1))
        m.add("parquet/no-id-column", write(changed(no_id), line=1))
    top_texts = [p for p in t.texts if "." not in p and "[" not in p]
    for pat in top_texts[:1]:
        k = next(i for i, r in enumerate(records) if pat in r)

        def huge(recs: list[dict[str, Any]], pat: str = pat, k: int = k) -> None:
            recs[k][pat] = HUGE

        m.add(f"parquet/huge:{pat}", write(changed(huge), refuse=True, line=k + 1))


# ---------------------------------------------------------------------------- YAML


BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""

PYTHON_TAGS = (
    '!!python/object/apply:os.system ["echo pwned"]',
    "!!python/name:os.system",
    '!!python/object/new:subprocess.Popen [["true"]]',
)


def yaml_text(doc: Any) -> str:
    import yaml

    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def yaml_variants(t: YamlTarget) -> list[Variant]:
    """Every variant of a YAML target."""
    m = _Maker(t.name, t.xfail)

    def built_for(p: Path, e: Expect) -> Built:
        return Built(t.command(p, p.parent), e)

    def expect(
        p: Path, *, refuse: bool = False, accept: bool = False, line: int | None = None
    ) -> Expect:
        names = located(p, line) + (t.also_names(p.parent) if not refuse else ())
        return Expect(refuse, accept, names, t.may_fail)

    def text_file(make: Callable[[dict[str, Any]], str], **kw: Any) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            p = work / "in.yaml"
            p.write_text(make(t.document(work)), encoding="utf-8")
            return built_for(p, expect(p, **kw))

        return build

    def bytes_of(work: Path) -> bytes:
        return yaml_text(t.document(work)).encode("utf-8")

    _yaml_bytes_variants(m, bytes_of, built_for, expect)
    m.add("yaml/comment-only", text_file(lambda d: "# nothing here\n", refuse=True))
    for n, body in enumerate(("- a\n- b\n", "just a string\n", "~\n", "42\n")):
        m.add("yaml/not-a-mapping", text_file(lambda d, b=body: b, refuse=True))
        del n
    m.add("yaml/bomb", text_file(lambda d: yaml_text(d) + BOMB, refuse=True))
    m.add(
        "yaml/bomb-in-value",
        text_file(lambda d: BOMB.replace("i: &i", "zz: &i") + yaml_text(d), refuse=True),
    )
    for tag in PYTHON_TAGS:
        m.add(
            "yaml/python-tag",
            text_file(lambda d, tag=tag: yaml_text(d) + f"zz: {tag}\n", refuse=True),
        )
        top = next(iter(t.document(Path("/nonexistent"))))
        m.add(
            "yaml/python-tag-value",
            text_file(
                lambda d, tag=tag, top=top: yaml_text({**d, top: "__TAG__"}).replace(
                    "__TAG__", tag
                ),
                refuse=True,
            ),
        )
    for key in ("1", "null", "true", "[a, b]", "{a: 1}", "2024-01-01", "3.5"):
        m.add(
            "yaml/non-string-key",
            text_file(lambda d, key=key: yaml_text(d) + f"{key}: x\n", refuse=True),
        )
    for n, (k, path) in enumerate(_nested_mappings(t.document(Path("/nonexistent")))):
        m.add(
            "yaml/non-string-key-nested",
            text_file(lambda d, path=path: _with_int_key(d, path), refuse=True),
        )
        del n, k
    m.add(
        "yaml/deep",
        text_file(lambda d: yaml_text(d) + "zz: " + "[" * DEEP + "]" * DEEP + "\n", refuse=True),
    )
    m.add(
        "yaml/deep-mapping",
        text_file(
            lambda d: yaml_text(d) + "zz: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n", refuse=True
        ),
    )
    m.add("yaml/lone-surrogate", text_file(lambda d: _with_raw(d, '"\\ud800"'), refuse=True))
    m.add("yaml/tab-indent", text_file(lambda d: yaml_text(d).replace("\n  ", "\n\t"), refuse=True))
    m.add(
        "yaml/duplicate-key",
        text_file(
            lambda d: yaml_text(d) + yaml_text({next(iter(d)): next(iter(d.values()))}),
            refuse=True,
        ),
    )
    m.add(
        "yaml/two-documents",
        text_file(lambda d: yaml_text(d) + "---\n" + yaml_text(d), refuse=True),
    )
    m.add("yaml/huge-value", text_file(lambda d: _with_raw(d, HUGE)))
    m.add("yaml/huge-key", text_file(lambda d: yaml_text(d) + "a" * 200_000 + ": 1\n", refuse=True))
    doc0 = t.document(Path("/nonexistent"))
    paths = [p for p in leaves(doc0) if p]
    r = rng(t.name, "yaml-record")
    for n, path in enumerate(r.sample(paths, min(10, len(paths)))):
        value = rng(t.name, "yaml-type", n).choice(
            [v for v in WRONG_VALUES if type(v) is not type(get(doc0, path))]
        )
        m.add("yaml/wrong-type", text_file(lambda d, p=path, v=value: yaml_text(_set(d, p, v))))
    for path in r.sample([p for p in keys(doc0)], min(6, len(list(keys(doc0))))):
        m.add("yaml/missing-field", text_file(lambda d, p=path: yaml_text(_del(d, p))))
    m.add("yaml/extra-field", text_file(lambda d: yaml_text({**d, "zz_unknown": 1}), refuse=True))
    return m.variants


def _yaml_bytes_variants(
    m: _Maker,
    bytes_of: Callable[[Path], bytes],
    built_for: Callable[[Path, Expect], Built],
    expect: Callable[..., Expect],
) -> None:
    def write(
        change: Callable[[bytes], bytes], name: str = "in.yaml", **kw: Any
    ) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            p = work / name
            data = change(bytes_of(work))
            p.write_bytes(data)
            options = dict(kw)
            if options.pop("locate", False):
                options["line"] = first_bad_line(data)
                if options["line"] is None:  # ASCII-only YAML is the same bytes in cp932
                    options["refuse"], options["accept"] = False, True
            return built_for(p, expect(p, **options))

        return build

    m.add("valid", write(lambda b: b, accept=True))
    m.add("valid/utf8-bom", write(lambda b: codecs.BOM_UTF8 + b, accept=True))
    m.add("valid/crlf", write(lambda b: b.replace(b"\n", b"\r\n"), accept=True))
    m.add("valid/unicode-name", write(lambda b: b, name="設定 ファイル.yaml", accept=True))
    m.add("file/empty", write(lambda b: b"", refuse=True))
    m.add("file/whitespace", write(lambda b: b"  \n\n", refuse=True))
    _not_a_file(m, ".yaml", built_for, expect)
    for enc in ("utf-16", "utf-16-le", "utf-32", "cp932"):
        m.add(
            f"encoding/{enc}",
            write(lambda b, enc=enc: b.decode().encode(enc, "replace"), refuse=True, locate=True),
        )
    for n in range(3):

        def bad(b: bytes, n: int = n) -> bytes:
            r = rng(m.target, "yaml-invalid-utf8", n)
            at = r.randrange(len(b))
            return b[:at] + b"\xff\xfe" + b[at:]

        m.add("encoding/invalid-utf8", write(bad, refuse=True, locate=True))
    m.add("encoding/nul-byte", write(lambda b: b[:5] + b"\x00" + b[5:], refuse=True, locate=True))
    for n in range(3):

        def garbage(b: bytes, n: int = n) -> bytes:
            r = rng(m.target, "yaml-garbage", n)
            return bytes(r.randrange(256) for _ in range(r.choice([3, 100, 2000])))

        m.add("binary/garbage", write(garbage, refuse=True))
    for n in range(5):

        def cut(b: bytes, n: int = n) -> bytes:
            return b[: rng(m.target, "yaml-truncate", n).randrange(1, len(b))]

        m.add("truncate/random-offset", write(cut))


def _nested_mappings(doc: dict[str, Any]) -> list[tuple[int, Path_]]:
    out = []
    for path in _all_paths(doc):
        if isinstance(get(doc, path), dict):
            out.append((0, path))
    return out[:3]


def _with_int_key(doc: dict[str, Any], path: Path_) -> str:
    d = copy.deepcopy(doc)
    get(d, path)[7] = "x"
    return yaml_text(d)


def _with_raw(doc: dict[str, Any], raw: str) -> str:
    """The document with its first string value replaced by the literal YAML ``raw``."""
    d = copy.deepcopy(doc)
    path = next(p for p in leaves(d) if p and isinstance(get(d, p), str))
    put(d, path, "__RAW__")
    return yaml_text(d).replace("__RAW__", raw)


def _set(doc: dict[str, Any], path: Path_, value: Any) -> dict[str, Any]:
    d = copy.deepcopy(doc)
    put(d, path, value)
    return d


def _del(doc: dict[str, Any], path: Path_) -> dict[str, Any]:
    d = copy.deepcopy(doc)
    delete(d, path)
    return d


# ---------------------------------------------------------------------------- text lines


def lines_variants(t: LinesTarget) -> list[Variant]:
    """Every variant of a text-lines target (plain lines, and JSONL with ``t.key``)."""
    m = _Maker(t.name, t.xfail)
    lines = t.lines()
    built, expect = _builders(t.command, t.may_fail)

    def text(body: str, name: str = "in.txt", **kw: Any) -> Callable[[Path], Built]:
        def build(work: Path) -> Built:
            p = work / name
            p.write_text(body, encoding="utf-8")
            return built(p, expect(p, **kw))

        return build

    valid = (("# comment\n" if t.comments else "") + "\n".join(lines) + "\n").encode("utf-8")
    _bytes_variants(m, valid, ".txt", built, expect, t.dirs)
    if t.comments:
        m.add("lines/comments-only", text("# a\n# b\n\n", refuse=True))
    huge = "\n".join([*lines, HUGE]) + "\n"
    m.add("lines/huge-line", text(huge, refuse=t.bounded, line=len(lines) + 1))
    m.add("lines/blank-between", text("\n\n".join(lines) + "\n", accept=True))
    if t.key is not None:
        _jsonl_lines(m, lines, t.key, text)
    return m.variants


def _jsonl_lines(
    m: _Maker, lines: list[str], field: str, text: Callable[..., Callable[[Path], Built]]
) -> None:
    """JSONL with one ``field`` per line: valid, blank, wrong type, missing, huge, surrogate."""
    jl = [json.dumps({field: x}, ensure_ascii=False) for x in lines]
    m.add("lines/jsonl-valid", text("\n".join(jl) + "\n", "in.jsonl", accept=True))
    bad = [*jl[:-1], json.dumps({field: "  "})]
    m.add("lines/jsonl-blank", text("\n".join(bad) + "\n", "in.jsonl", refuse=True, line=len(jl)))
    bad = [*jl[:-1], json.dumps({field: 5})]
    m.add(
        "lines/jsonl-wrong-type", text("\n".join(bad) + "\n", "in.jsonl", refuse=True, line=len(jl))
    )
    bad = [*jl[:-1], json.dumps({"other": "x"})]
    m.add("lines/jsonl-missing", text("\n".join(bad) + "\n", "in.jsonl", refuse=True, line=len(jl)))
    bad = [*jl[:-1], json.dumps({field: HUGE}, ensure_ascii=False)]
    m.add("lines/jsonl-huge", text("\n".join(bad) + "\n", "in.jsonl", refuse=True, line=len(jl)))
    m.add("lines/jsonl-empty", text("", "in.jsonl", refuse=True))
    m.add(
        "lines/jsonl-surrogate",
        text(jl[0] + "\n" + '{"' + field + '": "\\ud800"}\n', "in.jsonl", refuse=True, line=2),
    )
