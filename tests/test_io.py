"""Reading and writing: errors name file, line and field; writes are atomic."""

from __future__ import annotations

from pathlib import Path

import pytest

from taiwa.errors import InputError
from taiwa.io import atomic_open, read_records, write_csv, write_jsonl, write_parquet
from taiwa.schema import DASequenceRecord, TaggedReply
from taiwa.taxonomies import load_taxonomy

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
    rows = [{"id": "a", "steps": [{"act": "Answer", "importance": 1.0}]}, {"id": "b", "steps": []}]
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
