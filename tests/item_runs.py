"""Run directories for the item-view tests (issue 43): every method's small run of
:mod:`report_runs` (the shape ``taiwa demo`` writes, without the demo LLM), a chitchat run
whose judge flips some verdicts with the order, and readers of what the stage files say."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from report_runs import _run, build_runs
from taiwa.testing.stub_server import StubState, serve
from test_chitchat_run import MARK, SYSTEMS, _section, _system_reply, _user


def _biased_judge(body: Mapping[str, Any]) -> str:
    """Right when one reply is marked; when neither is, position-biased on some prompts (its
    verdict then flips with the order) and a tie on the others."""
    user = _user(body)
    if "システムAの応答" in user:
        a, b = (MARK in _section(user, f"システム{x}の応答") for x in "AB")
        if a != b:
            return "判定：" + ("[[A]]" if a else "[[B]]")
        return "判定：[[A]]" if zlib.crc32(user.encode()) % 2 else "判定：[[C]]"
    return "評価：[[9]]" if MARK in _section(user, "評価対象の応答") else "評価：[[4]]"


def _script(body: dict[str, Any]) -> str:
    if body["model"] == "judge":
        return _biased_judge(body)
    return _system_reply(body["model"], _user(body))


@contextmanager
def _flipping_server() -> Iterator[str]:
    with serve(StubState(script=_script)) as url:
        yield url


def _answers(path: Path) -> Path:
    """A replayed system for intent: option 1 to every bundled item but the fifth (a failed
    request: no reply for its id), so that it is right where gold is option 1 only."""
    from taiwa.core.samples import sample_path

    items = rows(sample_path("intent/items.jsonl"))
    lines = [json.dumps({"id": it["id"], "text": "1"}) for k, it in enumerate(items) if k != 4]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def build_item_runs(root: Path) -> dict[str, Path]:
    """Every method's run (two of da-response), ``chitchat-flips`` and ``intent-pair``: intent
    with two systems that are each wrong on some items (random, a replayed one) and human."""
    out = build_runs(root)
    replay = f"replay:{_answers(root / 'answers.jsonl')}"
    out["intent-pair"] = _run(
        root / "intent-pair",
        "intent",
        models=["builtin:random", replay, "human"],
        cache_dir=root / ".cache",
    )
    with _flipping_server() as url:
        out["chitchat-flips"] = _run(
            root / "chitchat-flips",
            "chitchat",
            models=SYSTEMS,
            roles={"judge": "openai:judge"},
            base_url=url,
            options={"per_task": 2},
            cache_dir=root / ".cache-flips",
        )
    return out


def rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a stage file, as written."""
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


def by_system(path: Path, key: str) -> dict[str, dict[str, Any]]:
    """``{system: {item: row[key]}}`` of a stage file's rows that did not fail."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows(path):
        if "error" not in r:
            out.setdefault(r["system"], {})[r["id"]] = r.get(key)
    return out


def flipped_pairs(run: Path) -> dict[str, set[tuple[str, str]]]:
    """The pairs each item's pairwise judgment flipped, as ``pairwise_judgments.jsonl`` says."""
    return {
        r["id"]: {(p["a"], p["b"]) for p in r["pairs"] if p.get("flipped")}
        for r in rows(run / "pairwise_judgments.jsonl")
    }
