"""Dialogue-act annotation that knows no method.

Parsing and validating an LLM's DA sequence (:mod:`.steps_json`), the shared classifier trained
per taxonomy (:mod:`.da_classifier`), applied sentence by sentence with an importance model
(:mod:`.sentence_annotator`), scoring annotators against gold (:mod:`.validation`), and
sequences read from a file (:mod:`.replay`)."""
