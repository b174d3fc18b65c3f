"""The `taiwa` command line (the top floor): every command, the demo, and the Python entry point
`compare`; the only layer that resolves method names."""
