"""The report's item view in a real headless Chromium (issue 43, point 4; driven over the
DevTools protocol, :mod:`browser`), checked against the runs' files: every item of the demo's
runs opens with one click on its line (and by its deep link), "A wrong, B right" lists exactly
the items ``scores.jsonl`` says, the WED alignment drawn adds up to the breakdown recorded, a
judge's flip is marked on exactly the pairs that flipped, the filters for failed rows list the
failed items; screenshots of each method's item view are kept in tests/artifacts/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from browser import Browser
from item_runs import build_item_runs, by_system, flipped_pairs, rows
from report_runs import failing_chitchat
from taiwa.benchmarks import all_methods
from taiwa.report.page import write_report

ARTIFACTS = Path(__file__).parent / "artifacts"
SHOTS = {
    "da-response": "fixed",
    "chitchat": "chitchat-flips",
    "da-distribution": "da-distribution",
    "cohesion": "cohesion",
    "intent": "intent",
}
"""The run (its key in deep links) whose item view each method's screenshot shows."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("items")
    out = build_item_runs(root)
    out["chitchat-failing"] = failing_chitchat(root)
    return out


@pytest.fixture(scope="module")
def page(runs: dict[str, Path]) -> Path:
    root = runs["intent"].parent
    return write_report([root], root / "report.html", methods=all_methods())


def _ready(b: Browser) -> None:
    b.evaluate(
        "new Promise((ok) => { const t = setInterval(() => { if (window.taiwaItems) "
        "{ clearInterval(t); ok(true); } }, 10); })",
        wait=True,
    )


def _open(b: Browser, key: str, ident: str) -> dict[str, Any]:
    """Click the item's line in its run's list (one click) and read what the item view drew."""
    got = b.evaluate(
        f"""(async () => {{
        const div = document.querySelector('div.items[data-run={json.dumps(key)}]');
        const link = [...div.querySelectorAll('table.items-list a')]
            .find((a) => a.textContent === {json.dumps(ident)});
        if (!link) return null;
        link.click();
        while (window.taiwaItems.opened !== {json.dumps(ident)}
               || document.getElementById('item-' + {json.dumps(key)}).dataset.item
                  !== {json.dumps(ident)}) {{
            await new Promise((ok) => setTimeout(ok, 5));
        }}
        const view = document.getElementById('item-' + {json.dumps(key)});
        return {{
            item: view.dataset.item,
            systems: [...view.querySelectorAll('.sys')].map((s) => ({{
                system: s.dataset.system,
                align: [...s.querySelectorAll('[data-kind=align] tr.cost td')].map(
                    (td) => [td.dataset.op, Number(td.dataset.cost)]),
                totals: [...s.querySelectorAll('[data-total]')].map(
                    (t) => [t.dataset.total, Number(t.dataset.value)]),
            }})),
            flips: [...view.querySelectorAll('[data-kind=table] tr[data-mark=flip]')]
                .filter((tr) => tr.closest('.blk').querySelector('.blk-t').textContent
                        .startsWith('pairwise judge'))
                .map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]),
        }};
        }})()""",
        wait=True,
    )
    return dict(got)


def _listed(page: Browser, key: str, **controls: str | bool) -> list[str]:
    """Set the run's filter controls and read the items listed."""
    return list(
        page.evaluate(
            f"""(() => {{
        const div = document.querySelector('div.items[data-run={json.dumps(key)}]');
        for (const [name, value] of Object.entries({json.dumps(controls)})) {{
            const c = div.querySelector(`[data-f="${{name}}"]`);
            if (c.type === 'checkbox') c.checked = value; else c.value = value;
        }}
        div.querySelector('.controls').dispatchEvent(new Event('change'));
        return [...div.querySelectorAll('table.items-list tbody tr')].map((tr) => tr.dataset.item);
        }})()"""
        )
    )


def test_every_item_opens_with_one_click_and_its_deep_link(
    page: Path, runs: dict[str, Path]
) -> None:
    with Browser() as b:
        b.open(page.as_uri())
        _ready(b)
        keys = b.evaluate("[...document.querySelectorAll('div.items')].map((d) => d.dataset.run)")
        assert set(keys) >= {"fixed", "human", "chitchat", "chitchat-flips", "intent", "cohesion"}
        for key in keys:
            run = next(p for p in runs.values() if p.name == key)
            ids = [r["id"] for r in rows(run / "items.jsonl")]
            assert _listed(b, key) == ids  # every item on the list as the page opens
            for ident in ids:
                assert _open(b, key, ident)["item"] == ident, (key, ident)
        errors = b.errors()
        # a deep link opens one item in a fresh page
        b.open(page.as_uri() + "#intent/it-007")
        _ready(b)
        opened = b.evaluate(
            "new Promise((ok) => { const t = setInterval(() => { if (window.taiwaItems.opened) "
            "{ clearInterval(t); ok(window.taiwaItems.opened); } }, 10); })",
            wait=True,
        )
        shown = b.evaluate("document.getElementById('item-intent').dataset.item")
    assert errors == [] and opened == shown == "it-007"


def test_a_wrong_b_right_lists_exactly_what_scores_say(page: Path, runs: dict[str, Path]) -> None:
    """Two systems each wrong on some items (and one failed item): both ways round, and the
    failed item, as scores.jsonl says; a metric range sorted by score."""
    run = runs["intent-pair"]
    correct = by_system(run / "scores.jsonl", "correct")
    replayed = next(s for s in correct if s.startswith("replay:"))
    ids = [r["id"] for r in rows(run / "items.jsonl")]
    with Browser() as b:
        b.open(page.as_uri())
        _ready(b)
        shown = {}
        for x, y in (("builtin:random", replayed), (replayed, "builtin:random")):
            shown[x] = _listed(b, "intent-pair", a=x, b=y, rel="a-wrong-b-right")
        failed = _listed(b, "intent-pair", a="builtin:random", rel="", failed=True)
        wed = by_system(runs["da-response"] / "scores.jsonl", "wed")["builtin:fixed"]
        high = _listed(b, "fixed", metric="wed", lo="1", sort="score", dir="asc")
    for x, y in (("builtin:random", replayed), (replayed, "builtin:random")):
        wanted = [i for i in ids if correct[x].get(i) is False and correct[y].get(i) is True]
        assert shown[x] == wanted and wanted, x  # in the run's order
    random = correct["builtin:random"]
    both_wrong = [i for i in ids if correct[replayed].get(i) is False and random.get(i) is False]
    assert both_wrong and not set(both_wrong) & set(shown["builtin:random"])
    assert failed == [ids[4]]  # the item the replayed system has no reply for
    assert high == sorted((i for i, v in wed.items() if v >= 1), key=lambda i: wed[i])


def test_the_wed_alignment_drawn_matches_its_breakdown(page: Path, runs: dict[str, Path]) -> None:
    with Browser() as b:
        b.open(page.as_uri())
        _ready(b)
        for key, name in (("fixed", "da-response"), ("human", "da-response-2")):
            scored = rows(runs[name] / "scores.jsonl")
            scores = {(r["id"], r["system"]): r for r in scored}
            for ident in sorted({i for i, _ in scores}):
                drawn = _open(b, key, ident)
                for part in drawn["systems"]:
                    r = scores[ident, part["system"]]
                    assert len(part["align"]) == len(r["alignment"]) > 0
                    for edit in ("deletion", "insertion", "substitution"):
                        total = sum(c for op, c in part["align"] if op == edit)
                        assert total == pytest.approx(r[edit], abs=1e-5), (ident, edit)
                    assert dict(part["totals"]) == pytest.approx(
                        {k: r[k] for k in ("deletion", "insertion", "substitution")}, abs=1e-5
                    )


def test_a_judge_flip_is_marked_on_exactly_the_flipped_pairs(
    page: Path, runs: dict[str, Path]
) -> None:
    flips = flipped_pairs(runs["chitchat-flips"])
    assert any(flips.values()) and not all(flips.values())
    with Browser() as b:
        b.open(page.as_uri())
        _ready(b)
        for ident, pairs in flips.items():
            marked = {tuple(p) for p in _open(b, "chitchat-flips", ident)["flips"]}
            assert marked == pairs, ident
        flipped = _listed(b, "chitchat-flips", flag="flip")
        failed = _listed(b, "chitchat-failing", failed=True)
    assert flipped == [i for i, pairs in flips.items() if pairs]
    judged = rows(runs["chitchat-failing"] / "single_judgments.jsonl")
    assert failed and set(failed) == {r["id"] for r in judged if "error" in r}


def test_screenshots_of_each_method_s_item_view(page: Path, runs: dict[str, Path]) -> None:
    """One item of each method drawn (chitchat's with a flip); the PNGs are kept in
    tests/artifacts/ to be looked at."""
    flips = flipped_pairs(runs["chitchat-flips"])
    first = {"chitchat": next(i for i, pairs in flips.items() if pairs)}
    with Browser(width=1100) as b:
        # no scrollbar: a screenshot beyond the viewport lays the page out without one, and
        # the text above the item, rewrapped, would move it
        b.call("Emulation.setScrollbarsHidden", session=True, hidden=True)
        b.open(page.as_uri())
        _ready(b)
        for method, key in SHOTS.items():
            drawn = b.evaluate(
                f"""(async () => {{
                const div = document.querySelector('div.items[data-run={json.dumps(key)}]');
                const links = [...div.querySelectorAll('table.items-list a')];
                const link = links.find((a) => a.textContent === {json.dumps(first.get(method))})
                    || links[0];
                link.click();
                while (window.taiwaItems.opened !== link.textContent) {{
                    await new Promise((ok) => setTimeout(ok, 5));
                }}
                const view = document.getElementById('item-' + {json.dumps(key)});
                window.scrollTo(0, 0);  // the screenshot's clip is from the page's top
                const r = view.getBoundingClientRect();
                return [r.x, r.y, r.width, r.height, view.querySelectorAll('.blk').length];
                }})()""",
                wait=True,
            )
            x, y, w, h, blocks = drawn
            assert blocks >= 2 and h > 200, method
            shot = b.screenshot_region(ARTIFACTS / f"item-view-{method}.png", x, y, w, h)
            assert shot.stat().st_size > 20_000, method
        assert b.errors() == []
