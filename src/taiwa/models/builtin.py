"""Built-in baseline chatters (``builtin:NAME``), deterministic given a seed.

- ``parrot``: おうむ返し, returns the last user utterance (the seed 002 baseline, Table 2).
- ``eliza``: an ELIZA-style Japanese rule-based chatter in the spirit of seed 003's ELIZA-type
  agent: the first matching rule reflects the user's words back; else a random fallback.
- ``fixed``: a fixed script of replies, whatever the input (line k for the k-th reply).
- ``random``: a random guess at a multiple-choice question: one of the numbered options
  (lines ``1. …``, ``2. …``) of the last user message, answered by its number, drawn from the
  seed and the message (the chance baseline of seed 004's benchmark); without numbered lines,
  one of the message's lines.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from taiwa.core.errors import TaiwaError
from taiwa.models.base import ConcurrentModel, refuse_audio
from taiwa.models.types import ChatRequest
from taiwa.text.normalize import nfkc

NAMES = ("parrot", "eliza", "fixed", "random")

_OPTION = re.compile(r"^\s*([0-9]{1,2})[.)．]\s*\S", re.M)


def _data_bytes(name: str) -> bytes:
    return resources.files("taiwa").joinpath(f"data/builtin/{name}").read_bytes()


def _data(name: str) -> Any:
    return yaml.safe_load(_data_bytes(name).decode("utf-8"))


@dataclass(frozen=True)
class ElizaRule:
    pattern: re.Pattern[str]
    responses: tuple[str, ...]


@cache
def eliza_rules() -> tuple[tuple[ElizaRule, ...], tuple[str, ...]]:
    """The bundled rules (team-written) and fallbacks."""
    data = _data("eliza_ja.yaml")
    rules = tuple(ElizaRule(re.compile(r["pattern"]), tuple(r["responses"])) for r in data["rules"])
    return rules, tuple(data["fallbacks"])


def _rng(seed: int, text: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}\x00{text}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def random_choice(text: str, seed: int = 0) -> str:
    """A seeded guess: the number of one numbered option of ``text`` (else one of its lines)."""
    rng = _rng(seed, text)
    numbers = _OPTION.findall(text)
    if numbers:
        return str(rng.choice(numbers))
    lines = [x for x in text.splitlines() if x.strip()] or [text]
    return rng.choice(lines)


def eliza_reply(text: str, seed: int = 0) -> str:
    """The ELIZA reply to ``text``: the first matching rule with its groups as ``{1}``, ``{2}``."""
    text = nfkc(text).strip()
    rules, fallbacks = eliza_rules()
    rng = _rng(seed, text)
    for rule in rules:
        m = rule.pattern.search(text)
        if m:
            template = rng.choice(rule.responses)
            return template.format(m.group(0), *(g or "" for g in m.groups()))
    return rng.choice(fallbacks)


class BuiltinModel(ConcurrentModel):
    """One of the built-in baselines; no network, no weights."""

    backend = "builtin"

    def __init__(self, name: str) -> None:
        if name not in NAMES:
            raise TaiwaError(f"unknown built-in model {name!r}: expected one of {', '.join(NAMES)}")
        self.name = name
        self.model_id = name
        files = {"eliza": "eliza_ja.yaml", "fixed": "fixed_script.yaml"}
        data = _data_bytes(files[name]) if name in files else b""
        self.identity = f"{name}:{hashlib.sha256(data).hexdigest()[:16]}"
        self.concurrency = 64
        self._script: tuple[str, ...] = (
            tuple(_data("fixed_script.yaml")["replies"]) if name == "fixed" else ()
        )

    async def _complete(self, request: ChatRequest) -> str:
        refuse_audio(request, f"builtin:{self.name}")
        if self.name == "parrot":
            return request.last_user_text
        if self.name == "eliza":
            return eliza_reply(request.last_user_text, request.params.seed)
        if self.name == "random":
            return random_choice(request.last_user_text, request.params.seed)
        turn = sum(1 for m in request.messages if m.role == "assistant")
        return self._script[(turn + request.params.seed) % len(self._script)]
