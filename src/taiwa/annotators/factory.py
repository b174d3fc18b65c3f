"""``--annotator SPEC``: ``offline`` (sentence tagger), ``replay:FILE`` (sequences you have), or
any model SPEC (``demo``, ``openai:MODEL``, ``gguf:PATH`` …) for the LLM tagger."""

from __future__ import annotations

from collections.abc import Callable

from taiwa.annotators.base import DAAnnotator
from taiwa.models.base import ChatModel


def load_annotator(spec: str, model_loader: Callable[[str], ChatModel]) -> DAAnnotator:
    """Build the annotator; ``model_loader`` turns a model SPEC into a (cached) chat model."""
    if spec == "offline":
        from taiwa.annotators.sentence_da import default_sentence_tagger

        return default_sentence_tagger()
    if spec.startswith("replay:"):
        from taiwa.annotators.replay_da import ReplayAnnotator

        return ReplayAnnotator(spec.removeprefix("replay:"))
    from taiwa.annotators.llm_da import LLMDATagger

    return LLMDATagger(model_loader(spec))
