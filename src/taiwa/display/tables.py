"""Rich tables for the terminal: cells shared by every method's tables and a run's result."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.markup import escape
from rich.table import Table

from taiwa.display.cells import CLIP, clip, compact_table
from taiwa.metrics.flags import flag_lines, marked, too_few

__all__ = [
    "CLIP",
    "calls_table",
    "ci_cell",
    "clip",
    "compact_table",
    "confusion_table",
    "lift_table",
    "note_line",
    "print_result",
    "systems_table",
    "totals_line",
]

if TYPE_CHECKING:
    from rich.console import Console


def bound(x: Any, digits: int) -> str:
    """One end of a CI (``–`` when there is none: ``None`` or NaN, e.g. nothing to resample)."""
    return "–" if x is None or x != x else f"{x:.{digits}f}"


def small_marked(cell: str, d: Mapping[str, Any]) -> str:
    """``cell`` marked :data:`~taiwa.metrics.flags.MARK` when the estimate ``d`` rests on fewer than
    :data:`~taiwa.metrics.flags.CI_MIN_N` items."""
    return marked(cell) if "n" in d and too_few(d) else cell


def ci_cell(d: Mapping[str, Any] | None, digits: int = 3) -> str:
    """An estimate as ``value`` over ``[low, high]`` (``–`` when missing or NaN; a missing
    bound, when the estimate has no interval, is ``–`` too), marked
    :data:`~taiwa.metrics.flags.MARK`
    when it rests on fewer than :data:`~taiwa.metrics.flags.CI_MIN_N` items."""
    if not d or d.get("value") is None or d["value"] != d["value"]:
        return "–"
    ci = max(2, digits - 1)
    lo, hi = bound(d.get("ci_low"), ci), bound(d.get("ci_high"), ci)
    cell = f"{d['value']:.{digits}f}\n[{lo}, {hi}]"
    return small_marked(cell, d)


def systems_table(
    summary: Mapping[str, Any], title: str, metrics: Mapping[str, str], caption: str = ""
) -> Table:
    """One row per system of a run summary: n and each metric's estimate with its CI."""
    t = Table(title=title, title_justify="left", caption=caption or None)
    t.add_column("system", no_wrap=True)
    t.add_column("n", justify="right", no_wrap=True, min_width=3)
    for label in metrics.values():
        t.add_column(label, justify="right")
    for system, block in summary["systems"].items():
        n = f"{block.get('scored', '–')}/{block.get('n', '–')}"
        t.add_row(clip(system), n, *(ci_cell(block.get(k), 2) for k in metrics))
    return t


def ci_inline(d: dict[str, Any], digits: int = 3) -> str:
    v = d["value"]
    if v is None or v != v:  # NaN
        return "–"
    lo, hi = bound(d.get("ci_low"), digits), bound(d.get("ci_high"), digits)
    cell = f"{v:.{digits}f} [{lo}, {hi}]"
    return small_marked(cell, d)


def lift_table(tl: Any, title: str) -> Table:
    """Seed 002 Fig. 2 as numbers: rows are the previous act (``k name``), columns the next
    act by row number, so that eleven Japanese act names fit an 80-column terminal."""
    code = [str(k) for k in range(1, len(tl.labels) + 1)]
    t = compact_table(f"{title} (rows: previous act; columns: next act, by row number)")
    t.add_column("prev \\ next", no_wrap=True)
    for c in code:
        t.add_column(c, justify="right", no_wrap=True)
    for i, lab in enumerate(tl.labels):
        cells = ("–" if v != v else f"{v:.0f}" if v >= 10 else f"{v:.1f}" for v in tl.lift[i])
        t.add_row(f"{code[i]} {clip(lab)}", *cells)
    return t


def note_line(note: str) -> str:
    """A note printed beside the numbers, its text escaped (it may quote input)."""
    return f"[yellow]note:[/yellow] {escape(note)}"


CALLS_CAPTION = (
    "req: requests the role's stages made (repair rounds included); hit: answered from the "
    "cache; sent: the rest, handed to the backend (req = hit + sent); own: HTTP requests the "
    "backend made on its own (retries after 5xx/429/timeouts, structured-output probes the "
    "server refused); fail: requests with no reply; fix: outputs repaired by re-asking; bad: "
    "still invalid after the last attempt; s: the role's wall time (overlapping stages once)"
)


def calls_table(calls: list[dict[str, Any]]) -> Table:
    """Model calls per role of a run summary (columns defined in :data:`CALLS_CAPTION`); the
    caption goes on to name, per role, the retries and probes behind ``own`` and every repair
    made to accept an output, by kind."""
    own = [
        f"{c['role']} {c['spec']}: {c.get('retries', 0)} retries, {c.get('probes', 0)} probes"
        for c in calls
        if c.get("retries", 0) or c.get("probes", 0)
    ]
    repairs = [
        f"{c['role']} {c['spec']}: " + ", ".join(f"{k} {v}" for k, v in c["repairs"].items())
        for c in calls
        if c.get("repairs")
    ]
    caption = CALLS_CAPTION
    caption += f". own: {'; '.join(own)}" if own else ""
    caption += f". Repairs by kind: {'; '.join(repairs)}" if repairs else ""
    t = compact_table("model calls per role", caption=caption)
    t.caption_justify = "left"
    # On a narrow terminal the model column wraps; counts and headers keep whole.
    t.add_column("role", no_wrap=True, min_width=4)
    t.add_column("model", max_width=28, overflow="fold")
    for name in ("req", "hit", "sent", "own", "fail", "fix", "bad", "s"):
        t.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    for c in calls:
        counts = [c["requests"], c.get("cache_hits", 0), c["calls"]]
        counts.append(c.get("retries", 0) + c.get("probes", 0))
        counts += [c.get("failures", 0), c.get("repaired", 0), c.get("invalid", 0)]
        t.add_row(c["role"], c["spec"], *(str(n) for n in counts), f"{c['seconds']:.1f}")
    return t


COST_CAPTION = (
    "in, out: tokens of the replies the backend made (from the reply's usage, or counted by "
    "a local backend); cached: tokens of replies served from the cache, which cost nothing; "
    "unknown: replies whose usage nobody reported (sent + cached; not counted as zero)"
)


def _tokens(n: Any) -> str:
    return "?" if n is None else f"{n:,}"


def _usd(cost: Any, lower_bound: Any) -> str:
    return "-" if cost is None else f"{'≥' if lower_bound else ''}{cost:.4f}"


def cost_table(
    calls: list[dict[str, Any]], totals: Mapping[str, Any] | None = None
) -> Table | None:
    """Tokens in and out per role and model, cached tokens apart, and with prices the cost in
    USD (``≥`` when replies of unknown usage were left out; ``cached`` for a role whose every
    reply came from the cache); below, with several roles, the run's ``total`` (``totals``
    of summary.json); None when no model of the run counts tokens."""
    rows = [c for c in calls if c.get("tokens_in") is not None]
    if not rows:
        return None
    priced = any(c.get("cost_usd") is not None for c in rows)
    caption = COST_CAPTION + (
        "; USD: (in × price in + out × price out) / 10⁶, ≥ when usage was unknown"
        if priced
        else "; --price MODEL=IN,OUT (USD per million tokens) adds the cost"
    )
    t = compact_table("tokens per role", caption=caption)
    t.caption_justify = "left"
    t.add_column("role", no_wrap=True, min_width=4)
    t.add_column("model", max_width=28, overflow="fold")
    for name in ("in", "out", "cached in", "cached out", "unknown"):
        t.add_column(name, justify="right", no_wrap=True)
    if priced:
        t.add_column("USD", justify="right", no_wrap=True)
    for c in rows:
        cells = [
            c["role"],
            c["spec"],
            _tokens(c.get("tokens_in")),
            _tokens(c.get("tokens_out")),
            _tokens(c.get("cached_tokens_in")),
            _tokens(c.get("cached_tokens_out")),
            str(c.get("usage_unknown", 0) + c.get("cached_usage_unknown", 0)),
        ]
        if priced:  # a role answered wholly from the cache cost nothing: "cached"
            cached = c.get("cache_hits") and not c.get("calls")
            cells.append("cached" if cached else _usd(c.get("cost_usd"), c.get("cost_lower_bound")))
        t.add_row(*cells)
    if totals is not None and len(rows) > 1 and totals.get("tokens_in") is not None:
        cells = [
            "total",
            "",
            *(_tokens(totals.get(k)) for k in ("tokens_in", "tokens_out")),
            *(_tokens(totals.get(k)) for k in ("cached_tokens_in", "cached_tokens_out")),
            str(totals.get("usage_unknown", 0)),
        ]
        if priced:
            cached = not totals["tokens_in"] and not totals["tokens_out"]
            cached = cached and bool(totals["cached_tokens_in"] or totals["cached_tokens_out"])
            cost = _usd(totals.get("cost_usd"), totals.get("cost_lower_bound"))
            cells.append("cached" if cached and not totals.get("usage_unknown") else cost)
        t.rows[-1].end_section = True
        t.add_row(*cells, style="bold")
    return t


def totals_line(totals: Mapping[str, Any]) -> str:
    """The run's total in one line (``totals`` of summary.json, issue 42): requests, those
    from the cache apart, tokens and cost, and the requests retried or failed, which a paid
    API may bill though no token count holds them."""
    parts = [
        f"{totals['requests']:,} request(s) ({totals['cache_hits']:,} from the cache, "
        f"{totals['calls']:,} sent)"
    ]
    if totals.get("tokens_in") is not None:
        parts.append(f"tokens sent {totals['tokens_in']:,} in, {totals['tokens_out']:,} out")
        if totals.get("cached_tokens_in") or totals.get("cached_tokens_out"):
            parts.append(
                f"cached {totals['cached_tokens_in']:,} in, {totals['cached_tokens_out']:,} out "
                "(free)"
            )
    if totals.get("cost_usd") is not None:
        cost = f"USD {_usd(totals['cost_usd'], totals.get('cost_lower_bound'))}"
        if totals.get("cached_cost_usd"):
            cost += f" (the cached replies would have cost {totals['cached_cost_usd']:.4f})"
        parts.append(cost)
    apart = [
        f"{totals[k]:,} {word}"
        for k, word in (("retries", "retried"), ("failures", "failed"))
        if totals.get(k)
    ]
    if apart:
        parts.append(
            f"{' and '.join(apart)} request(s) counted apart: in no token count, though a "
            "paid API may bill them"
        )
    return "run total: " + "; ".join(parts)


class _Tabulating(Protocol):
    def tables(self, summary: Mapping[str, Any]) -> Sequence[Any]: ...


class ShownRun(Protocol):
    """What :func:`print_result` reads of a finished run (the runner's ``RunResult``)."""

    @property
    def run_dir(self) -> Path: ...

    @property
    def summary(self) -> dict[str, Any]: ...

    @property
    def method(self) -> _Tabulating: ...


def print_result(console: Console, res: ShownRun) -> None:
    """The method's tables, the calls per role, notes, failures and where it all went."""
    s = res.summary
    for t in res.method.tables(s):
        console.print(t)
    if s.get("comparisons"):
        from taiwa.display.comparison_table import comparisons_table

        console.print(comparisons_table(s["comparisons"]))
    for line in flag_lines(s):
        console.print(f"[bold yellow]{escape(line)}[/bold yellow]")
    if s["calls"]:
        console.print(calls_table(s["calls"]))
        cost = cost_table(s["calls"], s.get("totals"))
        if cost is not None:
            console.print(cost)
        if s.get("totals"):
            console.print(escape(totals_line(s["totals"])), highlight=False)
    for note in s["notes"]:
        console.print(note_line(note))
    failed = {k: v for k, v in s["failures"].items() if v}
    if failed:
        parts = ", ".join(f"{k} {v}" for k, v in failed.items())
        console.print(f"[red]failed samples:[/red] {parts} (reasons in the stage files)")
    console.print(f"{s['status']} in {s['seconds']['total']:.1f} s → {res.run_dir}/")


def confusion_table(confusion: Mapping[str, Mapping[str, int]], title: str = "confusion") -> Table:
    """A confusion matrix (``confusion[gold][predicted]``) that fits a terminal: rows named
    ``k label``, columns by number only (``∅``, no act, keeps its sign); rows that never occur
    as gold are left out."""
    labels = list(confusion)
    code = {lab: lab if lab == "∅" else str(k) for k, lab in enumerate(labels, start=1)}
    t = compact_table(
        f"{title} (rows: gold; columns: predicted, by row number"
        + ("; ∅ = none)" if "∅" in code else ")")
    )
    t.add_column("gold \\ pred", no_wrap=True)
    for lab in labels:
        t.add_column(code[lab], justify="right", no_wrap=True)
    for gold, row in confusion.items():
        if any(row.values()):
            name = gold if gold == "∅" else f"{code.get(gold, '?')} {gold}"
            t.add_row(clip(name, 30), *(str(row.get(q, 0)) for q in labels))
    return t
