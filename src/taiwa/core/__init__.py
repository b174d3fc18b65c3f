"""Records and helpers shared by every layer: pydantic records, one-line errors, taxonomies,
bundled sample paths, file I/O, secret redaction."""
