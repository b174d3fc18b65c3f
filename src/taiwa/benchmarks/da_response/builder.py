"""``taiwa build da-response``: generate a seed 000 dataset with any chat model (App. A prompt).

One call per scenario instruction, JSON-schema constrained where the backend allows, validated
as a :class:`~taiwa.benchmarks.da_response.dataset.DAResponseItem`, repaired by re-asking with the
validation error (bounded attempts), deduplicated on the normalised user utterance, and written
atomically. Instructions that never yield a valid item are reported with the last error.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from taiwa.annotators.steps_json import validation_reason
from taiwa.benchmarks.da_response.dataset import DAResponseItem, item_json_schema
from taiwa.benchmarks.da_response.prompts import generation_prompt
from taiwa.core.errors import InputError
from taiwa.core.io import (
    check_values,
    decoded_lines,
    iter_rows,
    require_file,
    shown,
    write_jsonl,
)
from taiwa.core.taxonomies import load_taxonomy
from taiwa.metrics.da_steps import ImportanceWarning
from taiwa.models.base import ChatModel
from taiwa.models.json_replies import extract_json, generate_json
from taiwa.models.types import ChatMessage, ChatRequest, GenerationParams
from taiwa.text.normalize import nfkc


def read_instructions(path: str | Path) -> list[str]:
    """Scenario instructions: text lines (``#`` starts a comment) or JSONL ``instruction``."""
    p = Path(path)
    if p.suffix.lower() in (".jsonl", ".json", ".csv", ".parquet"):
        out = []
        for line, row in iter_rows(p):
            value = row.get("instruction")
            if not isinstance(value, str) or not value.strip():
                raise InputError(str(p), line, "instruction", "a non-blank string", shown(value))
            out.append(value.strip())
        return out
    require_file(p)
    out = []
    for number, raw in enumerate(decoded_lines(p), start=1):
        text = raw.strip()
        if text and not text.startswith("#"):
            check_values(p, number, text)
            out.append(text)
    if not out:
        raise InputError(str(p), None, None, "at least one scenario instruction", "none")
    return out


def parse_item(text: str) -> DAResponseItem:
    """Validate one generated item (the id is assigned later)."""
    data = extract_json(text)
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object with the four required keys")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ImportanceWarning)
            return DAResponseItem.model_validate(
                {**data, "id": "pending"}, context={"taxonomy": load_taxonomy("assistant7")}
            )
    except ValidationError as exc:
        raise ValueError(validation_reason(exc)) from None


@dataclass
class BuildReport:
    """What a build produced: items kept, duplicates dropped, failures with their reasons."""

    items: list[DAResponseItem]
    duplicates: int = 0
    failures: list[dict[str, object]] = field(default_factory=list)


async def build_items(
    model: ChatModel,
    instructions: list[str],
    *,
    attempts: int = 3,
    max_tokens: int = 1024,
    seed: int = 0,
    id_prefix: str = "gen",
) -> BuildReport:
    params = GenerationParams(
        temperature=0.0, max_tokens=max_tokens, seed=seed, json_schema=item_json_schema()
    )
    requests = []
    for k, instruction in enumerate(instructions, start=1):
        system, user = generation_prompt(instruction)
        messages = [
            ChatMessage(role="system", content=system),
            ChatMessage(role="user", content=user),
        ]
        requests.append(ChatRequest(id=f"{id_prefix}{k:04d}", messages=messages, params=params))
    outcomes = await generate_json(model, requests, parse_item, attempts=attempts)
    report = BuildReport(items=[])
    seen: set[str] = set()
    for instruction, outcome in zip(instructions, outcomes, strict=True):
        if outcome.value is None:
            report.failures.append(
                {
                    "id": outcome.id,
                    "instruction": instruction,
                    "attempts": outcome.attempts,
                    "error": outcome.error,
                }
            )
            continue
        key = nfkc(outcome.value.input.text).strip()
        if key in seen:
            report.duplicates += 1
            continue
        seen.add(key)
        report.items.append(outcome.value.model_copy(update={"id": outcome.id}))
    return report


def write_dataset(path: str | Path, report: BuildReport) -> None:
    """The items as JSONL (seed 000 App. A layout plus ``id``), and failures beside it."""
    write_jsonl(path, [it.model_dump(exclude_none=True) for it in report.items])
    if report.failures:
        write_jsonl(Path(str(path) + ".failures.jsonl"), report.failures)
