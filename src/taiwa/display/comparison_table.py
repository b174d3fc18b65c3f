"""The ``comparisons`` block (:func:`taiwa.metrics.comparisons.build_comparisons`) as a compact
terminal table that fits 80 columns, and as plain cells / Markdown for the report.

One row per pair × metric: the pair (``a − b``, :data:`~taiwa.metrics.flags.MARK` when a side's
number carries a flag), the metric with its direction, the difference with its 95 % interval,
the Holm-corrected p (``*`` when below α), the minimum detectable difference, the measured n
(marked when the row is small-n) and the items left out (scored by one side only, or imputed).
A pair with too few measured items has no test: its line under the table says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from taiwa.display.cells import clip, compact_table
from taiwa.display.fit import HeadedTable
from taiwa.metrics.flags import MARK

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


def _out(row: Mapping[str, Any]) -> str:
    """``only_a/only_b`` and the imputed items, or ``0``."""
    parts = []
    if row["only_a"] or row["only_b"]:
        parts.append(f"{row['only_a']}/{row['only_b']}")
    imputed = row.get("imputed_a", 0) + row.get("imputed_b", 0)
    if imputed:
        parts.append(f"{imputed} imp.")
    return " ".join(parts) or "0"


def _mdd(row: Mapping[str, Any], digits: int) -> str:
    """The MDD, or for 0/1 items whose MDD would exceed the share of items the systems differ
    on (no difference that small can be found), ``>`` that share."""
    if _missing(row["mdd"]) and row.get("discordant") and not row.get("no_test"):
        return f">{row['discordant'] / row['shared']:.{digits}f}"
    return _num(row["mdd"], digits)


def comparison_cells(row: Mapping[str, Any], digits: int = 3) -> dict[str, str]:
    """One comparison as plain strings, keyed by :data:`HEADERS` (no markup: the caller
    escapes for its medium). ``*`` marks a significant p, :data:`MARK` a flagged pair and a
    small-n row's n."""
    d = row["difference"]
    if _missing(d["value"]):
        diff = "–"
    elif row.get("no_test"):
        diff = f"{_num(d['value'], digits, True)} (no test)"
    else:
        ci = f"[{_num(d['ci_low'], digits, True)}, {_num(d['ci_high'], digits, True)}]"
        diff = f"{_num(d['value'], digits, True)} {ci}"
    pair = f"{row['a']} − {row['b']}" + (f" {MARK}" if row.get("flags") else "")
    return {
        "pair": pair,
        "metric": f"{row['label']} {ARROW[row['direction']]}",
        "a − b [95% CI]": diff,
        "p Holm": _p(row["p_holm"]) + ("*" if row["significant"] else ""),
        "MDD": _mdd(row, digits),
        "n": str(row["shared"]) + (MARK if row.get("small_n") else ""),
        "out": _out(row),
    }


def caption(block: Mapping[str, Any]) -> str:
    """What the table's numbers are, in one paragraph, and why a pair has no test."""
    vs = f" vs baseline {block['baseline']}" if block.get("baseline") else ""
    k = block["family"]
    power = block.get("power", 0.8)
    text = (
        f"paired over the items both sides measured{vs}; * Holm-corrected p < {block['alpha']} "
        f"over {k} test{'s' if k != 1 else ''} (better system in bold); the interval holds 0 "
        f"exactly when the raw p ≥ 0.05; MDD: the difference found at power {power} after "
        f"Holm over {k} test{'s' if k != 1 else ''}; n: items measured on both sides; out: "
        "items only a / only b scored, and imp.: items where a side's value is imputed (a "
        "rule's, not a measurement), all left out"
    )
    rows = block.get("rows", [])
    if any(_mdd(r, 3).startswith(">") for r in rows):
        text += "; MDD >x: more than the share x of items the systems differ on"
    if any(r.get("small_n") for r in rows):
        text += (
            f"; {MARK} after n: fewer than 10 items (30 for scores), the interval's coverage is "
            "not established"
        )
    if any(r.get("flags") for r in rows):
        text += f"; {MARK} after a pair: a side's number carries a flag (listed below)"
    untested: dict[tuple[str, str, str], list[str]] = {}
    for r in rows:
        if r.get("no_test"):
            untested.setdefault((r["a"], r["b"], r["no_test"]), []).append(r["label"])
    for (a, b, why), labels in untested.items():
        text += f"\nno test for {a} − {b} ({', '.join(labels)}): {why}"
    return text


def flag_lines(block: Mapping[str, Any]) -> list[str]:
    """The block's flags (those of the compared systems' numbers), one line each."""
    return [f"{MARK} {f['system']} · {f['on']}: {f['text']}" for f in block.get("flags", ()) or ()]


def comparisons_table(block: Mapping[str, Any], title: str = "paired comparisons") -> Table:
    """The block as a rich table without vertical rules. Its pairs name the groups of rows
    (:class:`~taiwa.display.fit.HeadedTable`): where the table does not fit the terminal as it
    is (80 columns, long system names), each pair is printed once on a line of its own above
    its metrics, so that no system name is wrapped."""
    t = compact_table(title, caption=caption(block), kind=HeadedTable)
    t.caption_justify = "left"
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
            f"{a} − {b}" + (f" {MARK}" if row.get("flags") else ""),
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
            cells["pair"] = f"{a} − {b}" + (f" {MARK}" if row.get("flags") else "")
        lines.append("| " + " | ".join(cells[h] for h in HEADERS) + " |")
    text = esc(caption(block)).replace("\n", "  \n")
    return "\n".join(lines) + "\n\n" + text + "\n"
