"""Every shell command of the README and of the documentation site's pages that runs offline
runs verbatim, in order, in a fresh directory (issue 24, "Done when"; issue 42: the site's pages
too). The commands are read from the ```bash blocks of the README, then of the pages in the order
of mkdocs.yml's nav (pages outside it after, by name). A block that cannot run here is marked in
its page by the line before it, ``<!-- needs: WHAT -->`` (an endpoint, your own files, a build
of the wheel ...), and skipped; a single command is listed in :data:`NOT_RUN` with the reason.
So a new command is either run here or consciously left out. A command given twice (the README's
quickstart and a method's page) runs once, where it first appears. The commands that call the
demo LLM are the slow part: they run in their own test, marked ``slow`` (still part of
``make test``)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MKDOCS = ROOT / "mkdocs.yml"

NOT_RUN: dict[str, str] = {
    "make demo": "make: creates .venv and installs packages (the entry point, not a command)",
    "make test": "make: runs this suite",
}
"""Commands in unmarked blocks not run here, each with why."""

NEEDS = re.compile(r"^<!--\s*needs:\s*(?P<needs>[^\n]+?)\s*-->", flags=re.M)
"""A marker: a line of its own."""
BLOCK = re.compile(
    r"(?:^<!--\s*needs:\s*(?P<needs>[^\n]+?)\s*-->[ \t]*\n(?:[ \t]*\n)*)?"  # a marker, then
    r"^```bash\n(?P<body>.*?)^```",
    flags=re.S | re.M,
)


@dataclass(frozen=True)
class Command:
    """One shell command of a page: where it is, and what its block says it needs."""

    text: str
    page: str
    needs: str | None


def site_pages() -> list[Path]:
    """The site's pages: mkdocs.yml's nav in order, then any other page under docs/ by name."""
    listed = [DOCS / page for page in _nav_files(yaml.safe_load(MKDOCS.read_text("utf-8"))["nav"])]
    others = sorted(set(DOCS.rglob("*.md")) - set(listed))
    return listed + others


def _nav_files(nav: Any) -> Iterator[str]:
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for entry in nav:
            yield from _nav_files(entry)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _nav_files(value)


def page_commands(text: str, page: str = "README.md") -> list[Command]:
    """The shell commands of a page's ```bash blocks, in order: comments dropped, continuation
    lines joined, runs of spaces squeezed; each with its block's ``needs`` marker (or None). A
    marker that stands before no block is an error."""
    out: list[Command] = []
    marked = 0
    for block in BLOCK.finditer(text):
        needs = block.group("needs")
        marked += needs is not None
        joined = re.sub(r"\\\n\s*", " ", block.group("body"))
        for line in joined.splitlines():
            command = _without_comment(line).strip()
            if command:
                out.append(Command(re.sub(r"\s+", " ", command), page, needs))
    markers = len(NEEDS.findall(text))
    assert markers == marked, f"{page}: a `<!-- needs: ... -->` marker stands before no bash block"
    return out


def readme_commands(text: str) -> list[str]:
    """Every shell command of ``text``'s ```bash blocks (marked blocks included), in order."""
    return [c.text for c in page_commands(text)]


def _without_comment(line: str) -> str:
    """``line`` up to a ``#`` that starts a comment (outside quotes, after a space)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def all_commands() -> list[Command]:
    """The README's commands, then every site page's."""
    found = page_commands(README.read_text(encoding="utf-8"))
    for path in site_pages():
        found += page_commands(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    return found


ALL = all_commands()
COMMANDS = list(dict.fromkeys(c.text for c in ALL if c.needs is None))
"""The commands of unmarked blocks, each once, in the order they first appear."""

DEMO_LLM = re.compile(r"(?:-m|--model|--models)[ =](?:\S*,)?demo\b")
"""Commands that call the embedded demo LLM (slow on a small CPU)."""


def reason_not_run(command: str) -> str | None:
    return NOT_RUN.get(command)


def test_every_command_is_run_or_listed() -> None:
    """A command of an unmarked block is run below or listed in NOT_RUN; a NOT_RUN entry no
    page has any more is an error (the list stays the pages'); every marker says what its
    block needs."""
    stale = set(NOT_RUN) - set(COMMANDS)
    assert not stale, f"NOT_RUN names commands no page has any more: {sorted(stale)}"
    run = [c for c in COMMANDS if reason_not_run(c) is None]
    assert all(c.startswith("taiwa ") for c in run), [c for c in run if not c.startswith("taiwa ")]
    assert len(run) >= 20
    assert "taiwa run cohesion" in run and "taiwa list" in run
    pages = {c.page for c in ALL}
    assert "README.md" in pages and {"docs/getting-started.md", "docs/methods/intent.md"} <= pages
    assert all(c.needs.strip() for c in ALL if c.needs is not None)


def test_a_marked_block_is_skipped_and_a_stray_marker_refused() -> None:
    page = (
        "```bash\ntaiwa list   # runs\n```\n\n<!-- needs: endpoint -->\n\n"
        "```bash\ntaiwa run x -m openai:a \\\n   --base-url URL\n```\n"
    )
    found = page_commands(page, "p.md")
    assert [(c.text, c.needs) for c in found] == [
        ("taiwa list", None),
        ("taiwa run x -m openai:a --base-url URL", "endpoint"),
    ]
    with pytest.raises(AssertionError, match="stands before no bash block"):
        page_commands("<!-- needs: endpoint -->\n\nsome text\n\n```bash\ntaiwa list\n```\n")


def test_the_readme_quickstart_is_what_the_demo_prints_last() -> None:
    """The README's quickstart commands are the three `taiwa demo` ends with (issue 42 point 4),
    in one block, in order."""
    from taiwa.cli.demo import next_commands

    readme = [c for c in ALL if c.page == "README.md" and c.needs == "endpoint"]
    assert [c.text for c in readme] == next_commands(Path("runs") / "demo")


def _run_in_order(tmp: Path, commands: list[str], *, fresh_cache: bool) -> None:
    """``commands`` through the real CLI in one fresh directory.

    ``fresh_cache``: with a fresh response cache (every reply computed as on a new machine).
    Only content-keyed files are the session's: the joined, checked model files (``models/``,
    as conftest.py shares them; joining and hashing the demo GGUF again tests nothing new:
    tests/test_llama_backend.py checks the join) and the fitted char-n-gram baseline
    (``taggers/``: the session fits it once, in whichever `taiwa validate tagger` comes first).
    Otherwise the session's cache (``TAIWA_CACHE_DIR``, as conftest.py sets it)."""
    from taiwa.models.cache import default_cache_dir

    cache = default_cache_dir()
    if fresh_cache:
        (tmp / "cache").mkdir()
        for shared in ("models", "taggers"):
            (default_cache_dir() / shared).mkdir(exist_ok=True)
            (tmp / "cache" / shared).symlink_to(
                (default_cache_dir() / shared).resolve(), target_is_directory=True
            )
        cache = tmp / "cache"
    env = {
        **os.environ,
        "COLUMNS": "80",
        "TAIWA_CACHE_DIR": str(cache),
        "PYTHONPATH": os.pathsep.join(
            p
            for p in (
                str(Path(__file__).resolve().parents[1] / "src"),
                os.environ.get("PYTHONPATH"),
            )
            if p
        ),
    }
    work = tmp / "fresh"
    work.mkdir()
    for command in commands:
        args = shlex.split(command)
        r = subprocess.run(
            [sys.executable, "-m", "taiwa", *args[1:]],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=3600,
        )
        assert r.returncode == 0, f"`{command}` exited {r.returncode}:\n{r.stderr[-2000:]}"
        assert "Traceback" not in r.stderr, command


def test_offline_readme_commands_run_verbatim_in_order(tmp_path: Path) -> None:
    """The offline commands of the README and the site's pages that need no LLM, verbatim and in
    their order, in one fresh directory (so a default run directory of one command never
    collides with the next: issue 24 point 6)."""
    commands = [c for c in COMMANDS if reason_not_run(c) is None and not DEMO_LLM.search(c)]
    assert len(commands) >= 8
    _run_in_order(tmp_path, commands, fresh_cache=True)
    runs = sorted(
        p.parent.relative_to(tmp_path / "fresh").as_posix()
        for p in (tmp_path / "fresh").rglob("summary.json")
    )
    assert "runs/cohesion/dialogues" in runs
    assert "runs/cohesion/dialogues,distance=2,resource=vectors_0.7" in runs
    assert "runs/cohesion/dialogues,conditions=a+b" in runs
    assert (tmp_path / "fresh" / "runs" / "leaderboard.md").is_file()


@pytest.mark.slow
@pytest.mark.timeout(7200)  # the demo LLM on every bundled set (its replies cached once)
def test_all_runnable_readme_commands_run_verbatim_in_order(tmp_path: Path) -> None:
    """Every runnable command of the README and the site's pages, those calling the embedded
    demo LLM included, in their order in one fresh directory, with the session's response
    cache: conftest.py
    runs this test right after `taiwa demo`'s (tests/test_cli.py), on the same worker, so the
    demo-LLM requests the demo made cold (its da-response, da-distribution and intent runs use
    `taiwa run`'s defaults and the pages' items; the ROUGE-only chitchat command asks what the
    demo's judged chitchat run asked) are answered from the cache, as a user's are after
    `make demo` (tests/test_demo_spec.py checks that the pages ask what the demo asked)."""
    commands = [c for c in COMMANDS if reason_not_run(c) is None]
    assert sum(bool(DEMO_LLM.search(c)) for c in commands) >= 5
    _run_in_order(tmp_path, commands, fresh_cache=False)
