"""Dialogue-act annotators: an LLM sequence tagger (seed 000 §4.1), an offline sentence-level
tagger, and a replay annotator for sequences you already have."""

from taiwa.annotators.base import Annotation, DAAnnotator, ReplyToAnnotate
from taiwa.annotators.factory import load_annotator

__all__ = ["Annotation", "DAAnnotator", "ReplyToAnnotate", "load_annotator"]
