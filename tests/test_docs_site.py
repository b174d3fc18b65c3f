"""The README and the documentation site (issue 42): a README read in five minutes whose links
lead into the site, and a page per method that names every option and role the method takes
(the site's build, `mkdocs build --strict` in `make test`, checks the links between pages and the
API reference; tests/test_readme_commands.py runs the pages' commands)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from taiwa.benchmarks import get_method, method_names

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

README_MAX_LINES = 250


def _nav_files(nav: object) -> list[str]:
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [f for entry in nav for f in _nav_files(entry)]
    if isinstance(nav, dict):
        return [f for value in nav.values() for f in _nav_files(value)]
    return []


def test_the_readme_is_short_and_its_links_lead_into_the_site() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert sum(link.startswith("docs/") for link in local) >= 10
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README links to nothing: {missing}"
    for command in ("make demo", "make test"):  # the two set-up commands, as CI runs the second
        assert re.search(rf"^{command}\s+#", text, flags=re.M), command
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_nav_lists_a_page_per_method_and_only_pages_that_exist() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = _nav_files(config["nav"])
    assert all((DOCS / page).is_file() for page in listed), listed
    for name in method_names():
        assert f"methods/{name}.md" in listed, name
    assert "architecture.md" in listed and "api.md" in listed


@pytest.mark.parametrize("name", method_names())
def test_each_method_page_names_its_seed_roles_and_options(name: str) -> None:
    method = get_method(name)
    page = (DOCS / "methods" / f"{name}.md").read_text(encoding="utf-8")
    title = page.splitlines()[0]
    assert title.startswith(f"# {name}"), title
    if method.seed != "-":
        assert f"seed {method.seed}" in title.lower(), title
    headings = " | ".join(re.findall(r"^##+ (.*)$", page, flags=re.M)).lower()
    for section in ("worked example", "data format", "roles and options", "outputs"):
        assert section in headings, f"{name}: no section on {section} ({headings})"
    for role in method.roles:
        assert f"`{role.name}`" in page, f"{name}: role {role.name} not described"
    for option in method.options.model_fields:
        assert f"`{option}`" in page, f"{name}: option {option} not described"


def test_the_pages_python_imports_resolve() -> None:
    """Every ``from taiwa... import ...`` of the pages' Python examples names something that
    exists (a module moved by a re-layout leaves no example behind)."""
    import importlib

    missing = []
    found = 0
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
            for module, names in re.findall(r"^from (taiwa[\w.]*) import ([\w, ]+)$", block, re.M):
                imported = importlib.import_module(module)
                for name in (n.strip() for n in names.split(",")):
                    found += 1
                    if not hasattr(imported, name):
                        try:
                            importlib.import_module(f"{module}.{name}")
                        except ImportError:
                            missing.append(f"{page.name}: from {module} import {name}")
    assert found >= 20 and not missing, missing


def test_comparisons_table_is_documented_as_what_it_does() -> None:
    """Issue 42: the page said ``comparisons_table(block)`` prints; it returns a rich table.
    The page's example, run, gives a table, and printed on taiwa's console at 80 columns it
    reads as the page shows."""
    import io

    from rich.table import Table

    from taiwa.display.console import make_console

    text = (DOCS / "comparisons.md").read_text("utf-8")
    assert (
        "`comparisons_table(block)` returns" in text
        and "`comparisons_table(block)` (rich, 80 columns) prints" not in text
    )
    code = re.search(r"```python\n(from taiwa\.display\.comparison_table .*?)```", text, re.S)
    assert code is not None
    names: dict[str, object] = {}
    exec(code.group(1), names)  # the page's own example
    table = names["comparisons_table"](names["block"])  # type: ignore[operator]
    assert isinstance(table, Table)
    out = io.StringIO()
    make_console(file=out, width=80, color_system=None).print(table)
    shown = text.split("`comparisons_table(block)` returns", 1)[1].split("```\n", 2)[1]
    printed = [line.rstrip() for line in out.getvalue().splitlines()]
    assert all(line.rstrip() in printed for line in shown.splitlines()), (shown, printed)
