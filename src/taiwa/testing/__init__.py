"""An OpenAI-compatible stub server with injectable faults, for tests, benchmarks and dry runs
(not used by a run)."""
