"""The LLR co-occurrence miner (seed 003 §2.2): counts, λ, filters, two engines, the pair table.

- :mod:`.config`: :class:`MinerConfig` (every setting, validated) and the report records;
- :mod:`.counts`: reading corpora (text, tokens, Web 1T n-grams) and the per-line counter;
- :mod:`.sql`: the scoring queries shared by both engines;
- :mod:`.duckdb_engine` (+ :mod:`.duckdb_text`, :mod:`.duckdb_ngrams`): embedded, out-of-core;
- :mod:`.spark_engine` and :mod:`.spark_submit` (its ``spark-submit`` entry point);
- :mod:`.table`: :func:`mine_cooccurrence` and :class:`AssociationPairs`, the written table.
"""
