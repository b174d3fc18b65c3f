"""``taiwa report`` and ``taiwa leaderboard`` on real run directories of every method (small
fast runs, :mod:`report_runs`): each method's section, escaping, failures with examples, the
one-line errors for truncated and hand-edited files, and the leaderboard."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from cli import taiwa_main
from report_runs import build_runs, failing_chitchat
from taiwa.benchmarks import all_methods
from taiwa.core.errors import InputError
from taiwa.report.page import write_report

METHODS = ["prompts", "da-response", "chitchat", "da-distribution", "cohesion", "intent"]
"""Every registered method, in the registry's order: the order of the report's sections."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_runs(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def page(runs: dict[str, Path]) -> str:
    root = runs["cohesion"].parent
    return write_report([root], root / "report.html", methods=all_methods()).read_text("utf-8")


def _sections(html: str) -> dict[str, str]:
    parts = re.split(r'<section class="method" data-method="([^"]+)">', html)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_method_has_its_tables_and_figures(page: str) -> None:
    sections = _sections(page)
    assert list(sections) == METHODS
    figures = {m: s.count("<figure>") for m, s in sections.items()}
    # da-response: breakdown (one per run); chitchat: win rates, ROUGE-L and single per
    # task, human ranks; da-distribution: acts, one lift heatmap per system (3), consistency;
    # cohesion: shares, precision/recall, per-dialogue scatter; intent: accuracies, stability;
    # + the forest plot of the paired comparisons in every run with two or more systems
    assert figures == {
        "prompts": 2,
        "da-response": 2,
        "chitchat": 5,
        "da-distribution": 6,
        "cohesion": 3,
        "intent": 3,
    }
    for m in ("prompts", "chitchat", "da-distribution", "intent"):
        assert "paired comparisons" in sections[m] and "paired differences a − b" in sections[m]
    assert "paired comparisons" not in sections["cohesion"]
    # a method that follows no seed paper is titled by its name alone, the others cite theirs
    assert '<h2 id="m-prompts">prompts</h2>' in page
    assert '<h2 id="m-intent">intent (seed 004)</h2>' in page
    for body in sections.values():
        assert "<table" in body and "<svg" in body and "</svg>" in body
    # the two da-response runs share their headline table: one table with both systems
    da = sections["da-response"]
    assert "all 2 runs" in da and "builtin:fixed" in da and "human" in da
    # Table 2 examples and cohesion's highlighted words
    assert "Representative examples (seed 000 Table 2)" in da
    assert '<mark class="hit">' in sections["cohesion"]
    assert "Spearman ρ" in sections["chitchat"]


def test_numbers_match_the_summary_and_terminal_cells(runs: dict[str, Path], page: str) -> None:
    from taiwa.display.tables import ci_cell

    s = json.loads((runs["intent"] / "summary.json").read_text("utf-8"))
    acc = s["systems"]["builtin:random"]["accuracy"]
    cell = ci_cell(acc).replace("\n", "<br>")
    assert cell in _sections(page)["intent"]


def test_provenance_and_no_network(page: str, runs: dict[str, Path]) -> None:
    cfg = json.loads((runs["intent"] / "config.json").read_text("utf-8"))
    assert cfg["taiwa_version"] in page
    for digest in cfg["prompt_sha256"].values():
        assert digest[:12] in page
    # self-contained: nothing fetched from anywhere
    assert not re.search(r'(src|href)="(https?:)?//', page)
    # the item view's data and script are inline (issue 43): no script comes from a file
    assert "<script" in page and not re.search(r"<script[^>]*\bsrc=", page)


def test_text_from_data_is_escaped(runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs["intent"], run)
    path = run / "summary.json"
    for f in [path, run / "config.json", *run.glob("*.jsonl")]:  # the system renamed alike
        text = f.read_text("utf-8").replace("builtin:random", "<img src=x onerror=alert(1)>")
        f.write_text(text, "utf-8")
    s = json.loads(path.read_text("utf-8"))
    s["notes"].append("<script>alert(2)</script>")
    path.write_text(json.dumps(s, ensure_ascii=False, indent=2), "utf-8")
    html = write_report([run], methods=all_methods()).read_text("utf-8")
    assert "<img src=x" not in html and "<script>alert" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html


def test_failures_are_counted_with_examples(tmp_path: Path) -> None:
    run = failing_chitchat(tmp_path)
    html = write_report([run], methods=all_methods()).read_text("utf-8")
    s = json.loads((run / "summary.json").read_text("utf-8"))
    failed = s["failures"]["single_judge"]
    assert failed > 0
    assert f"single_judge: {failed}" in html
    assert f"judgments_single.jsonl: {failed} failed" in html or re.search(
        rf"\.jsonl: {failed} failed", html
    )
    assert "invalid output after 1 attempt" in html
    assert "model calls per role" in html


def _cli_error(*args: str) -> str:
    r = taiwa_main("report", *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    return " ".join(r.stderr.split())


def test_truncated_summary_names_file_and_line(runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs["cohesion"], run)
    text = (run / "summary.json").read_text("utf-8")
    (run / "summary.json").write_text(text[: len(text) // 2], "utf-8")
    lines = text[: len(text) // 2].count("\n") + 1
    msg = _cli_error(str(run))
    assert f"summary.json:{lines}:" in msg and "truncated" in msg


def test_hand_edited_summary_names_the_field(runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs["intent"], run)
    path = run / "summary.json"
    text = path.read_text("utf-8")
    s = json.loads(text)
    s["systems"]["human"]["accuracy"]["value"] = "high"
    edited = json.dumps(s, ensure_ascii=False, indent=2)
    path.write_text(edited, "utf-8")
    line = next(k + 1 for k, ln in enumerate(edited.splitlines()) if '"value": "high"' in ln)
    msg = _cli_error(str(run))
    assert f"summary.json:{line}:" in msg
    assert "systems.human.accuracy.value" in msg and "a number or null" in msg
    # a block the method needs, gone: named, not a traceback
    del s["systems"]["human"]["accuracy"]  # shown as "–"
    del s["across"]["items"]
    path.write_text(json.dumps(s, ensure_ascii=False, indent=2), "utf-8")
    with pytest.raises(InputError, match=r"summary\.json: field 'items': .*taiwa's intent"):
        write_report([run], methods=all_methods())


def test_truncated_stage_file_names_its_line(runs: dict[str, Path], tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs["cohesion"], run)
    scores = run / "scores.jsonl"
    raw = scores.read_bytes()
    cut = raw[: raw.rfind(b"\n", 0, len(raw) - 1) + 40]  # the last line cut short
    scores.write_bytes(cut)
    line = cut.count(b"\n") + 1
    msg = _cli_error(str(run))
    assert f"scores.jsonl:{line}:" in msg


def test_not_a_run_directory(tmp_path: Path) -> None:
    msg = _cli_error(str(tmp_path / "nowhere"))
    assert "nowhere" in msg and "run directory" in msg
    r = taiwa_main("report", str(tmp_path))
    assert r.returncode == 2 and "no finished run" in r.stderr


def test_leaderboard_joins_runs(runs: dict[str, Path], tmp_path: Path) -> None:
    root = runs["cohesion"].parent
    out = tmp_path / "lb.html"
    r = taiwa_main("leaderboard", str(root), "--out", str(out))
    assert r.returncode == 0, r.stderr
    html, md = out.read_text("utf-8"), out.with_suffix(".md").read_text("utf-8")
    assert html.count('<table class="sortable">') >= 6
    assert "<script>" in html and "localeCompare" in html
    # both da-response runs in one table, one row each
    da = md.split("## da-response", 1)[1].split("## ", 1)[0]
    assert da.count(str(runs["da-response"])) == 1 and da.count(str(runs["da-response-2"])) == 1
    for method in ("prompts", "chitchat", "da-distribution", "cohesion", "intent"):
        assert f"## {method}" in md
    # a flagged cell is explained under its table (the fixture's runs have small n)
    for section in md.split("\n## ")[1:]:
        if any("⚑" in line for line in section.splitlines() if line.startswith("| ")):
            assert "⚑: the number is flagged in its run's summary" in section
    assert "⚑: the number is flagged in its run's summary" in md and "⚑:" in html


ARTIFACTS = Path(__file__).parent / "artifacts"


def test_report_renders_in_chromium(page: str, runs: dict[str, Path]) -> None:
    """The report in a real headless Chromium: no console error, every method's section and
    table shown, every chart an SVG with drawn content; the screenshot is kept in
    tests/artifacts/report.png."""
    from browser import Browser

    path = runs["cohesion"].parent / "report.html"
    with Browser() as b:
        b.open(path.as_uri())
        found = b.evaluate(
            """JSON.stringify({
            sections: [...document.querySelectorAll("section.method")].map(s => ({
                method: s.dataset.method,
                height: s.getBoundingClientRect().height,
                tables: s.querySelectorAll("table").length,
                svgs: [...s.querySelectorAll("figure svg")].map(g => {
                    const r = g.getBoundingClientRect();
                    return {w: r.width, h: r.height,
                            shapes: g.querySelectorAll("path, rect, use, text").length};
                }),
            })),
        })"""
        )
        shot = b.screenshot(ARTIFACTS / "report.png")
        errors = b.errors()
    print(f"screenshot: {shot}")
    assert errors == []
    sections = {s["method"]: s for s in json.loads(found)["sections"]}
    assert list(sections) == METHODS
    for method, s in sections.items():
        assert s["height"] > 200 and s["tables"] >= 3, method
        assert s["svgs"], method
        for svg in s["svgs"]:
            assert svg["w"] > 100 and svg["h"] > 100 and svg["shapes"] > 10, (method, svg)
    assert shot.stat().st_size > 50_000


def test_leaderboard_sorts_in_chromium(runs: dict[str, Path], tmp_path: Path) -> None:
    """A click on a column head sorts the rows by the numbers in that column, both ways."""
    from browser import Browser
    from taiwa.report.leaderboard import write_leaderboard

    html, _ = write_leaderboard(
        runs["cohesion"].parent, tmp_path / "lb.html", methods=all_methods()
    )
    script = """(() => {
        const t = [...document.querySelectorAll("table.sortable")]
            .find(t => t.caption && t.caption.innerText.startsWith("da-distribution"));
        const col = [...t.tHead.rows[0].cells].findIndex(c => c.innerText.startsWith("DAE"));
        const values = () => [...t.tBodies[0].rows].map(r => parseFloat(r.cells[col].innerText));
        t.tHead.rows[0].cells[col].click();
        const up = values();
        t.tHead.rows[0].cells[col].click();
        return JSON.stringify({up, down: values()});
    })()"""
    with Browser() as b:
        b.open(html.as_uri())
        got = json.loads(b.evaluate(script))
        errors = b.errors()
    assert errors == []
    assert len(got["up"]) == 3 and got["up"] == sorted(got["up"])
    assert got["down"] == sorted(got["up"], reverse=True) and got["up"] != got["down"]


def test_highlight_escapes_and_marks_the_longest_word() -> None:
    from taiwa.report.html import highlight

    out = highlight("<b>ラーメン</b>とラー油", ["ラー", "ラーメン"])
    assert out == (
        '&lt;b&gt;<mark class="hit">ラーメン</mark>&lt;/b&gt;と<mark class="hit">ラー</mark>油'
    )


def test_inline_svg_prefixes_ids_and_drops_scripts() -> None:
    from taiwa.report.svg import inline_svg

    svg = (
        '<?xml version="1.0"?>\n<!DOCTYPE svg>\n<svg onload="alert(1)"><defs><clipPath id="c1">'
        '</clipPath></defs><use xlink:href="#c1"/><g clip-path="url(#c1)"/>'
        "<script>alert(2)</script></svg>"
    )
    out = inline_svg(svg, "f7")
    assert out.startswith("<svg>") and "alert" not in out and "<?xml" not in out
    assert 'id="f7-c1"' in out and 'xlink:href="#f7-c1"' in out and "url(#f7-c1)" in out


def test_caption_lines_stay_apart_in_html_and_markdown() -> None:
    from taiwa.report.rich_html import TableData, as_text, table_html, table_markdown

    caption = "failed replies are not scored\nWLCS <does not> penalise"
    td = TableData("t", caption, [as_text("a")], [])
    assert "not scored<br>WLCS &lt;does not&gt; penalise" in table_html(td)
    assert "not scored\n\nWLCS" in table_markdown(td)


def test_joined_runs_keep_what_their_titles_say() -> None:
    """A text-mode and an audio-mode da-response run share their columns, not their title: the
    joined table says which row is which instead of calling both "input mode: text"."""
    from taiwa.report.rich_html import TableData, as_text, join_tables

    def table(title: str, system: str) -> TableData:
        return TableData(title, "", [as_text("system")], [[as_text(system)]], ["left"])

    t1 = "da-response (seed 000 Table 1), input mode: text"
    t2 = "da-response (seed 000 Table 1), input mode: audio"
    joined = join_tables(["a", "b"], [table(t1, "demo"), table(t2, "cascade")])
    assert joined.title == "da-response (seed 000 Table 1)"
    assert [h.plain for h in joined.headers] == ["run", "setting", "system"]
    assert [[c.plain for c in r] for r in joined.rows] == [
        ["a", "input mode: text", "demo"],
        ["b", "input mode: audio", "cascade"],
    ]
    same = join_tables(["a", "b"], [table(t1, "demo"), table(t1, "parrot")])
    assert same.title == t1 and [h.plain for h in same.headers] == ["run", "system"]


# -- issue 24: charts that cannot mislead -------------------------------------------------------

CHART_GEOMETRY = """JSON.stringify([...document.querySelectorAll("figure svg")].map(svg => {
    const box = svg.getBoundingClientRect();
    const scale = box.width / svg.viewBox.baseVal.width;
    const rect = e => { const r = e.getBoundingClientRect();
                        return [r.left, r.top, r.right, r.bottom]; };
    return {
        method: svg.closest("section").dataset.method,
        title: svg.closest("figure").querySelector("figcaption b").innerText,
        fonts: [...svg.querySelectorAll("text")].map(
            t => parseFloat(getComputedStyle(t).fontSize) * scale * 72 / 96),
        legends: [...svg.querySelectorAll('g[id*="legend_"]')].map(rect),
        axes: [...svg.querySelectorAll('g[id*="axes_"]')].map(
            a => rect(a.querySelector('g[id*="patch_"]'))),
    };
}))"""


def _overlap(a: list[float], b: list[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def test_charts_fonts_and_legends_in_chromium(runs: dict[str, Path], page: str) -> None:
    """Every chart as Chromium draws it at the page's width: no text below 8 pt, and every
    legend outside every axes (so it covers no bar, line or cell); the da-distribution charts
    are kept as screenshots in tests/artifacts/ (the act distribution and the parrot's lift
    heatmap, whose lifts of 1.0 must look unlike its cells with no transition)."""
    from browser import Browser

    path = runs["cohesion"].parent / "report.html"
    with Browser() as b:
        b.open(path.as_uri())
        charts = json.loads(b.evaluate(CHART_GEOMETRY))
        shots = {
            name: _figure_shot(b, title, ARTIFACTS / f"chart-{name}.png")
            for name, title in (
                ("acts", "act distribution per system"),
                ("lift-parrot", "transition lift (seed 002 Fig. 2): builtin:parrot"),
                ("forest", "paired differences a − b with 95 % CIs"),
            )
        }
    assert len(charts) == 21  # as counted per method above
    for c in charts:
        assert min(c["fonts"]) >= 7.95, (c["title"], min(c["fonts"]))
        for legend in c["legends"]:
            for axes in c["axes"]:
                assert _overlap(legend, axes) < 1.0, (c["title"], legend, axes)
    assert sum(bool(c["legends"]) for c in charts) >= 8  # the charts with several series
    forests = [c for c in charts if c["title"].startswith("paired differences")]
    assert len(forests) == 4 and all(c["legends"] for c in forests)
    # the parrot only ever answers with one act: its panel holds lifts of exactly 1.0 (the
    # scale's white) and cells with no transition (grey hatching), both plainly visible
    pixels = _colours(shots["lift-parrot"])
    white_cells = sum(n for rgb, n in pixels.items() if all(abs(c - 247) <= 3 for c in rgb))
    hatch = sum(n for rgb, n in pixels.items() if rgb in {(228, 228, 228), (154, 154, 154)})
    assert white_cells > 1500 and hatch > 5000, (white_cells, hatch)


def _figure_shot(b: object, title: str, out: Path) -> Path:
    """A screenshot of the figure whose caption starts with ``title``."""
    import base64

    rect = json.loads(
        b.evaluate(  # type: ignore[attr-defined]
            f"""JSON.stringify((() => {{
            const f = [...document.querySelectorAll("figure")].find(
                f => f.querySelector("figcaption b").innerText.startsWith({json.dumps(title)}));
            const r = f.getBoundingClientRect();
            return {{x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height,
                     scale: 1}};
        }})())"""
        )
    )
    data = b.call(  # type: ignore[attr-defined]
        "Page.captureScreenshot", session=True, format="png", clip=rect, captureBeyondViewport=True
    )["data"]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(base64.b64decode(data))
    return out


def _colours(png: Path) -> dict[tuple[int, int, int], int]:
    from PIL import Image

    with Image.open(png) as im:
        counts = im.convert("RGB").getcolors(maxcolors=1 << 20) or []
    return {rgb: n for n, rgb in counts}


def test_lift_heatmaps_share_one_scale_and_mark_missing_cells() -> None:
    from taiwa.benchmarks.da_distribution.report import lift_figures

    def block(lift: list[list[float | None]]) -> dict[str, object]:
        counts = [[0 if v is None else 3 for v in row] for row in lift]
        return {"transitions": {"labels": ["質問", "応答"], "lift": lift, "counts": counts}}

    systems = {
        "a": block([[1.0, None], [1.0, None]]),  # every lift exactly 1: white, not blank
        "b": block([[0.5, 3.0], [1.2, 0.8]]),
        "c": block([[None, None], [None, None]]),  # nothing to draw
    }
    figs = lift_figures(systems)
    assert [f.drawn for f in figs] == [True, True, False]
    assert "not drawn" in figs[2].reason
    # one scale: the bound of b (3) names both drawn panels' colour bars
    assert all("(1/3 to 3)" in f.caption for f in figs[:2])
    for f in figs[:2]:  # both colour bars run from 1/2 through 1 to 2 (ticks in powers of 2)
        assert all(f"{tick}</text>" in f.svg for tick in ("1/2", "1", "2"))
        assert "<pattern" in f.svg  # no transition: grey hatching, not a colour of the scale


def test_a_long_system_name_is_cut_in_the_charts_not_in_the_tables() -> None:
    """A system named by a long path (``replay:/a/long/dir/ones.jsonl``) narrowed the charts'
    axes to nothing (matplotlib: "axes sizes collapsed to zero"): the charts show it shortened
    from its start, its file name kept, and lay out without a warning."""
    import warnings

    from taiwa.report.chart_labels import CHART_LABEL, chart_label
    from taiwa.report.figures import grouped_bars
    from taiwa.report.forest import forest_svg

    long = "replay:/home/someone/experiments/2026-11/a_rather_long_directory/ones.jsonl"
    cut = chart_label(long)  # shortened from its start: its file name and directory stay
    assert cut == "…a_rather_long_directory/\nones.jsonl"
    assert all(len(line) <= CHART_LABEL for line in cut.splitlines())
    assert chart_label("builtin:random") == "builtin:random"
    diff = {"value": 0.3, "ci_low": 0.1, "ci_high": 0.5}
    block = {
        "rows": [
            {"label": "accuracy", "direction": "higher", "a": long, "b": "human",
             "difference": diff, "significant": True},
        ],
    }  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forest = forest_svg(block)
        estimate = {"value": 0.6, "ci_low": 0.2, "ci_high": 1.0}
        bars = grouped_bars([long, "human"], {"accuracy": [estimate, estimate]}, "accuracy")
    for svg in (forest, bars):
        assert long not in svg and "ones.jsonl" in svg


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("builtin:random: random n (mean)", "builtin:random:\nrandom n (mean)"),
        ("cascade:whisper-base+demo: random n (mean)",
         "cascade:whisper-base+demo:\nrandom n (mean)"),
        ("cascade:whisper-large-v3+openai:Qwen2.5-7B-Instruct",
         "cascade:whisper-large-v3+\nopenai:Qwen2.5-7B-Instruct"),
        ("openai:Qwen2.5-7B-Instruct-Q4_K_M: first n",
         "openai:Qwen2.5-\n7B-Instruct-Q4_K_M: first n"),
        ("builtin:random", "builtin:random"),
    ],
)  # fmt: skip
def test_chart_labels_never_cut_a_name_in_the_middle(name: str, label: str) -> None:
    """Issue 42 (``builtin:random…random n (mean)``, ``cascade:whispe…ase+demo``): a name
    too long for a chart is wrapped at a space, ``+``, ``:`` or ``/`` first, or shortened from
    its start; no ``…`` inside it; a pair of long names in the forest plot is two lines."""
    from taiwa.report.chart_labels import CHART_LABEL, chart_label, pair_label

    assert chart_label(name) == label
    assert all(len(line) <= CHART_LABEL for line in label.splitlines())
    pair = pair_label(name, "human")
    assert "…" not in pair[1:] and pair.endswith("human")
    assert len(pair.splitlines()) <= 2 and all(len(x) <= CHART_LABEL for x in pair.splitlines())


@pytest.mark.parametrize("sizes", [[5, 8], [4, 6], [2, 3], [5, 10, 15]])
def test_count_axes_have_whole_ticks(sizes: list[int], tmp_path: Path) -> None:
    """Issue 42: an axis of counts (intent's n items, da-distribution's batch size) has ticks
    at whole numbers only (matplotlib put 7.5 items between 5 and 8)."""
    from taiwa.benchmarks.da_distribution.plots import write_curve_svg
    from taiwa.benchmarks.intent.plots import stability_svg

    points = [{"n": n, "prefix_gap": 0.1, "random_mean_gap": 0.05} for n in sizes]
    svg = stability_svg({"builtin:random": {"points": points, "threshold": 0.02}})
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    ticks = texts[: texts.index("n (items)")]
    assert ticks and all(t.isdigit() for t in ticks), ticks

    from types import SimpleNamespace as NS

    agreement = NS(value=0.9, low=0.8, high=1.0)
    curve = NS(metric="dae", points=[NS(batch_size=n, agreement=agreement) for n in sizes])
    write_curve_svg({"a → b": curve}, tmp_path / "curve.svg")  # type: ignore[dict-item]
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", (tmp_path / "curve.svg").read_text("utf-8"))
    ticks = texts[: texts.index("batch size")]
    assert ticks and all(t.isdigit() for t in ticks), ticks


def test_a_chart_with_nothing_to_draw_is_one_line(tmp_path: Path) -> None:
    """intent at n=5 has no prefix size below the full set: one line says so, no empty axes."""
    from report_runs import _run

    run = _run(tmp_path / "intent5", "intent", models=["builtin:random"], limit=5)
    html = write_report([run], methods=all_methods()).read_text("utf-8")
    section = _sections(html)["intent"]
    assert section.count("<figure>") == 1  # the accuracies only
    line = re.search(r'<p class="nofigure"><b>stability over prefix size[^<]*</b>: ([^<]*)</p>',
                     section)  # fmt: skip
    assert line and "not drawn: 5 items" in line.group(1)


def test_combined_tables_say_when_item_sets_differ(runs: dict[str, Path], tmp_path: Path) -> None:
    from report_runs import _run

    small = _run(
        tmp_path / "da-response" / "three",
        "da-response",
        models=["builtin:parrot"],
        limit=3,
        cache_dir=tmp_path / ".cache",
    )
    same = write_report(
        [runs["da-response"], runs["da-response-2"]], tmp_path / "same.html", methods=all_methods()
    )
    assert "not on the same items" not in same.read_text("utf-8")
    html = write_report(
        [runs["da-response"], small], tmp_path / "differ.html", methods=all_methods()
    ).read_text("utf-8")
    merged = html.split("all 2 runs", 1)[1].split("<h3", 1)[0]
    assert "note: the runs were not on the same items" in merged
    assert "fixed: 8 items of gold.jsonl (--limit 8)" in merged
    assert "three: 3 items of gold.jsonl (--limit 3)" in merged
    from taiwa.report.leaderboard import write_leaderboard

    shutil.copytree(runs["da-response"], tmp_path / "da-response" / "fixed")
    _, md = write_leaderboard(tmp_path, tmp_path / "lb.html", methods=all_methods())
    assert "not on the same items" in md.read_text("utf-8")


def test_the_combined_intent_table_appears_whenever_runs_differ(tmp_path: Path) -> None:
    """Issue 42: intent's headline table holds item counts in its headers (``全体 (n=99)``);
    runs over different items, and two seeds of one system, still get the combined table,
    with a note saying how they differ; ``taiwa compare`` names their items without
    ``--limit None``."""
    from report_runs import _run
    from taiwa.core.errors import TaiwaError
    from taiwa.report.compare_runs import compare_runs
    from taiwa.report.leaderboard import write_leaderboard

    cache = {"cache_dir": tmp_path / ".cache"}
    root = tmp_path / "intent"
    s0 = _run(root / "s0", "intent", models=["builtin:random"], **cache)
    s1 = _run(root / "s1", "intent", models=["builtin:random"], seed=1, **cache)
    l20 = _run(root / "l20", "intent", models=["builtin:random"], limit=20, **cache)

    seeds = write_report([s0, s1], tmp_path / "seeds.html", methods=all_methods())
    merged = seeds.read_text("utf-8").split("all 2 runs", 1)[1].split("<h3", 1)[0]
    assert "note: the runs differ in their settings (s0: --seed 0; s1: --seed 1)" in merged
    assert "全体<br>(n=99)" in merged and "not on the same items" not in merged

    counts = write_report([s0, l20], tmp_path / "counts.html", methods=all_methods())
    merged = counts.read_text("utf-8").split("all 2 runs", 1)[1].split("<h3", 1)[0]
    assert "note: the runs were not on the same items" in merged
    assert "l20: 20 items of items.jsonl (--limit 20); s0: 99 items of items.jsonl" in merged
    assert ">全体</th>" in merged and "(n=" not in merged  # the counts differ: left out
    assert merged.count("builtin:random") == 2

    _, md = write_leaderboard(root, tmp_path / "lb.html", methods=all_methods())
    board = md.read_text("utf-8")
    assert board.count("## intent") == 1 and "differ in their settings" in board

    with pytest.raises(TaiwaError) as info:
        compare_runs([l20, s0], all_methods())
    assert "(99 items of items.jsonl vs 20 items of items.jsonl (--limit 20))" in str(info.value)
    assert "None" not in str(info.value)


def test_joined_titles_keep_their_parentheses() -> None:
    from taiwa.report.rich_html import TableData, as_text, join_tables

    def table(title: str) -> TableData:
        return TableData(title, "", [as_text("system")], [[as_text("human")]], ["left"])

    t1 = "cohesion (ginza-vectors(cos>=0.7), d=3, conditions a,b)"
    t2 = "cohesion (ginza-vectors(cos>=0.7), d=2, conditions a,b)"
    joined = join_tables(["a", "b"], [table(t1), table(t2)])
    assert joined.title == "cohesion"
    assert [r[1].plain for r in joined.rows] == [t1[len("cohesion ") :], t2[len("cohesion ") :]]
    for text in (joined.title, *(r[1].plain for r in joined.rows)):
        assert text.count("(") == text.count(")"), text


def test_footnotes_match_the_layout(page: str, runs: dict[str, Path], tmp_path: Path) -> None:
    """Cells show a CI under its value in the terminal and on the page but beside it in
    Markdown: a footnote names the brackets, never the place."""
    from taiwa.report.leaderboard import write_leaderboard

    _, md = write_leaderboard(runs["cohesion"].parent, tmp_path / "lb.html", methods=all_methods())
    for text in (page, md.read_text("utf-8")):
        assert not re.search(r"CIs? below", text)
    assert "CI in brackets" in page
