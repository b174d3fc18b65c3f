"""An LLM annotator outside a run, for ``taiwa validate annotator --annotator SPEC`` (issue 16).

The same requests as the annotate stage (:class:`~.annotate.LLMAnnotateStage`: the seed's
taxonomy with definitions and few-shot examples, JSON-schema constrained, temperature 0), the
same parsing, and the same repairs, counted by kind: ``re_asked`` rounds, ``renormalised``
importances, ``dropped_unknown_act`` steps, and outputs still invalid after the last attempt
(``invalid``: that reply counts as a failure).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING

from taiwa.annotators.steps_json import parse_steps
from taiwa.core.schema import DASequence
from taiwa.core.taxonomies import load_taxonomy
from taiwa.harness.method import RE_ASKED
from taiwa.models.json_replies import repair_turn

if TYPE_CHECKING:
    from taiwa.annotators.sentence_annotator import LabelledReply
    from taiwa.models.base import ChatModel
    from taiwa.models.types import ChatRequest

INVALID = "invalid"


def _count(repairs: dict[str, int], kind: str, n: int = 1) -> None:
    repairs[kind] = repairs.get(kind, 0) + n


def annotate_with_model(
    model: ChatModel,
    replies: Sequence[LabelledReply],
    attempts: int,
    seed: int,
    repairs: dict[str, int],
    max_tokens: int = 512,
) -> list[DASequence | None]:
    """The annotation of every reply by ``model`` (``None``: failed); ``repairs`` gets the
    counts by kind. A request that got no reply (its retries spent) is not asked again, as in a
    run; one that got an invalid answer is re-asked up to ``attempts`` times."""
    from taiwa.benchmarks.da_response.annotate import LLMAnnotateStage

    stage = LLMAnnotateStage(attempts, max_tokens, seed)
    taxonomy = load_taxonomy("assistant7")
    out: list[DASequence | None] = [None] * len(replies)
    pending: list[tuple[int, ChatRequest]] = [
        (k, stage.request(r.id, r.context, r.text)) for k, r in enumerate(replies)
    ]
    for attempt in range(1, attempts + 1):
        if not pending:
            break
        if attempt > 1:
            _count(repairs, RE_ASKED, len(pending))
        answers = asyncio.run(model.generate([req for _, req in pending]))
        retry: list[tuple[int, ChatRequest]] = []
        for (k, req), ans in zip(pending, answers, strict=True):
            if not ans.ok:
                _count(repairs, INVALID)
                continue
            try:
                parsed = parse_steps(ans.text or "", taxonomy)
            except ValueError as exc:
                if attempt == attempts:
                    _count(repairs, INVALID)
                    continue
                messages = [*req.messages, *repair_turn(ans.text or "", str(exc))]
                retry.append((k, req.model_copy(update={"messages": messages})))
                continue
            for kind, n in parsed.repairs.items():
                _count(repairs, kind, n)
            out[k] = parsed.sequence
        pending = retry
    return out
