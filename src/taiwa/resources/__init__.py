"""Association resources for the cohesion method (seed 003 §2.2).

:func:`llr` is eq. (1); :func:`mine_cooccurrence` mines LLR association pairs from a corpus
with DuckDB or Spark; :class:`AssociationPairs` loads a mined table for lookups. The engines
(``duckdb``, ``pyspark``) are imported only when a miner runs.
"""

from taiwa.resources.cooccurrence.config import (
    DuckDBSettings,
    MinerConfig,
    MiningCounts,
    MiningReport,
    SparkSettings,
)
from taiwa.resources.cooccurrence.table import AssociationPairs, meta_path, mine_cooccurrence
from taiwa.resources.llr import llr, llr_array

__all__ = [
    "AssociationPairs",
    "DuckDBSettings",
    "MinerConfig",
    "MiningCounts",
    "MiningReport",
    "SparkSettings",
    "llr",
    "llr_array",
    "meta_path",
    "mine_cooccurrence",
]
