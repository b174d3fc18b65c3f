"""The scoring queries both engines run, in the SQL subset DuckDB and Spark SQL share.

Given ``word_totals(w, h)`` and ``pair_totals(w1, w2, g)`` (summed counts), the queries drop
very frequent and rare words, build seed 003 §2.2's 2×2 table per pair, compute λ of eq. (1)
exactly as :func:`taiwa.resources.llr.llr` does (float64, ``f · ln(f · F / (row · col))`` per
cell, ``CASE WHEN`` for zero cells) and keep what the config asks. One text for both engines
is what keeps their tables identical. Numbers are inlined as literals (ints as integers,
floats as ``CAST('<repr>' AS DOUBLE)``, which both parse to the same float64).
"""

from __future__ import annotations

from taiwa.resources.cooccurrence.config import MinerConfig


def _double(value: float) -> str:
    return f"CAST('{float(value)!r}' AS DOUBLE)"


def excluded_words_sql(config: MinerConfig, F: int) -> str | None:
    """Words too frequent to pair (``exclude_top_k``, ``max_word_ratio``), or ``None``."""
    parts = []
    if config.max_word_ratio is not None:
        bound = f"{_double(config.max_word_ratio)} * {_double(F)}"
        parts.append(f"SELECT w FROM word_totals WHERE CAST(h AS DOUBLE) > {bound}")
    if config.exclude_top_k is not None:
        top = f"SELECT w FROM word_totals ORDER BY h DESC, w ASC LIMIT {config.exclude_top_k}"
        parts.append(f"SELECT w FROM ({top}) AS top_words")
    return " UNION ".join(parts) if parts else None


def kept_words_sql(config: MinerConfig, with_excluded: bool) -> str:
    """Words that may appear in a pair (reads ``excluded`` when ``with_excluded``)."""
    if not with_excluded:
        return f"SELECT w, h FROM word_totals WHERE h >= {config.min_word_count}"
    return (
        "SELECT t.w, t.h FROM word_totals AS t LEFT JOIN excluded AS e ON t.w = e.w "
        f"WHERE e.w IS NULL AND t.h >= {config.min_word_count}"
    )


def _cell(f: str, row: str, col: str) -> str:
    return f"CASE WHEN {f} = 0 THEN 0.0 ELSE {f} * ln({f} * n / ({row} * {col})) END"


def llr_sql() -> str:
    """λ of eq. (1) over columns ``f11 f12 f21 f22 r1 r2 c1 c2 n`` (all DOUBLE)."""
    cells = " + ".join(
        _cell(f, r, c)
        for f, r, c in (("f11", "r1", "c1"), ("f12", "r1", "c2"), ("f21", "r2", "c1"))
    )
    return f"GREATEST(0.0, 2.0 * ({cells} + {_cell('f22', 'r2', 'c2')}))"


def scored_pairs_sql(config: MinerConfig, F: int) -> str:
    """Every candidate pair of kept words with its table, feasibility, λ and direction."""
    if config.infeasible == "clip":
        feasible = f"a.h <= {F} AND b.h <= {F}"
        ge = f"GREATEST(LEAST(p.g, a.h, b.h), a.h + b.h - {F})"
    else:
        feasible = (
            f"a.h <= {F} AND b.h <= {F} AND p.g <= LEAST(a.h, b.h) AND a.h + b.h - p.g <= {F}"
        )
        ge = "p.g"
    candidates = (
        f"SELECT p.w1, p.w2, p.g, a.h AS hv, b.h AS hw, ({feasible}) AS feasible, {ge} AS ge "
        "FROM pair_totals AS p JOIN kept AS a ON p.w1 = a.w JOIN kept AS b ON p.w2 = b.w "
        f"WHERE p.g >= {config.min_pair_count}"
    )
    table = (
        "SELECT w1, w2, g, hv, hw, feasible, ge, "
        "CAST(ge AS DOUBLE) AS f11, CAST(hv - ge AS DOUBLE) AS f12, "
        f"CAST(hw - ge AS DOUBLE) AS f21, CAST({F} - hv - hw + ge AS DOUBLE) AS f22, "
        f"CAST(hv AS DOUBLE) AS r1, CAST({F} - hv AS DOUBLE) AS r2, "
        f"CAST(hw AS DOUBLE) AS c1, CAST({F} - hw AS DOUBLE) AS c2, {_double(F)} AS n "
        f"FROM ({candidates}) AS cand"
    )
    return (
        "SELECT w1, w2, g, ge, feasible, "
        f"CASE WHEN feasible THEN {llr_sql()} END AS llr, "
        "CASE WHEN feasible THEN f11 * n > r1 * c1 END AS positive "
        f"FROM ({table}) AS tab"
    )


def _kept_condition(config: MinerConfig) -> str:
    cond = f"feasible AND llr >= {_double(config.llr_threshold)}"
    return cond + (" AND positive" if config.positive_only else "")


def pair_counts_sql(config: MinerConfig) -> str:
    """One row: candidate, infeasible, clipped, negative and output pair counts."""

    def count(cond: str) -> str:
        return f"COALESCE(SUM(CASE WHEN {cond} THEN 1 ELSE 0 END), 0)"

    return (
        "SELECT COUNT(*) AS pairs_candidate, "
        f"{count('NOT feasible')} AS pairs_infeasible, "
        f"{count('feasible AND ge <> g')} AS pairs_clipped, "
        f"{count('feasible AND NOT positive')} AS pairs_negative, "
        f"{count(_kept_condition(config))} AS pairs_out FROM scored"
    )


def output_sql(config: MinerConfig) -> str:
    """The association table: ``w1, w2, g, llr`` sorted by ``(w1, w2)``."""
    return (
        "SELECT w1, w2, CAST(g AS BIGINT) AS g, llr FROM scored "
        f"WHERE {_kept_condition(config)} ORDER BY w1, w2"
    )
