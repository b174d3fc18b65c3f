"""``taiwa build intent``: candidates from a dialogue corpus, additional contexts and the
questions of the intent benchmark (seed 004 §2.1–2.3), and the final shuffle (§3.2).

Steps, with any chat model:

1. **extraction** (§2.1): per dialogue, up to ``per_dialogue`` (context sentence by B, core
   sentence by A, implied intent) candidates; each extracted core sentence is a *group*;
2. **additional contexts** (§2.2): per kept extracted candidate, ``contexts`` new context
   sentences after which the same core sentence implies a different intent, with that intent;
   a filter (:mod:`.filters`) drops too-direct or unnatural candidates after steps 1 and 2;
3. **questions** (§2.3): the items of one group share one option list, the group's intents in a
   seeded random order (at most ``MAX_OPTIONS - 1``: the first that survive the filter) and
   「該当なし」 last. One question per candidate, its id the candidate's id;
6. **shuffle** (§3.2): after the annotation (steps 4–5, :mod:`.sheets`) the benchmark is put in
   one seeded random order, so that its first n items are a random sample of it.

Every model reply is JSON (:mod:`.builder_prompts`), repaired by re-asking with the error
(bounded); what never parses is counted per step, never a crash.

``questions.jsonl`` holds one :class:`~.build_records.Question` per line: the
:class:`IntentItem` fields without ``gold`` and ``votes``, plus ``intended`` (the index of the
intent the model wrote for this context: a hint, not the gold label, which the annotators
decide)::

    {"id": "ic-01-c1-x1", "group": "ic-01-c1", "context": "…", "core": "…",
     "options": ["…", "…", "…", "該当なし"], "intended": 2, "source": "…"}
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from taiwa.benchmarks.intent.build_records import MAX_OPTIONS, Candidate, Question
from taiwa.benchmarks.intent.build_settings import BuildSettings, ask_json, json_request
from taiwa.benchmarks.intent.builder_prompts import (
    contexts_prompt,
    extraction_prompt,
    parse_candidates,
    parse_contexts,
)
from taiwa.benchmarks.intent.dataset import NONE_OF_THESE, IntentItem
from taiwa.core.schema import Dialogue
from taiwa.models.base import ChatModel
from taiwa.models.types import ChatRequest
from taiwa.text.normalize import nfkc

if TYPE_CHECKING:
    from taiwa.benchmarks.intent.filters import CandidateFilter

T = TypeVar("T")

_TEXT = {"type": "string", "minLength": 1}
EXTRACT_SCHEMA = {
    "type": "object",
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"context": _TEXT, "core": _TEXT, "intent": _TEXT},
                "required": ["context", "core", "intent"],
            },
        }
    },
    "required": ["candidates"],
}
CONTEXTS_SCHEMA = {
    "type": "object",
    "properties": {
        "contexts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"context": _TEXT, "intent": _TEXT},
                "required": ["context", "intent"],
            },
        }
    },
    "required": ["contexts"],
}


@dataclass
class BuildReport:
    """What a build produced and what it dropped, with the reasons."""

    dialogues: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    unparseable: Counter[str] = field(default_factory=Counter)
    """Model replies that never gave valid JSON, per step (extract, contexts, filter)."""
    dropped: Counter[str] = field(default_factory=Counter)
    """Candidates dropped, per reason."""
    failures: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, Any]:
        origins = Counter(c.origin for c in self.candidates)
        return {
            "dialogues": self.dialogues,
            "extracted": origins["extracted"],
            "generated": origins["generated"],
            "unparseable": dict(self.unparseable),
            "dropped": dict(self.dropped),
            "questions": len(self.questions),
            "groups": len({q.group for q in self.questions}),
        }


async def build_questions(
    model: ChatModel,
    dialogues: Sequence[Dialogue],
    settings: BuildSettings,
    keep: CandidateFilter,
    step: Callable[[str], None] = lambda _: None,
) -> BuildReport:
    """Steps 1–3 on ``dialogues``; ``step`` is told which step starts (for a status line)."""
    report = BuildReport(dialogues=len(dialogues))
    step("extracting candidates (seed 004 §2.1)")
    extracted = await extract_candidates(model, dialogues, settings, report)
    step(f"filtering {len(extracted)} extracted candidate(s) ({keep.name})")
    await _filter(keep, extracted, report)
    seeds = [c for c in extracted if c.dropped is None]
    step(f"writing additional contexts for {len(seeds)} core sentence(s) (seed 004 §2.2)")
    generated = await write_contexts(model, seeds, settings, report)
    step(f"filtering {len(generated)} written context(s) ({keep.name})")
    await _filter(keep, generated, report)
    report.candidates = _by_group(extracted, generated)
    report.questions = assemble_questions(report.candidates, settings.seed, report.dropped)
    return report


async def _ask(
    model: ChatModel,
    requests: list[ChatRequest],
    parse: Callable[[str], list[T]],
    settings: BuildSettings,
    report: BuildReport,
) -> list[list[T]]:
    """The parsed replies; one that never parses is an empty list, counted in ``report``
    under its step (the request id's prefix) with the last output."""
    out: list[list[T]] = []
    for outcome in await ask_json(model, requests, parse, settings):
        if outcome.value is None:
            step = outcome.id.split(":", 1)[0]
            report.unparseable[step] += 1
            report.failures.append(
                {
                    "step": step,
                    "request": outcome.id,
                    "attempts": outcome.attempts,
                    "error": outcome.error,
                    "output": (outcome.raw or "")[:2000],
                }
            )
        out.append(outcome.value or [])
    return out


async def extract_candidates(
    model: ChatModel, dialogues: Sequence[Dialogue], settings: BuildSettings, report: BuildReport
) -> list[Candidate]:
    """Step 1: the extracted candidates, a repeated core sentence of one dialogue once."""
    requests = [
        json_request(
            f"extract:{d.id}", extraction_prompt(d, settings.per_dialogue), settings, EXTRACT_SCHEMA
        )
        for d in dialogues
    ]
    replies = await _ask(model, requests, parse_candidates, settings, report)
    out: list[Candidate] = []
    for dialogue, found in zip(dialogues, replies, strict=True):
        seen: set[str] = set()
        for ex in found[: settings.per_dialogue]:
            if _key(ex.core) in seen:
                report.dropped["repeated core sentence"] += 1
                continue
            seen.add(_key(ex.core))
            cid = f"{dialogue.id}-c{len(seen)}"
            out.append(
                _candidate(cid, cid, dialogue.id, "extracted", ex.context, ex.core, ex.intent)
            )
    return out


async def write_contexts(
    model: ChatModel, seeds: Sequence[Candidate], settings: BuildSettings, report: BuildReport
) -> list[Candidate]:
    """Step 2: ``settings.contexts`` new contexts per extracted candidate."""
    requests = [
        json_request(
            f"contexts:{c.id}",
            contexts_prompt(c.context, c.core, c.intent, settings.contexts),
            settings,
            CONTEXTS_SCHEMA,
        )
        for c in seeds
    ]
    replies = await _ask(model, requests, parse_contexts, settings, report)
    out: list[Candidate] = []
    for seed, written in zip(seeds, replies, strict=True):
        for k, w in enumerate(written[: settings.contexts], start=1):
            cid = f"{seed.id}-x{k}"
            out.append(
                _candidate(cid, seed.id, seed.dialogue, "generated", w.context, seed.core, w.intent)
            )
    return out


def _candidate(
    cid: str, group: str, dialogue: str, origin: str, context: str, core: str, intent: str
) -> Candidate:
    return Candidate.model_validate(
        {
            "id": cid,
            "group": group,
            "dialogue": dialogue,
            "origin": origin,
            "context": context,
            "core": core,
            "intent": intent,
        }
    )


async def _filter(keep: CandidateFilter, candidates: list[Candidate], report: BuildReport) -> None:
    """Mark the candidates ``keep`` drops (in place), counting reasons and unparseable replies."""
    decisions = await keep(candidates)
    for k, (cand, decision) in enumerate(zip(candidates, decisions, strict=True)):
        if decision.unparseable:
            report.unparseable["filter"] += 1
        if not decision.keep:
            report.dropped[decision.reason] += 1
            candidates[k] = cand.model_copy(update={"dropped": decision.reason})


def _by_group(extracted: list[Candidate], generated: list[Candidate]) -> list[Candidate]:
    """Each extracted candidate followed by the contexts written for it."""
    children: dict[str, list[Candidate]] = {}
    for c in generated:
        children.setdefault(c.group, []).append(c)
    return [c for seed in extracted for c in (seed, *children.get(seed.id, []))]


def _key(text: str) -> str:
    return "".join(nfkc(text).split()).rstrip("。．.！!？?")


def assemble_questions(
    candidates: Iterable[Candidate], seed: int, dropped: Counter[str] | None = None
) -> list[Question]:
    """Step 3: one question per kept candidate; a group's options are its first
    ``MAX_OPTIONS - 1`` distinct intents in a seeded order (by seed and group, so one group's
    order does not depend on the others) and 「該当なし」 last. Generated contexts whose
    intent repeats one of the group (or is 「該当なし」) or that come after the option limit
    are dropped and counted in ``dropped``."""
    counter = dropped if dropped is not None else Counter()
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        if c.dropped is None:
            groups.setdefault(c.group, []).append(c)
    out: list[Question] = []
    for group, members in groups.items():
        chosen: list[Candidate] = []
        intents: set[str] = {_key(NONE_OF_THESE)}
        for c in members:
            if _key(c.intent) in intents:
                counter["same intent as another context"] += 1
            elif len(chosen) >= MAX_OPTIONS - 1:
                counter[f"beyond {MAX_OPTIONS} options"] += 1
            else:
                chosen.append(c)
                intents.add(_key(c.intent))
        if not chosen:
            continue
        core = members[0].core
        options = [c.intent for c in chosen]
        random.Random(f"intent-options:{seed}:{group}").shuffle(options)
        options.append(NONE_OF_THESE)
        for c in chosen:
            out.append(
                Question(
                    id=c.id,
                    group=group,
                    context=c.context,
                    core=core,
                    options=options,
                    intended=options.index(c.intent),
                    source=f"{c.origin} from dialogue {c.dialogue}",
                )
            )
    return out


def shuffle_items(items: Iterable[IntentItem], seed: int) -> list[IntentItem]:
    """Step 6 (seed 004 §3.2): the items in one seeded random order, independent of the order
    they come in (they are sorted by id first); the seed is recorded in each item's
    ``source`` so that the file says how its prefixes were drawn."""
    ordered = sorted(items, key=lambda it: it.id)
    random.Random(f"intent-order:{seed}").shuffle(ordered)
    note = f"order seed {seed}"
    return [
        it.model_copy(update={"source": f"{it.source}; {note}" if it.source else note})
        for it in ordered
    ]
