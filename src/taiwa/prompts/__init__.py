"""Prompt texts taken verbatim from the seeds (they are part of the specification)."""
