"""Nesting depth and number size are bounded in every JSON and YAML reader, in one place
(issue 40, point 2): :func:`taiwa.core.io.json_doc.loads` and the YAML loader refuse JSON
nested 100,000 deep, a 400-digit integer, ``1e400`` and ``NaN`` with one located error, the
JSONL fast path (pydantic's parser, which reads ``1e400`` as infinity) included; and no module
parses JSON or YAML from a file another way (a source scan with the reasons of the few
exceptions)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from taiwa.core.errors import InputError
from taiwa.core.io import iter_records, iter_rows, parse_yaml, read_json_object
from taiwa.core.io.json_doc import loads

SRC = Path(__file__).resolve().parents[1] / "src" / "taiwa"

UNBOUNDED = [
    "1" + "0" * 400,
    "-" + "9" * 30,
    "9223372036854775808",
    "1e400",
    "-1e19",
    "NaN",
    "Infinity",
    "-Infinity",
    "1" * 5000,
]


@pytest.mark.parametrize("number", UNBOUNDED)
def test_a_number_beyond_the_bounds_is_one_located_error(number: str) -> None:
    with pytest.raises(InputError, match=r"f\.json:2: field 'price': expected a finite number"):
        loads('{"a": 1,\n "price": ' + number + "}", "f.json")


def test_numbers_within_the_bounds_read_as_before() -> None:
    text = '{"a": [9223372036854775807, -1e18, 0.22857142857142856, 1.5e-300, 3]}'
    assert loads(text, "f")["a"] == [2**63 - 1, -1e18, 0.22857142857142856, 1.5e-300, 3]


@pytest.mark.parametrize("depth", [101, 5_000, 100_000])
def test_deep_nesting_is_refused(depth: int) -> None:
    with pytest.raises(InputError, match="nested at most 100 deep"):
        loads("[" * depth + "]" * depth, "f")
    assert loads("[" * 100 + "]" * 100, "f") is not None


def test_yaml_numbers_and_nesting_are_bounded_alike() -> None:
    for text in ("a: 1" + "0" * 400, "a: .inf", "a: -.inf", "a: .nan", "a: 1" * 1 + "1" * 5000):
        with pytest.raises(InputError, match="finite number"):
            parse_yaml(text, "f.yaml")
    with pytest.raises(InputError, match="deep"):
        parse_yaml("a: " + "[" * 100_000 + "]" * 100_000, "f.yaml")
    assert parse_yaml("a: 9223372036854775807\nb: 1.5\n", "f") == {"a": 2**63 - 1, "b": 1.5}


class _Row(BaseModel):
    id: str
    score: float


@pytest.mark.parametrize("number", ["1e400", "1" + "0" * 400, "NaN"])
def test_the_jsonl_fast_path_is_bounded(tmp_path: Path, number: str) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "a", "score": 1}\n{"id": "b", "score": ' + number + "}\n", "utf-8")
    with pytest.raises(InputError, match=r"rows\.jsonl:2: field 'score'"):
        list(iter_records(path, _Row))
    with pytest.raises(InputError, match=r"rows\.jsonl:2"):
        list(iter_rows(path))


def test_csv_cells_holding_json_are_bounded(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_text('id,steps\na,"[1e400]"\n', "utf-8")
    with pytest.raises(InputError, match=r"rows\.csv:2"):
        list(iter_rows(path))
    path.write_text('id,steps\na,"[not json"\n', "utf-8")  # text that merely starts with [
    assert next(iter(iter_rows(path)))[1]["steps"] == "[not json"


def test_a_json_document_is_bounded(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_text('{\n  "a": {"b": ' + "[" * 100_000 + "]" * 100_000 + "}}", "utf-8")
    with pytest.raises(InputError, match="nested"):
        read_json_object(path)


def test_a_model_reply_nested_deep_is_invalid_output_not_a_crash() -> None:
    from taiwa.models.json_replies import extract_json

    with pytest.raises(ValueError, match="invalid JSON"):
        extract_json('{"steps": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match="invalid JSON"):
        extract_json('here: {"score": 1e400}')


ALLOWED = {
    "core/io/json_doc.py": (2, "the bounded parser itself"),
    "core/io/text.py": (
        1,
        "json_problem re-parses the text before a line break to name an unterminated string",
    ),
    "core/io/yaml_doc.py": (1, "the bounded YAML loader itself"),
    "core/io/jsonl.py": (1, "pydantic's parser on lines the bounds pre-check passed"),
    "harness/rows.py": (1, "the run's own spill rows, written by this process"),
    "harness/rundir.py": (1, "a run key: a damaged config.json only means another run"),
    "models/cache.py": (1, "the response cache's own SQLite rows"),
    "models/file_hash.py": (1, "the cache's own hash index (a damaged one is recomputed)"),
    "models/builtin.py": (1, "the package's bundled scripts"),
    "annotators/da_classifier/examples.py": (1, "the bundled labelled sets (recipe's files)"),
    "benchmarks/da_distribution/validate_tagger.py": (1, "the bundled doubly labelled split"),
    "annotators/da_classifier/baseline.py": (1, "the baseline taiwa fitted and cached"),
    "annotators/da_classifier/report.py": (1, "a round trip of values in memory"),
    "benchmarks/da_distribution/__init__.py": (1, "the shipped model's description"),
    "benchmarks/da_response/prompts.py": (1, "a constant of the module"),
    "benchmarks/da_response/offline.py": (2, "round trips of values in memory"),
}
"""Modules that parse JSON or YAML without :func:`loads` / the strict YAML loader: how many
times, and why no user's file reaches them."""

PARSE = re.compile(r"\bjson\.loads?\(|\byaml\.(?:safe_)?load\(|\.model_validate_json\(")


def test_no_module_parses_json_or_yaml_another_way() -> None:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        lines = path.read_text("utf-8").splitlines()
        n = sum(len(PARSE.findall(x)) for x in lines if not x.lstrip().startswith("#"))
        if n:
            found[str(path.relative_to(SRC))] = n
    assert found == {k: n for k, (n, _) in ALLOWED.items()}
