"""The ``comparisons`` block (:func:`taiwa.metrics.comparisons.build_comparisons`) as a compact
terminal table that fits 80 columns, and as plain cells / Markdown for the report.

One row per pair × metric: the pair (``a − b``), the metric with its direction, the
difference with its 95 % CI, the Holm-corrected p (``*`` when below α), the minimum
detectable difference, the shared n and the items left out (scored by one side only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from taiwa.display.cells import clip, compact_table
from taiwa.display.fit import HeadedTable

ARROW = {"higher": "↑", "lower": "↓"}
HEADERS = ("pair", "metric", "a − b [95% CI]", "p Holm", "MDD", "n", "out")


def _missing(x: Any) -> bool:
    """NaN in a fresh block, ``null`` in one read back from summary.json."""
    return x is None or x != x


def _num(x: float | None, digits: int = 3, sign: bool = False) -> str:
    if x is None or x != x:
        return "–"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _p(x: float | None) -> str:
    if x is None or x != x:
        return "–"
    return "<.001" if x < 0.001 else f"{x:.3f}"


def comparison_cells(row: Mapping[str, Any], digits: int = 3) -> dict[str, str]:
    """One comparison as plain strings, keyed by :data:`HEADERS` (no markup: the caller
    escapes for its medium). ``out`` is ``only_a/only_b``; ``*`` marks a significant p."""
    d = row["difference"]
    ci = f"[{_num(d['ci_low'], digits, True)}, {_num(d['ci_high'], digits, True)}]"
    diff = "–" if _missing(d["value"]) else f"{_num(d['value'], digits, True)} {ci}"
    return {
        "pair": f"{row['a']} − {row['b']}",
        "metric": f"{row['label']} {ARROW[row['direction']]}",
        "a − b [95% CI]": diff,
        "p Holm": _p(row["p_holm"]) + ("*" if row["significant"] else ""),
        "MDD": _num(row["mdd"], digits),
        "n": str(row["shared"]),
        "out": f"{row['only_a']}/{row['only_b']}" if row["only_a"] or row["only_b"] else "0",
    }


def caption(block: Mapping[str, Any]) -> str:
    """What the table's numbers are, in one paragraph."""
    vs = f" vs baseline {block['baseline']}" if block.get("baseline") else ""
    return (
        f"paired over shared items{vs}; * Holm-corrected p < {block['alpha']} over "
        f"{block['family']} comparisons (better system in bold); MDD: difference this n "
        "detects at α 0.05, power 0.8; out: items only a / only b scored, left out"
    )


def comparisons_table(block: Mapping[str, Any], title: str = "paired comparisons") -> Table:
    """The block as a rich table without vertical rules. Its pairs name the groups of rows
    (:class:`~taiwa.display.fit.HeadedTable`): where the table does not fit the terminal as it
    is (80 columns, long system names), each pair is printed once on a line of its own above
    its metrics, so that no system name is wrapped."""
    t = compact_table(title, caption=caption(block), kind=HeadedTable)
    t.add_column("pair", no_wrap=True)
    t.add_column("metric", no_wrap=True)
    t.add_column("a − b [95% CI]", justify="right", no_wrap=True)
    for name in HEADERS[3:]:
        t.add_column(name, justify="right", no_wrap=True)
    for row in block["rows"]:
        cells = comparison_cells(row)
        a, b = clip(str(row["a"]), 40), clip(str(row["b"]), 40)
        if row["better"] is not None:
            a, b = (
                (f"[bold]{a}[/bold]", b) if row["better"] == row["a"] else (a, f"[bold]{b}[/bold]")
            )
        diff = cells["a − b [95% CI]"]
        t.add_row(
            f"{a} − {b}",
            clip(cells["metric"], 40),
            f"[bold]{diff}[/bold]" if row["significant"] else diff,
            *(cells[h] for h in HEADERS[3:]),
        )
    return t


def comparisons_markdown(block: Mapping[str, Any]) -> str:
    """The block as a Markdown table (cells of :func:`comparison_cells`, ``|`` escaped)."""

    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("|", "\\|")

    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for row in block["rows"]:
        cells = {h: esc(c) for h, c in comparison_cells(row).items()}
        a, b = esc(str(row["a"])), esc(str(row["b"]))
        if row["better"] is not None:
            a, b = (f"**{a}**", b) if row["better"] == row["a"] else (a, f"**{b}**")
            cells["pair"] = f"{a} − {b}"
        lines.append("| " + " | ".join(cells[h] for h in HEADERS) + " |")
    return "\n".join(lines) + "\n\n" + esc(caption(block)) + "\n"
