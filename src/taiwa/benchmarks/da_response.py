"""``da-response`` (seed 000): does the system answer with the right dialogue acts, in order?

Requests use the App. B prompts (text mode: the input text stands in for the audio, followed by
the App. B user prompt verbatim). Each reply is annotated into a DA sequence (seed 000 §4.1) and
compared with the gold sequence by Weighted LCS and WED with its breakdown. The summary follows
seed 000 Table 1 (mean and SD of WLCS and WED, mean deletion/insertion/substitution, with n,
annotation failures and bootstrap CIs) and picks Table 2's representative examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from taiwa.annotators.base import Annotation, DAAnnotator, ReplyToAnnotate
from taiwa.benchmarks.base import Scored
from taiwa.datasets.da_response import DAResponseItem, load_da_response
from taiwa.file_scoring import mean_estimate
from taiwa.metrics import wed, wlcs
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, ContentPart, GenerationParams
from taiwa.prompts import seed000
from taiwa.samples import sample_path

PARTS = ("deletion", "insertion", "substitution")


def _steps(seq: Any) -> list[dict[str, Any]]:
    return [{"act": s.act, "importance": round(s.importance, 4)} for s in seq.steps]


class DAResponseBenchmark:
    name = "da-response"
    default_annotator = "offline"
    prompts = {  # noqa: RUF012 - hashed into config.json
        "response_system": seed000.RESPONSE_SYSTEM,
        "response_user": seed000.RESPONSE_USER,
        "annotation": seed000.TAXONOMY + seed000.FEW_SHOT + seed000.ANNOTATION_TASK,
    }

    def default_data(self) -> Path:
        return sample_path("da_response/gold.jsonl")

    def load(self, path: Path) -> list[DAResponseItem]:
        return load_da_response(path)

    def requests(
        self, samples: Sequence[DAResponseItem], params: GenerationParams
    ) -> list[ChatRequest]:
        return [
            ChatRequest(
                id=s.id,
                messages=[
                    ChatMessage(role="system", content=seed000.RESPONSE_SYSTEM),
                    ChatMessage(
                        role="user",
                        content=[
                            ContentPart(type="text", text=s.input.text),
                            ContentPart(type="text", text=seed000.RESPONSE_USER),
                        ],
                    ),
                ],
                params=params,
            )
            for s in samples
        ]

    async def annotate(
        self,
        samples: Sequence[DAResponseItem],
        responses: Sequence[ChatResponse],
        annotator: DAAnnotator,
    ) -> list[Annotation]:
        todo = [
            ReplyToAnnotate(s.id, s.input.text, r.text or "")
            for s, r in zip(samples, responses, strict=True)
            if r.ok
        ]
        done = {a.id: a for a in await annotator.annotate(todo)}
        return [done.get(s.id, Annotation(s.id, None, "no reply to annotate")) for s in samples]

    def score(
        self,
        samples: Sequence[DAResponseItem],
        responses: Sequence[ChatResponse],
        seed: int,
        annotations: Sequence[Annotation] | None = None,
    ) -> Scored:
        by_id = {a.id: a for a in annotations or []}
        rows: list[dict[str, Any]] = []
        for s, r in zip(samples, responses, strict=True):
            row: dict[str, Any] = {
                "id": s.id,
                "input": s.input.text,
                "reply": r.text,
                "gold_text": s.output.text,
            }
            ann = by_id.get(s.id)
            if not r.ok:
                row.update(scored=False, error=f"generation failed: {r.error}")
            elif ann is None or ann.sequence is None:
                row.update(
                    scored=False, error=f"annotation failed: {ann.error if ann else 'missing'}"
                )
            else:
                w = wed(ann.sequence, s.gold)
                row.update(
                    scored=True,
                    wlcs=wlcs(ann.sequence, s.gold),
                    wed=w.total,
                    deletion=w.deletion,
                    insertion=w.insertion,
                    substitution=w.substitution,
                    pred_steps=_steps(ann.sequence),
                    gold_steps=_steps(s.gold),
                )
            rows.append(row)
        scored = [row for row in rows if row["scored"]]
        summary: dict[str, Any] = {
            "n_scored": len(scored),
            "generation_failures": sum(1 for r in responses if not r.ok),
            "annotation_failures": sum(
                1 for row in rows if str(row.get("error", "")).startswith("annotation")
            ),
        }
        if scored:
            for key in ("wlcs", "wed", *PARTS):
                summary[key] = mean_estimate([row[key] for row in scored], seed)
            summary["examples"] = representative_examples(scored)
        return Scored(rows, summary)


def representative_examples(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Seed 000 Table 2: the rows with maximal insertion, deletion, substitution and minimal WED.

    A "max" profile is left out when no row has that cost at all."""
    picks = {
        "max_insertion": max(rows, key=lambda r: r["insertion"]),
        "max_deletion": max(rows, key=lambda r: r["deletion"]),
        "max_substitution": max(rows, key=lambda r: r["substitution"]),
        "min_wed": min(rows, key=lambda r: r["wed"]),
    }
    keep = ("id", "input", "gold_text", "gold_steps", "reply", "pred_steps", "wed", *PARTS)
    return {
        name: {k: row[k] for k in keep}
        for name, row in picks.items()
        if name == "min_wed" or row[name.removeprefix("max_")] > 0
    }
