"""Dialogue-act annotation that knows no method: parsing and validating an LLM's DA sequence
(:mod:`.steps_json`), an offline sentence-level tagger trained on examples a method hands in
(:mod:`.sentence_tagger`), and sequences read from a file (:mod:`.replay`)."""
