"""``--tagger SPEC``: a chat model tags the acts of da-distribution (issue 26; seed 002 §3.1).

The prompt (:mod:`taiwa.annotators.llm_tagger`) gives the chitchat11 definitions of the
taxonomy (seed 002 §3.1, Fig. 1) and one example per act from the development split of the
bundled labelled set (never the held-out split ``taiwa validate tagger`` scores). The stage
asks once per system reply (and for the context when its act is not labelled), through the
runner like any role (cache, concurrency); an answer with no act is re-asked with the reason
(:class:`~taiwa.harness.method.Retry`) up to :data:`ATTEMPTS` times, then that reply stays
untagged and is counted (``invalid``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from taiwa.annotators.llm_tagger import INVALID, Example, LLMTagger, TagPrompt, count, parse_act
from taiwa.benchmarks.da_distribution.dataset import ContextItem
from taiwa.benchmarks.da_distribution.tagging import ModelTagger, TagStage
from taiwa.core.schema import Taxonomy
from taiwa.harness.method import REPAIRS, Retry, Row
from taiwa.models.base import ChatModel
from taiwa.models.types import ChatRequest, ChatResponse, GenerationParams

ATTEMPTS = 2
MAX_TOKENS = 48


@cache
def few_shot() -> tuple[Example, ...]:
    """The first development-split example of each act of the bundled labelled set."""
    from taiwa.annotators.da_classifier.model import held_out_split, load_examples

    seen: dict[str, Example] = {}
    for e in held_out_split(load_examples()[0])[0]:
        if e.act not in seen and len(e.reply) <= 40:
            seen[e.act] = Example(e.context, e.reply, e.act)
    return tuple(seen.values())


def tag_prompt(taxonomy: Taxonomy, seed: int) -> TagPrompt:
    """The prompt for ``taxonomy``: its examples in the taxonomy's act order."""
    params = GenerationParams(temperature=0.0, max_tokens=MAX_TOKENS, seed=seed)
    by_act = {e.act: e for e in few_shot()}
    examples = [by_act[a] for a in taxonomy.names if a in by_act]
    return TagPrompt(taxonomy, examples, params)


def llm_classifier(model: ChatModel, spec: str, taxonomy: Taxonomy, seed: int) -> LLMTagger:
    """``model`` (SPEC ``spec``) as a ``tag_many`` classifier (for ``taiwa validate tagger
    SPEC``)."""
    return LLMTagger(model, spec, tag_prompt(taxonomy, seed), ATTEMPTS)


class LLMTagStage(TagStage):
    """The ``tag`` stage with a chat model (same rows as :class:`TagStage`, plus
    ``repairs``)."""

    def __init__(self, tagger: ModelTagger, taxonomy: Taxonomy, seed: int, **kw: bool) -> None:
        super().__init__(tagger, taxonomy, **kw)
        self.role = "tagger"
        self.attempts = ATTEMPTS
        self.prompt = tag_prompt(taxonomy, seed)
        self._tries: dict[str, int] = {}

    def _targets(
        self, sample: ContextItem, upstream: Mapping[str, Mapping[str, Row]]
    ) -> tuple[list[str | None], list[ChatRequest], dict[str, str]]:
        """What each request tags (a system, or ``None`` for the context), the requests,
        and the acts already known."""
        texts, acts = self._to_tag(sample, upstream)
        keys: list[str | None] = list(texts)
        reqs = [self.prompt.request(f"{sample.id}/{s}", sample.context, texts[s]) for s in texts]
        if self._labelled_prev(sample)[0] is None:
            keys.append(None)
            reqs.append(self.prompt.request(sample.id, sample.before_context, sample.context))
        return keys, reqs, acts

    def requests(self, sample: ContextItem, upstream: Any) -> Sequence[ChatRequest]:
        return self._targets(sample, upstream)[1]

    def finish(
        self,
        sample: ContextItem,
        upstream: Mapping[str, Mapping[str, Row]],
        replies: Sequence[ChatResponse],
    ) -> Row | Retry:
        keys, _, acts = self._targets(sample, upstream)
        tries = self._tries.get(sample.id, 0) + 1
        parsed: dict[str | None, str] = {}
        repairs: dict[str, int] = {}
        errors: dict[str | None, str] = {}
        for key, reply in zip(keys, replies, strict=True):
            try:
                p = parse_act(reply.text or "", self.taxonomy)
            except ValueError as exc:
                errors[key] = str(exc)
                continue
            parsed[key] = p.act
            for kind, n in p.repairs.items():
                count(repairs, kind, n)
        if errors and tries < self.attempts:
            self._tries[sample.id] = tries
            return Retry(next(iter(errors.values())))
        self._tries.pop(sample.id, None)
        prev_act, prev_from = self._labelled_prev(sample)
        if prev_act is None and None in parsed:
            prev_act, prev_from = parsed[None], "tagger"
        acts.update({k: v for k, v in parsed.items() if k is not None})
        row: Row = {"prev_act": prev_act, "prev_from": prev_from, "acts": acts}
        untagged = {k: f"{INVALID} tagger output" for k in errors if k is not None}
        if untagged:
            row["untagged"] = untagged
        if errors:
            count(repairs, INVALID, len(errors))
        if repairs:
            row[REPAIRS] = repairs
        return row
