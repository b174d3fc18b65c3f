"""Reading and writing records: JSONL, CSV and Parquet (and YAML).

Every reader validates each row against a pydantic model and raises :class:`InputError` that
names the file, the line (or row) and the field, and says what was expected. Every writer is
atomic: it writes a temporary file in the target directory and renames it into place, so a
crash never leaves a half-written output. Text is UTF-8 with ``ensure_ascii=False``.

One module per format (:mod:`.jsonl`, :mod:`.tabular` for CSV and Parquet, :mod:`.yaml_doc`),
the shared text checks (:mod:`.text`), atomic writing (:mod:`.atomic`) and validated records
(:mod:`.records`); this package re-exports what the rest of taiwa imports from ``taiwa.core.io``.
"""

from taiwa.core.errors import InputError
from taiwa.core.errors import _short as shown
from taiwa.core.io.atomic import atomic_open, check_writable
from taiwa.core.io.json_doc import read_json_object
from taiwa.core.io.jsonl import dumps, write_json, write_jsonl
from taiwa.core.io.records import (
    check_id,
    ids_checked,
    index_by_id,
    iter_records,
    iter_rows,
    read_records,
    unique_ids,
)
from taiwa.core.io.tabular import CSV_FIELD_CHARS, parquet_problem, write_csv, write_parquet
from taiwa.core.io.text import (
    MAX_DEPTH,
    check_values,
    decoded_lines,
    json_problem,
    json_type,
    path_kind,
    require_file,
    shown_name,
    shown_path,
)
from taiwa.core.io.yaml_doc import parse_yaml, read_yaml

__all__ = [
    "CSV_FIELD_CHARS",
    "MAX_DEPTH",
    "InputError",
    "atomic_open",
    "check_id",
    "check_values",
    "check_writable",
    "decoded_lines",
    "dumps",
    "ids_checked",
    "index_by_id",
    "iter_records",
    "iter_rows",
    "json_problem",
    "json_type",
    "parquet_problem",
    "parse_yaml",
    "path_kind",
    "read_json_object",
    "read_records",
    "read_yaml",
    "require_file",
    "shown",
    "shown_name",
    "shown_path",
    "unique_ids",
    "write_csv",
    "write_json",
    "write_jsonl",
    "write_parquet",
]
