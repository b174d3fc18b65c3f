"""What each run cost (issue 27, "Cost") and calls counted right (issue 24, "calls table"):
tokens from the replies' ``usage`` summed per role, cached replies free and apart, replies
without usage unknown (not zero), prices turned into USD; ``sent ≤ req``, a role's seconds its
wall time, and the requests a backend makes on its own (retries, the structured-output probe)
counted in their own columns."""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from cli import taiwa_main
from taiwa.benchmarks import get_method
from taiwa.core.errors import TaiwaError
from taiwa.display.console import make_console
from taiwa.display.tables import calls_table, cost_table
from taiwa.harness.config import RunConfig
from taiwa.harness.cost import add_cost, parse_price, price_for, read_prices
from taiwa.harness.pool import RoleModel
from taiwa.harness.runner import run
from taiwa.models.openai_compat import OpenAICompatModel
from taiwa.models.types import ChatMessage, ChatRequest, GenerationParams
from taiwa.testing.stub_server import StubState, serve


def _prompts(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "prompts.jsonl"
    lines = [
        json.dumps(
            {"id": f"q{i}", "prompt": f"明日は{i}時に駅で待ち合わせです"}, ensure_ascii=False
        )
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cfg(tmp_path: Path, url: str, n: int, **extra: Any) -> RunConfig:
    return RunConfig(
        method="prompts",
        models=["openai:stub"],
        base_url=url,
        data=_prompts(tmp_path, n),
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
        concurrency=4,
        **extra,
    )


def test_tokens_are_summed_and_cached_replies_are_free(tmp_path: Path) -> None:
    state = StubState(faults=[500, 429])
    with serve(state) as url:
        cfg = _cfg(tmp_path, url, 10, prices={"stub": (2.0, 8.0)})
        first = run(cfg, get_method("prompts"), show_progress=False)
        sent_in, sent_out = state.tokens_in, state.tokens_out
        again = run(cfg, get_method("prompts"), show_progress=False)
    [c] = first.summary["calls"]
    assert (c["requests"], c["cache_hits"], c["calls"], c["retries"], c["probes"]) == (
        10,
        0,
        10,
        2,
        0,
    )
    assert sent_in > 100 and (c["tokens_in"], c["tokens_out"]) == (sent_in, sent_out)
    assert (c["cached_tokens_in"], c["cached_tokens_out"], c["usage_unknown"]) == (0, 0, 0)
    assert c["price_in"] == 2.0 and c["price_out"] == 8.0 and not c["cost_lower_bound"]
    assert c["cost_usd"] == pytest.approx((sent_in * 2.0 + sent_out * 8.0) / 1e6, abs=1e-6)
    [a] = again.summary["calls"]
    assert (a["requests"], a["cache_hits"], a["calls"]) == (10, 10, 0)
    # the cache stored the usage beside each reply: the same tokens, now served free
    assert (a["cached_tokens_in"], a["cached_tokens_out"]) == (sent_in, sent_out)
    assert (a["tokens_in"], a["tokens_out"], a["cost_usd"]) == (0, 0, 0.0)
    written = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert written["calls"] == again.summary["calls"]


def test_the_run_total_counts_cached_and_retried_requests_apart(tmp_path: Path) -> None:
    """Issue 42: the run's total of tokens and cost (summary.json ``totals``, the terminal, the
    report), with the requests answered from the cache and those retried counted apart; a
    role answered wholly from the cache shows ``cached``, not ``0.0000``."""
    from taiwa.benchmarks import all_methods
    from taiwa.display.tables import totals_line
    from taiwa.report.page import write_report

    state = StubState(faults=[500, 429])
    with serve(state) as url:
        cfg = _cfg(tmp_path, url, 6, prices={"stub": (2.0, 8.0)})
        cfg = cfg.model_copy(update={"models": ["openai:stub", "openai:other"]})
        first = run(cfg, get_method("prompts"), show_progress=False)
        again = run(cfg, get_method("prompts"), show_progress=False)
    calls, totals = first.summary["calls"], first.summary["totals"]
    assert (totals["requests"], totals["cache_hits"], totals["calls"]) == (12, 0, 12)
    assert (totals["retries"], totals["failures"]) == (2, 0)
    assert totals["tokens_in"] == sum(c["tokens_in"] for c in calls) == state.tokens_in
    assert totals["tokens_out"] == sum(c["tokens_out"] for c in calls) == state.tokens_out
    stub = next(c for c in calls if c["spec"] == "openai:stub")
    assert totals["cost_usd"] == pytest.approx(stub["cost_usd"])  # openai:other has no price
    assert totals["cost_lower_bound"]  # ... so the total is a lower bound
    line = totals_line(totals)
    assert "12 request(s) (0 from the cache, 12 sent)" in line
    assert "2 retried request(s) counted apart" in line and f"USD ≥{stub['cost_usd']:.4f}" in line

    cached = again.summary["totals"]
    assert (cached["cache_hits"], cached["calls"], cached["retries"]) == (12, 0, 0)
    assert (cached["tokens_in"], cached["tokens_out"], cached["cost_usd"]) == (0, 0, 0.0)
    assert cached["cached_tokens_in"] == totals["tokens_in"]
    assert cached["cached_cost_usd"] == pytest.approx(totals["cost_usd"])
    out = io.StringIO()
    console = make_console(file=out, width=80, color_system=None)
    console.print(cost_table(again.summary["calls"], cached))
    text = out.getvalue()
    assert "cached" in text.split("openai:stub", 1)[1].splitlines()[0]
    total_row = next(ln for ln in text.splitlines() if ln.startswith("total"))
    assert total_row.split()[-1] == "cached" and "0.0000" not in text
    written = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert written["totals"] == cached
    html = write_report([tmp_path / "run"], methods=all_methods()).read_text("utf-8")
    assert "run total: 12 request(s) (12 from the cache, 0 sent)" in html


def test_the_report_shows_the_tokens_and_the_cost(tmp_path: Path) -> None:
    from taiwa.benchmarks import all_methods
    from taiwa.report.page import write_report

    with serve(StubState()) as url:
        cfg = _cfg(tmp_path, url, 3, prices={"stub": (1000.0, 1000.0)})
        res = run(cfg, get_method("prompts"), show_progress=False)
    [c] = res.summary["calls"]
    html = write_report([tmp_path / "run"], methods=all_methods()).read_text("utf-8")
    assert "tokens per role" in html and "model calls per role" in html
    assert f"{c['tokens_in']:,}" in html and f"{c['cost_usd']:.4f}" in html


def test_a_reply_without_usage_is_unknown_not_zero(tmp_path: Path) -> None:
    state = StubState(usage=False, replies=["はい"], faults=[])
    with serve(state) as url:
        cfg = _cfg(tmp_path, url, 4, prices={"openai:stub": (1.0, 1.0)})
        res = run(cfg, get_method("prompts"), show_progress=False)
    [c] = res.summary["calls"]
    assert (c["usage_unknown"], c["tokens_in"], c["tokens_out"]) == (4, 0, 0)
    assert c["cost_usd"] == 0.0 and c["cost_lower_bound"]  # a lower bound, flagged
    table = cost_table(res.summary["calls"])
    assert table is not None
    console = Console(width=100, record=True)
    console.print(table)
    text = console.export_text()
    assert "≥0.0000" in text and "unknown" in text


def test_a_price_naming_no_model_is_a_note(tmp_path: Path) -> None:
    with serve(StubState()) as url:
        cfg = _cfg(tmp_path, url, 2, prices={"gpt-x": (1.0, 1.0)})
        res = run(cfg, get_method("prompts"), show_progress=False)
    assert res.summary["calls"][0]["cost_usd"] is None
    assert any("--price gpt-x" in n for n in res.summary["notes"])


def _structured(n: int) -> list[ChatRequest]:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    return [
        ChatRequest(
            id=f"s{i}",
            messages=[ChatMessage(role="user", content=f"今日の天気を{i}語で")],
            params=GenerationParams(json_schema=schema),
        )
        for i in range(n)
    ]


def test_the_structured_output_probe_is_counted_apart() -> None:
    """llama_cpp.server refuses ``json_schema`` with a 500: that request is the backend's own,
    counted under ``probes``, never under ``sent`` (issue 24: it appeared nowhere)."""
    state = StubState(reject_formats=("json_schema",))
    with serve(state) as url:
        role = RoleModel("annotator", "openai:stub", OpenAICompatModel("stub", base_url=url), None)
        out = asyncio.run(role.generate(_structured(5)))
    assert all(r.ok for r in out)
    s = role.stats
    assert (s.requests, s.calls, s.probes, s.retries) == (5, 5, 1, 0)
    assert state.hits == s.calls + s.probes  # every request the server saw, accounted for


def test_stages_calling_one_role_at_once_count_once(tmp_path: Path) -> None:
    """Two stages on one judge at once (issue 24: ``req 13, sent 18`` and seconds above the
    run's wall time): sent ≤ req, and the role's seconds are its wall time."""
    state = StubState(latency=0.3)
    reqs = [
        ChatRequest(id=f"r{i}", messages=[ChatMessage(role="user", content=f"質問{i}")])
        for i in range(6)
    ]
    from taiwa.models.cache import ResponseCache

    cache = ResponseCache(tmp_path / "c.sqlite")
    with serve(state) as url:
        role = RoleModel(
            "judge", "openai:stub", OpenAICompatModel("stub", base_url=url, concurrency=8), cache
        )
        t0 = time.perf_counter()
        asyncio.run(role.generate(reqs[:2]))  # two cached for later
        first = time.perf_counter() - t0

        async def timed(batch: list[ChatRequest]) -> float:
            start = time.perf_counter()
            await role.generate(batch)
            return time.perf_counter() - start

        async def both() -> tuple[float, float]:
            start = time.perf_counter()
            d1, d2 = await asyncio.gather(timed(reqs[:3]), timed(reqs[3:]))
            return time.perf_counter() - start, d1 + d2

        wall, summed = asyncio.run(both())
    cache.close()
    s = role.stats
    assert (s.requests, s.cache_hits, s.calls) == (2 + 6, 2, 2 + 4)
    assert s.calls <= s.requests and s.calls == state.hits
    # measured, not assumed (a loaded machine stretches every latency): the role's seconds are
    # at most the first batch's wall time plus the overlapping pair's, never the pair added up
    assert s.seconds <= first + wall + 0.01
    assert summed > wall + 0.2  # the two batches did overlap (each waits ≥ 0.3 s for the server)
    assert s.seconds < first + summed - 0.1


def test_prices_parse_and_match_by_spec_or_model_name(tmp_path: Path) -> None:
    assert parse_price("gpt-4o-mini=0.15,0.6") == ("gpt-4o-mini", (0.15, 0.6))
    assert parse_price("openai:a=b=1,2") == ("openai:a=b", (1.0, 2.0))
    for bad in ("gpt", "m=1", "m=1,x", "m=-1,2", "=1,2", "m=nan,1"):
        with pytest.raises(TaiwaError, match="--price"):
            parse_price(bad)
    prices = {"openai:m": (1.0, 1.0), "m": (2.0, 2.0), "file-id": (3.0, 3.0)}
    assert price_for("openai:m", "m", prices) == (1.0, 1.0)  # the SPEC wins
    assert price_for("openai:other", "file-id", prices) == (3.0, 3.0)  # the backend's name
    assert price_for("gguf:x.gguf", "y", prices) is None
    yaml_file = tmp_path / "prices.yaml"
    yaml_file.write_text("gpt-4o: {in: 2.5, out: 10}\nmini: [0.15, 0.6]\n", encoding="utf-8")
    assert read_prices(yaml_file) == {"gpt-4o": (2.5, 10.0), "mini": (0.15, 0.6)}
    bad_file = tmp_path / "bad.json"
    bad_file.write_text('{"gpt-4o": {"in": 2.5}}', encoding="utf-8")
    with pytest.raises(TaiwaError, match=r"bad\.json:1: field 'gpt-4o'"):
        read_prices(bad_file)
    entry: dict[str, Any] = {"tokens_in": None, "tokens_out": None, "usage_unknown": 0}
    add_cost(entry, (1.0, 1.0))  # a model that counts no tokens costs nothing known
    assert entry["cost_usd"] is None


def _entry(role: str, spec: str, **counts: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "role": role,
        "spec": spec,
        "requests": 0,
        "calls": 0,
        "cache_hits": 0,
        "retries": 0,
        "probes": 0,
        "failures": 0,
        "repaired": 0,
        "invalid": 0,
        "seconds": 0.0,
        "repairs": {},
        "tokens_in": None,
        "tokens_out": None,
        "cached_tokens_in": None,
        "cached_tokens_out": None,
        "usage_unknown": 0,
        "cached_usage_unknown": 0,
    }
    base.update(counts)
    add_cost(base, counts.pop("price", None))
    return base


def test_both_tables_keep_every_column_at_80_columns() -> None:
    calls = [
        _entry("system", "builtin:parrot", requests=60, calls=60),
        _entry(
            "judge",
            "openai:gpt-4o-mini",
            repairs={"re_asked": 3},
            requests=1234,
            cache_hits=34,
            calls=1200,
            probes=1,
            seconds=812.4,
            tokens_in=1_234_567,
            tokens_out=98_765,
            cached_tokens_in=4_321,
            cached_tokens_out=210,
            price=(0.15, 0.6),
        ),
    ]
    table = cost_table(calls)
    assert table is not None and cost_table(calls[:1]) is None  # the parrot counts no tokens
    console = make_console(width=80, record=True)
    console.print(calls_table(calls))
    console.print(table)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    for word in ("req", "hit", "sent", "own", "fix", "bad", "USD"):
        assert word in text
    assert "continued" not in text  # neither table had to be stacked
    flat = " ".join(text.split())
    assert "own: judge openai:gpt-4o-mini: 0 retries, 1 probes" in flat
    assert "Repairs by kind: judge openai:gpt-4o-mini: re_asked 3" in flat
    assert "1,234,567" in text and "0.2444" in text  # 1234567 × 0.15 + 98765 × 0.6, / 10⁶
    assert "openai:gpt-4o-mini" in text.replace("\n", "").replace(" ", "")


def test_cli_price_flag_prints_the_cost(tmp_path: Path) -> None:
    with serve(StubState()) as url:
        common = ["run", "prompts", "-m", "openai:stub", "--base-url", url, "-q"]
        common += ["--data", str(_prompts(tmp_path, 3)), "--cache-dir", str(tmp_path / "c")]
        r = taiwa_main(*common, "--out", str(tmp_path / "a"), "--price", "stub=1000,1000")
        bad = taiwa_main(*common, "--out", str(tmp_path / "b"), "--price", "stub=1")
    assert r.returncode == 0, r.stderr
    assert "tokens per role" in r.stdout and "USD" in r.stdout
    assert bad.returncode == 2 and "--price 'stub=1'" in bad.stderr + bad.stdout


def test_each_row_carries_its_tokens_and_retries(tmp_path: Path) -> None:
    """Issue 43 (the model call of an item): each row of a stage that called a model says what
    its requests cost (tokens in and out, the backend's retries), and a cached replay shows
    the same tokens; the row's numbers add up to the role's in the summary."""
    state = StubState(faults=[500, 429])
    with serve(state) as url:
        cfg = _cfg(tmp_path, url, 6)
        first = run(cfg, get_method("prompts"), show_progress=False)
        rows = [json.loads(x) for x in (tmp_path / "run" / "responses.jsonl").open()]
        again = run(cfg, get_method("prompts"), show_progress=False)
        replayed = [json.loads(x) for x in (tmp_path / "run" / "responses.jsonl").open()]
    [c] = first.summary["calls"]
    assert sum(r["tokens_in"] for r in rows) == c["tokens_in"] == state.tokens_in
    assert sum(r["tokens_out"] for r in rows) == c["tokens_out"]
    assert sum(r.get("retries", 0) for r in rows) == c["retries"] == 2
    assert all(r["tokens_in"] > 0 and r["cached"] is False for r in rows)
    assert again.summary["calls"][0]["cache_hits"] == 6
    assert [(r["tokens_in"], r["tokens_out"]) for r in replayed] == [
        (r["tokens_in"], r["tokens_out"]) for r in rows
    ]
    assert all(r["cached"] is True and "retries" not in r for r in replayed)
