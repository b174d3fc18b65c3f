"""Reading and writing: errors name file, line and field; writes are atomic."""

from __future__ import annotations

from pathlib import Path

import pytest

from taiwa.core.errors import InputError
from taiwa.core.io import (
    atomic_open,
    check_writable,
    parse_yaml,
    read_records,
    read_yaml,
    write_csv,
    write_json,
    write_jsonl,
    write_parquet,
)
from taiwa.core.schema import MAX_TEXT_CHARS, DASequenceRecord, TaggedReply, TextRecord
from taiwa.core.taxonomies import load_taxonomy

TAX = {"taxonomy": load_taxonomy("assistant7")}
GOOD = '{"id": "a", "steps": [{"act": "Answer", "importance": 1.0}]}'


def _write(tmp_path: Path, *lines: str) -> Path:
    p = tmp_path / "in.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _error(path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        read_records(path, DASequenceRecord, context=TAX)
    return info.value


def test_reads_good_lines_with_numbers(tmp_path: Path) -> None:
    p = _write(tmp_path, GOOD, "", GOOD.replace('"a"', '"b"'))
    recs = read_records(p, DASequenceRecord, context=TAX)
    assert [(n, r.id) for n, r in recs] == [(1, "a"), (3, "b")]


def test_broken_json(tmp_path: Path) -> None:
    e = _error(_write(tmp_path, GOOD, '{"id": "b", "steps": [}'))
    assert (e.line, e.field) == (2, None)
    assert str(e).startswith(f"{tmp_path / 'in.jsonl'}:2: expected one JSON object per line")


def test_an_unterminated_string_is_named_as_such(tmp_path: Path) -> None:
    """Issue 42: a string whose closing quote is missing runs into the line's end, which
    Python's parser calls "Invalid control character" (the line break); the error names the
    real cause and where the string starts, in a JSONL line, a JSON document and a run's rows;
    a real control character inside a string is still named as one."""
    from taiwa.core.io import read_json_object
    from taiwa.harness.run_reader import RunData

    e = _error(_write(tmp_path, GOOD, '{"id": "b", "text": "abc}'))
    assert e.line == 2 and "unterminated string starting at column 21" in str(e), str(e)
    assert "control character" not in str(e)
    doc = tmp_path / "doc.json"
    doc.write_text('{"id": "b",\n "text": "abc}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"doc.json:2: .*unterminated string starting at col"):
        read_json_object(doc)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "b", "text": "abc}\n', encoding="utf-8")
    run = RunData(tmp_path, {}, {})
    with pytest.raises(InputError, match="unterminated string starting at column 21"):
        list(run.rows("rows.jsonl"))
    e = _error(_write(tmp_path, '{"id": "b", "text": "a\tb"}'))
    assert "Invalid control character at column 23" in str(e), str(e)


def test_missing_field(tmp_path: Path) -> None:
    e = _error(_write(tmp_path, '{"id": "b"}'))
    assert (e.line, e.field) == (1, "steps")
    assert "present" in str(e)


def test_wrong_type(tmp_path: Path) -> None:
    e = _error(_write(tmp_path, '{"id": "b", "steps": [{"act": "Answer", "importance": "high"}]}'))
    assert e.field == "steps[0].importance"
    assert "number" in e.expected and "'high'" in str(e)


def test_unknown_act_lists_the_taxonomy(tmp_path: Path) -> None:
    e = _error(
        _write(tmp_path, GOOD, '{"id": "b", "steps": [{"act": "Greeting", "importance": 1}]}')
    )
    assert (e.line, e.field) == (2, "steps[0].act")
    assert "assistant7" in str(e) and "Check-Question" in str(e)


@pytest.mark.parametrize("value", ["-0.1", "NaN", "1.5"])
def test_bad_importance(tmp_path: Path, value: str) -> None:
    e = _error(
        _write(tmp_path, '{"id": "b", "steps": [{"act": "Answer", "importance": ' + value + "}]}")
    )
    assert e.field == "steps[0].importance"


def test_seed000_item_is_accepted_and_aliases_canonicalised(tmp_path: Path) -> None:
    item = (
        '{"id": "x", "input": {"role": "USER", "text": "天気は?", "locale": "ja-JP"}, '
        '"output": {"role": "ASSISTANT", "text": "晴れです。"}, '
        '"output_dialogue_acts": {"steps": [{"act": "回答", "importance": 1.0, "rationale": "r"}]}}'
    )
    [(_, rec)] = read_records(_write(tmp_path, item), DASequenceRecord, context=TAX)
    assert rec.acts == ["Answer"] and rec.text == "晴れです。"


def test_tagged_reply_needs_act_or_votes(tmp_path: Path) -> None:
    p = _write(tmp_path, '{"id": "r1", "system": "s"}')
    with pytest.raises(InputError, match="'act'"):
        read_records(p, TaggedReply, context={"taxonomy": load_taxonomy("chitchat11")})


def test_missing_file_and_bad_suffix(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_records(tmp_path / "nope.jsonl", DASequenceRecord)
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(InputError, match=r"\.jsonl, \.csv or \.parquet"):
        read_records(tmp_path / "x.txt", DASequenceRecord)


def test_csv_and_parquet_roundtrip(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "steps": [{"act": "Answer", "importance": 1.0}]},
        {"id": "b", "steps": [{"act": "Inform", "importance": 0.5}]},
    ]
    write_csv(tmp_path / "x.csv", rows)
    write_parquet(tmp_path / "x.parquet", [{"id": "a", "steps": rows[0]["steps"]}])
    assert [r.id for _, r in read_records(tmp_path / "x.csv", DASequenceRecord)] == ["a", "b"]
    [(n, rec)] = read_records(tmp_path / "x.parquet", DASequenceRecord)
    assert n == 1 and rec.acts == ["Answer"]
    (tmp_path / "bad.csv").write_text('id,steps\na,"[{""act"": ""Answer""}]"\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_records(tmp_path / "bad.csv", DASequenceRecord)
    assert (info.value.line, info.value.field) == (2, "steps[0].importance")


def test_writes_are_atomic(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    write_jsonl(target, [{"text": "こんにちは"}])
    assert target.read_text(encoding="utf-8") == '{"text": "こんにちは"}\n'
    with pytest.raises(RuntimeError), atomic_open(target) as fh:
        fh.write("half-written")
        raise RuntimeError("crash")
    assert target.read_text(encoding="utf-8") == '{"text": "こんにちは"}\n'
    assert list(tmp_path.iterdir()) == [target]


# ---------------------------------------------------------------------------- unusable input


def _bytes(tmp_path: Path, data: bytes, name: str = "in.jsonl") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _text_error(path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        read_records(path, TextRecord)
    return info.value


GOOD_TEXT = '{"id": "a", "text": "こんにちは"}\n'


def test_bom_and_crlf_are_fine(tmp_path: Path) -> None:
    data = ("\ufeff" + GOOD_TEXT + GOOD_TEXT.replace('"a"', '"b"')).replace("\n", "\r\n")
    p = _bytes(tmp_path, data.encode("utf-8"))
    assert [(n, r.id) for n, r in read_records(p, TextRecord)] == [(1, "a"), (2, "b")]
    csv = _bytes(tmp_path, "\ufeffid,text\r\na,こんにちは\r\n".encode(), "in.csv")
    assert [r.text for _, r in read_records(csv, TextRecord)] == ["こんにちは"]


def test_lines_that_are_blank_or_need_a_closer_look_read_as_before(tmp_path: Path) -> None:
    """JSONL lines are validated straight from their bytes; a line that does not validate so
    (blank in Unicode's sense, escaped, a BOM past line 1) takes the checked path, which
    skips it, reads it or names what is wrong just as before."""
    escaped = '{"id": "b", "text": "\\u3053\\u3093"}\n'
    data = "\ufeff" + GOOD_TEXT + "\u3000\u3000\n \t\n" + escaped
    p = _bytes(tmp_path, data.encode("utf-8"))
    assert [(n, r.id, r.text) for n, r in read_records(p, TextRecord)] == [
        (1, "a", "こんにちは"),
        (4, "b", "こん"),
    ]
    e = _text_error(_bytes(tmp_path, (GOOD_TEXT + "\ufeff" + GOOD_TEXT).encode("utf-8")))
    assert e.line == 2 and "JSON" in e.expected, str(e)


@pytest.mark.parametrize(
    ("data", "line", "got"),
    [
        (GOOD_TEXT.encode() + b'{"id": "b", "text": "\xff"}\n', 2, "byte 0xff"),
        (GOOD_TEXT.encode("utf-16"), 1, "UTF-16 byte order mark"),
        (GOOD_TEXT.encode("utf-16-le"), 1, "NUL byte"),
        ((GOOD_TEXT * 2 + '{"id": "c", "text": "雨"}\n').encode("cp932"), 1, "byte 0x82"),
    ],
)
def test_text_that_is_not_utf8(tmp_path: Path, data: bytes, line: int, got: str) -> None:
    for name in ("in.jsonl", "in.csv"):
        e = _text_error(_bytes(tmp_path, data, name))
        assert e.line == line and e.expected == "UTF-8 text" and got in str(e), str(e)


@pytest.mark.parametrize("data", [b"", b"  \n\n\t\n", b"\xef\xbb\xbf", b"id,text\n"])
def test_a_file_without_records_is_refused(tmp_path: Path, data: bytes) -> None:
    name = "in.csv" if data.startswith(b"id") else "in.jsonl"
    e = _text_error(_bytes(tmp_path, data, name))
    assert str(e) == f"{tmp_path / name}: expected at least one record (got no records)"


def test_a_directory_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").mkdir()
    assert "got a directory" in str(_text_error(tmp_path / "d.jsonl"))


def test_deep_json_and_lone_surrogates(tmp_path: Path) -> None:
    deep = GOOD_TEXT + '{"id": "b", "text": ' + "[" * 10_000 + "]" * 10_000 + "}\n"
    e = _text_error(_bytes(tmp_path, deep.encode()))
    assert e.line == 2 and "nested at most" in str(e)
    nested = GOOD_TEXT + '{"id": "b", "x": ' + "[" * 150 + "]" * 150 + "}\n"
    assert "nesting at most 100 deep" in str(_text_error(_bytes(tmp_path, nested.encode())))
    lone = GOOD_TEXT + '{"id": "b", "text": "a\\ud800b"}\n'
    e = _text_error(_bytes(tmp_path, lone.encode()))
    assert (e.line, e.field) == (2, "text") and "surrogate" in str(e)
    pair = '{"id": "b", "text": "\\ud83d\\ude00"}\n'
    assert [r.text for _, r in read_records(_bytes(tmp_path, pair.encode()), TextRecord)] == ["😀"]


def test_texts_are_bounded_by_one_limit(tmp_path: Path) -> None:
    at_limit = '{"id": "a", "text": "' + "あ" * MAX_TEXT_CHARS + '"}\n'
    assert read_records(_bytes(tmp_path, at_limit.encode()), TextRecord)
    over = '{"id": "a", "text": "x", "extra": "' + "あ" * (MAX_TEXT_CHARS + 1) + '"}\n'
    e = _text_error(_bytes(tmp_path, over.encode()))
    assert (e.line, e.field) == (1, "extra") and "at most 100,000 characters" in str(e)
    over_csv = "id,text\na," + "x" * 1_000_000 + "\n"
    e = _text_error(_bytes(tmp_path, over_csv.encode(), "in.csv"))
    assert (e.line, e.field) == (2, "text")


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"id": " ", "text": "x"}', "id"),
        ('{"id": "a", "text": "\u3000"}', "text"),
        ('{"id": "a", "text": ""}', "text"),
    ],
)
def test_blank_ids_and_texts(tmp_path: Path, line: str, field: str) -> None:
    e = _text_error(_bytes(tmp_path, (line + "\n").encode()))
    assert (e.line, e.field) == (1, field) and "non-blank" in str(e)


def test_empty_or_zero_steps_are_refused(tmp_path: Path) -> None:
    e = _error(_write(tmp_path, GOOD, '{"id": "b", "steps": []}'))
    assert (e.line, e.field) == (2, "steps")
    e = _error(_write(tmp_path, '{"id": "b", "steps": [{"act": "Answer", "importance": 0}]}'))
    assert (e.line, e.field) == (1, "steps") and "more than 0" in str(e)


@pytest.mark.parametrize("data", [b"", b"PAR1", b"not parquet at all", b"PAR1\x00\x01PAR1"])
def test_corrupt_parquet(tmp_path: Path, data: bytes) -> None:
    e = _text_error(_bytes(tmp_path, data, "in.parquet"))
    assert e.expected == "a Parquet file" and str(tmp_path) not in str(e.got)


def test_parquet_without_rows(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": pa.array([], pa.string())}), tmp_path / "x.parquet")
    assert "no records" in str(_text_error(tmp_path / "x.parquet"))


# ---------------------------------------------------------------------------- YAML


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("a: &x [1, 2]\nb: *x\n", 2, "no YAML aliases"),
        ("a: 1\n2: b\n", 2, "string keys"),
        ("a:\n  null: b\n", 2, "string keys"),
        ("a: !!python/name:os.system\n", 1, "valid YAML"),
        ("a: [\n", 2, "valid YAML"),
        ('a: "\\ud800"\n', 1, "surrogate"),
        ("a: " + "[" * 200 + "]" * 200 + "\n", 1, "nesting at most"),
        ("a: b\n---\nc: d\n", 2, "valid YAML"),
    ],
)
def test_yaml_is_loaded_strictly(text: str, line: int, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_yaml(text, "run.yaml")
    assert info.value.line == line and message in str(info.value), str(info.value)


def test_yaml_file_encodings(tmp_path: Path) -> None:
    p = _bytes(tmp_path, "\ufeffmethod: prompts\r\nseed: 1\r\n".encode(), "run.yaml")
    assert read_yaml(p) == {"method": "prompts", "seed": 1}
    p = _bytes(tmp_path, "method: prompts\n".encode("utf-16"), "run.yaml")
    with pytest.raises(InputError, match="UTF-8"):
        read_yaml(p)
    assert read_yaml(_bytes(tmp_path, b"# nothing\n", "empty.yaml")) is None


# ---------------------------------------------------------------------------- outputs


def test_unwritable_outputs_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "dir").mkdir()
    check_writable(tmp_path / "new" / "deeper" / "out.json", "--json")  # made when writing
    for bad, got in (
        (tmp_path / "dir", "a directory"),
        (tmp_path / "file" / "out.json", "is not a directory"),
        (Path("/proc/self/nowhere/out.json"), "No such file"),
    ):
        with pytest.raises(InputError, match=got):
            check_writable(bad, "--json")
    with pytest.raises(InputError, match="a directory"):
        write_json(tmp_path / "dir", {})
    with pytest.raises(InputError, match="writable"):
        write_jsonl(tmp_path / "file" / "x.jsonl", [])
