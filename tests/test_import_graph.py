"""The layer map of ``docs/architecture.md``, checked on the source tree's own imports.

Every module under ``src/taiwa`` is parsed with :mod:`ast` (nothing is imported) and each
``import`` / ``from ... import`` becomes an edge from the module to the module it names
(``from taiwa.x import y`` names ``taiwa.x.y`` when that is a module, else ``taiwa.x``;
relative imports are resolved). What counts:

* imports at module level **and** imports inside functions or methods (a lazy import is still
  an arrow: it runs the moment the function does);
* imports under ``if TYPE_CHECKING:`` too (shown as such): they never run, but a circle of
  types is still a circle in the design (``harness/rundir.py`` naming the runner's ``Plan`` for
  its annotations was one), so rules 1-4 count them; only rule 5 leaves them out (see there);
* only the module named: importing ``taiwa.a.b`` also runs ``taiwa/a/__init__.py``, but that
  implicit edge is not drawn (a package's ``__init__`` re-exporting its modules would otherwise
  be a circle with each of them).

The rules (one direction of imports, DESIGN.md / docs/architecture.md "Layers"):

1. no shared layer (``metrics``, ``text``, ``models``, ``annotators``, ``judges``,
   ``resources``, ``speech``, the top-level helper modules such as ``io`` or ``tables``), no
   ``harness`` and no ``report`` module imports a ``taiwa.benchmarks`` module, the registry
   included: only the top floor (the CLI: ``cli*.py``, ``demo.py``) resolves method names, and
   it hands the method objects down;
2. no method package (``taiwa.benchmarks.<method>``) imports the runner's side of the harness
   (``taiwa.harness.runner``, the modules it is split into, ``taiwa.harness.config``): the
   runner calls methods, never the reverse;
3. ``models`` imports nothing from ``speech``;
4. inside one package (one directory) the modules import in one direction: no cycle;
5. the top-level packages import one another in one direction: no circle in the package
   graph, imports under ``TYPE_CHECKING`` included (the contract names the run reader's
   ``RunData`` and the display's ``Section``; both sit below the harness's contract);
6. every arrow between top-level packages points down :data:`LAYERS` (the order of
   ``docs/architecture.md``'s "Layers"), type-only ones included;
7. the package root holds only packages, the package face, ``__main__`` and the version.

Each rule is shown failing on a small fake source tree written to ``tmp_path``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "taiwa"
MAX_LINES = 400

TOP_FLOOR = ("__main__", "cli")
"""The top floor (the ``cli`` package and ``__main__``): the only code that may name the
registry."""
RUNNER_SIDE = (
    "taiwa.harness.runner",
    "taiwa.harness.config",
    "taiwa.harness.plan",
    "taiwa.harness.stage_run",
    "taiwa.harness.chunk_run",
    "taiwa.harness.chunk_overlap",
    "taiwa.harness.followers",
    "taiwa.harness.progress",
    "taiwa.harness.run_output",
    "taiwa.harness.held",
    "taiwa.harness.provenance",
    "taiwa.harness.rows",
    "taiwa.harness.rundir",
)
"""What a method package never imports: the orchestration that calls it (the runner and the
modules it is split into, the run configuration, the spill files and the run directory)."""


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` on ``line`` (inside a function when ``lazy``; under
    ``if TYPE_CHECKING:`` when ``typing``)."""

    source: str
    target: str
    line: int
    lazy: bool
    typing: bool = False

    def __str__(self) -> str:
        where = "in a function" if self.lazy else "at module level"
        where += ", TYPE_CHECKING only" if self.typing else ""
        return f"{self.source} → {self.target} (line {self.line}, {where})"


# ---------------------------------------------------------------------------- the graph


def module_names(src: Path, root: str = ROOT) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` file under ``src/root``."""
    out: dict[str, Path] = {}
    for path in sorted((src / root).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterable[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import statement, with whether it sits inside a function and whether only under
    ``if TYPE_CHECKING:``."""
    stack: list[tuple[ast.AST, bool, bool]] = [(tree, False, False)]
    while stack:
        node, lazy, typing = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, lazy, typing
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend((child, lazy, True) for child in node.body)
            stack.extend((child, lazy, typing) for child in node.orelse)
            continue
        inner = lazy or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        stack.extend((child, inner, typing) for child in ast.iter_child_nodes(node))


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from`` import starts from."""
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    keep = len(parts) - node.level + (1 if is_package else 0)
    base = ".".join(parts[:keep])
    return f"{base}.{node.module}" if node.module else base


def _parse(path: Path) -> ast.Module:
    """``path``'s syntax tree. Python 3.11 may raise ``SystemError: AST constructor recursion
    depth mismatch`` when another thread of the process builds a tree at the same moment
    (CPython gh-106905; a test run's background thread compiling a module it imports): that
    one is parsed again."""
    text = path.read_text(encoding="utf-8")
    try:
        return ast.parse(text, filename=str(path))
    except SystemError:
        return ast.parse(text, filename=str(path))


def import_graph(src: Path, root: str = ROOT) -> list[Edge]:
    """Every import edge between modules of ``root`` (imports of other packages left out)."""
    modules = module_names(src, root)
    edges: list[Edge] = []
    for name, path in modules.items():
        tree = _parse(path)
        is_package = path.name == "__init__.py"
        for node, lazy, typing in _imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _base(name, is_package, node)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in dict.fromkeys(targets):
                if target == root or target.startswith(root + "."):
                    known = _known(target, modules)
                    if known is not None and known != name:
                        edges.append(Edge(name, known, node.lineno, lazy, typing))
    return edges


def _known(target: str, modules: Mapping[str, Path]) -> str | None:
    """``target`` or its nearest enclosing module that exists in the tree."""
    parts = target.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def layer(module: str, root: str = ROOT) -> str:
    """The top-level package (or module) under ``root``: ``taiwa.harness.runner`` → ``harness``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def package_of(module: str, modules: Mapping[str, Path]) -> str:
    """The package (directory) a module's file lives in."""
    path = modules[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


# ---------------------------------------------------------------------------- the rules


def methods_imported_from_below(edges: Iterable[Edge], root: str = ROOT) -> list[Edge]:
    """Rule 1: a module below the top floor (a shared layer, the harness, the report) imports
    a method package or the registry."""
    bench = f"{root}.benchmarks"
    return [
        e
        for e in edges
        if layer(e.source) not in (*TOP_FLOOR, "benchmarks")
        and (e.target == bench or e.target.startswith(bench + "."))
    ]


def methods_calling_the_runner(edges: Iterable[Edge]) -> list[Edge]:
    """Rule 2: a method package imports the runner's side of the harness."""
    return [e for e in edges if layer(e.source) == "benchmarks" and e.target in RUNNER_SIDE]


def models_importing_speech(edges: Iterable[Edge]) -> list[Edge]:
    """Rule 3: ``models`` imports ``speech``."""
    return [e for e in edges if layer(e.source) == "models" and layer(e.target) == "speech"]


def _inside(edges: Iterable[Edge], modules: Mapping[str, Path]) -> dict[str, dict[str, Edge]]:
    """The edges between modules of the same package (one edge kept per pair)."""
    inside: dict[str, dict[str, Edge]] = {}
    for e in edges:
        if package_of(e.source, modules) == package_of(e.target, modules):
            inside.setdefault(e.source, {}).setdefault(e.target, e)
    return inside


def cycles_in_packages(edges: Iterable[Edge], modules: Mapping[str, Path]) -> list[list[Edge]]:
    """Rule 4: for every package (directory), each circle among its own modules, as the edges
    of one concrete loop through the first module of the strongly connected component."""
    inside = _inside(edges, modules)
    return [_loop(component, inside) for component in _components(inside)]


def circle_members(edges: Iterable[Edge], modules: Mapping[str, Path]) -> list[list[str]]:
    """Rule 4, every module caught in each circle (the strongly connected components)."""
    return _components(_inside(edges, modules))


def _components(graph: Mapping[str, Mapping[str, Edge]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(iter(children), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _loop(component: list[str], graph: Mapping[str, Mapping[str, Edge]]) -> list[Edge]:
    """One closed walk from the component's first module back to it (breadth-first: the
    shortest), for the message."""
    members = set(component)
    start = component[0]
    prev: dict[str, Edge] = {}
    frontier = [start]
    while frontier:
        nxt: list[str] = []
        for node in frontier:
            for target, edge in sorted(graph.get(node, {}).items()):
                if target not in members:
                    continue
                if target == start:
                    path = [edge]
                    while path[0].source != start:
                        path.insert(0, prev[path[0].source])
                    return path
                if target not in prev:
                    prev[target] = edge
                    nxt.append(target)
        frontier = nxt
    raise AssertionError(f"no loop through {component}")  # a strongly connected component has one


def package_cycles(edges: Iterable[Edge]) -> list[list[Edge]]:
    """Rule 5: each circle among the top-level packages, through any import (``TYPE_CHECKING``
    ones included: a circle of types is a circle in the design), as the edges of one loop."""
    graph: dict[str, dict[str, Edge]] = {}
    for e in edges:
        a, b = layer(e.source) or ROOT, layer(e.target) or ROOT
        if a != b:
            graph.setdefault(a, {}).setdefault(b, e)
    lifted = {
        a: {b: Edge(a, b, e.line, e.lazy, e.typing) for b, e in targets.items()}
        for a, targets in graph.items()
    }
    loops = [_loop(component, lifted) for component in _components(lifted)]
    return [[graph[e.source][e.target] for e in loop] for loop in loops]


LAYERS = (
    "__main__",
    "cli",
    "benchmarks",
    "report",
    "judges",
    "annotators",
    "harness",
    "display",
    "testing",
    "models",
    "speech",
    "metrics",
    "resources",
    "text",
    "core",
    "",  # the package face (taiwa/__init__.py)
    "_version",
)
"""The layers from the top floor down: a package imports only packages after it."""
ROOT_MODULES = {"__init__.py", "__main__.py", "_version.py"}
MAX_ROOT_ENTRIES = 17
"""14 layer packages, the face, ``__main__`` and the version (``data/``, assets, not counted)."""


def back_arrows(edges: Iterable[Edge]) -> list[Edge]:
    """Rule 6: imports (type-only ones included) from a layer to one above it, or from or to
    a top-level package missing from :data:`LAYERS`."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    out: dict[tuple[str, str], Edge] = {}
    for e in edges:
        a, b = layer(e.source), layer(e.target)
        if a == b:
            continue
        if a not in rank or b not in rank or rank[a] > rank[b]:
            out.setdefault((a, b), e)
    return list(out.values())


def root_entries(src: Path, root: str = ROOT) -> tuple[list[str], list[str]]:
    """Rule 7: the package root's entries (caches, the typing marker and ``data/`` aside) and
    the modules among them other than the face, ``__main__`` and the version."""
    entries = sorted(
        p.name
        for p in (src / root).iterdir()
        if p.name not in ("__pycache__", "py.typed", "data") and not p.name.startswith(".")
    )
    stray = [n for n in entries if n.endswith(".py") and n not in ROOT_MODULES]
    return entries, stray


def long_modules(modules: Mapping[str, Path], limit: int = MAX_LINES) -> list[str]:
    """Modules longer than ``limit`` lines, with their length."""
    out = []
    for name, path in modules.items():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > limit:
            out.append(f"{name}: {n} lines")
    return out


def _shown(found: Iterable[Edge]) -> str:
    return "\n  ".join(str(e) for e in found)


def _shown_loops(loops: Iterable[list[Edge]]) -> str:
    return "\n  ".join(
        " → ".join([loop[0].source, *(f"{e.target} (l.{e.line})" for e in loop)]) for loop in loops
    )


# ---------------------------------------------------------------------------- the source tree


def _graph() -> tuple[dict[str, Path], list[Edge]]:
    return module_names(SRC), import_graph(SRC)


def test_the_graph_sees_the_imports_it_should() -> None:
    """The parser finds known arrows (guards against a checker that sees nothing)."""
    modules, edges = _graph()
    assert len(modules) > 100
    pairs = {(e.source, e.target) for e in edges}
    assert ("taiwa.harness.runner", "taiwa.harness.method") in pairs
    assert ("taiwa.cli.run", "taiwa.benchmarks") in pairs  # lazy import, inside a function
    assert ("taiwa.benchmarks.prompts", "taiwa.harness.method") in pairs


def test_no_shared_layer_harness_or_report_imports_a_method() -> None:
    found = methods_imported_from_below(_graph()[1])
    assert not found, "imports of taiwa.benchmarks from below:\n  " + _shown(found)


def test_no_method_imports_the_runner() -> None:
    found = methods_calling_the_runner(_graph()[1])
    assert not found, "method packages importing the runner's side:\n  " + _shown(found)


def test_models_import_no_speech() -> None:
    found = models_importing_speech(_graph()[1])
    assert not found, "models → speech:\n  " + _shown(found)


def test_no_cycle_inside_a_package() -> None:
    modules, edges = _graph()
    loops = cycles_in_packages(edges, modules)
    members = "\n  ".join(", ".join(c) for c in circle_members(edges, modules))
    assert not loops, (
        f"{len(loops)} import circle(s) inside packages; one loop of each:\n  "
        + _shown_loops(loops)
        + "\nthe modules caught in each circle:\n  "
        + members
    )


def test_the_packages_import_in_one_direction() -> None:
    loops = package_cycles(_graph()[1])
    assert not loops, "circles between top-level packages (one import shown per arrow):\n  " + (
        "\n  ".join(_shown(loop).replace("\n  ", " ⇒ ") for loop in loops)
    )


def test_every_arrow_points_down_the_layers() -> None:
    found = back_arrows(_graph()[1])
    assert not found, "imports up the layers (or from an unlisted package):\n  " + _shown(found)


def test_the_root_holds_the_layers_only() -> None:
    entries, stray = root_entries(SRC)
    assert not stray, f"modules at the package root: {stray}"
    assert len(entries) <= MAX_ROOT_ENTRIES, f"{len(entries)} entries at the root: {entries}"
    for name in entries:
        face = SRC / ROOT / name / "__init__.py"
        if (SRC / ROOT / name).is_dir() and name != "data":
            doc = ast.get_docstring(ast.parse(face.read_text(encoding="utf-8")))
            summary = (doc or "").split("\n\n")[0]
            assert summary and len(summary.splitlines()) <= 2, f"{name}/__init__.py: a summary line"


def test_no_module_over_400_lines() -> None:
    found = long_modules(module_names(SRC))
    assert not found, f"modules over {MAX_LINES} lines:\n  " + "\n  ".join(found)


# ---------------------------------------------------------------------------- it can fail


def _fake_tree(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / "taiwa" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for directory in [tmp_path / "taiwa", *(tmp_path / "taiwa").rglob("*")]:
        if directory.is_dir() and not (directory / "__init__.py").exists():
            (directory / "__init__.py").write_text("", encoding="utf-8")
    return tmp_path


FAKE = {
    "benchmarks/__init__.py": "METHODS = {'toy': 'taiwa.benchmarks.toy'}\n",
    "benchmarks/toy/__init__.py": (
        "from taiwa.harness.method import Summary\n"
        "def demo():\n"
        "    from taiwa.harness.runner import run\n"  # a method running itself
        "    return run\n"
    ),
    "harness/method.py": "class Summary: ...\n",
    "harness/runner.py": (
        "from taiwa.benchmarks import METHODS\n"  # the runner reaching up to the registry
        "from .rundir import write\n"
        "class Plan: ...\n"
    ),
    "harness/rundir.py": (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from taiwa.harness.runner import Plan\n"  # a circle of types
        "def write(plan: 'Plan') -> None: ...\n"
    ),
    "models/cascade.py": "from taiwa.speech.asr import ASR\n",
    "speech/asr.py": "class ASR: ...\n",
    "report/page.py": "def html():\n    from ..benchmarks.toy import demo\n    return demo\n",
    "text/a.py": "from . import b\n",
    "text/b.py": "import taiwa.text.c\n",
    "text/c.py": "def f():\n    from taiwa.text.a import x\n    return x\n",  # lazy
}


def test_the_checker_reports_back_arrows_and_circles(tmp_path: Path) -> None:
    src = _fake_tree(tmp_path, FAKE)
    modules, edges = module_names(src), import_graph(src)

    up = {(e.source, e.target, e.lazy) for e in methods_imported_from_below(edges)}
    assert up == {
        ("taiwa.harness.runner", "taiwa.benchmarks", False),
        ("taiwa.report.page", "taiwa.benchmarks.toy", True),  # relative, inside a function
    }
    assert [(e.source, e.target) for e in methods_calling_the_runner(edges)] == [
        ("taiwa.benchmarks.toy", "taiwa.harness.runner")
    ]
    assert [(e.source, e.line) for e in models_importing_speech(edges)] == [
        ("taiwa.models.cascade", 1)
    ]
    loops = cycles_in_packages(edges, modules)
    shown = [[e.source for e in loop] for loop in loops]
    assert shown == [
        ["taiwa.harness.rundir", "taiwa.harness.runner"],
        ["taiwa.text.a", "taiwa.text.b", "taiwa.text.c"],
    ]
    assert circle_members(edges, modules) == [
        ["taiwa.harness.rundir", "taiwa.harness.runner"],
        ["taiwa.text.a", "taiwa.text.b", "taiwa.text.c"],
    ]
    message = _shown_loops(loops)
    assert "taiwa.harness.rundir → taiwa.harness.runner (l.3)" in message
    assert "taiwa.text.c → taiwa.text.a" in _shown([loops[1][-1]])
    assert [(e.source, e.target, e.lazy) for e in edges if e.typing] == [
        ("taiwa.harness.rundir", "taiwa.harness.runner", False)
    ]
    # between packages: the runner reaching up to the registry closes harness → benchmarks
    # → harness
    [loop] = package_cycles(edges)
    assert [(layer(e.source), layer(e.target)) for e in loop] == [
        ("benchmarks", "harness"),
        ("harness", "benchmarks"),
    ]
    assert str(loop[1]) == "taiwa.harness.runner → taiwa.benchmarks (line 1, at module level)"
    up_layers = {(layer(e.source), layer(e.target)) for e in back_arrows(edges)}
    assert ("harness", "benchmarks") in up_layers and ("text", "text") not in up_layers


def test_the_checker_passes_a_tree_in_one_direction(tmp_path: Path) -> None:
    src = _fake_tree(
        tmp_path,
        {
            "harness/method.py": "class Summary: ...\n",
            "harness/runner.py": "from taiwa.harness.method import Summary\n",
            "benchmarks/toy/__init__.py": "from taiwa.harness.method import Summary\n",
            "cli/app.py": "from taiwa.benchmarks import toy\nfrom taiwa.harness import runner\n",
        },
    )
    modules, edges = module_names(src), import_graph(src)
    assert ("taiwa.cli.app", "taiwa.benchmarks.toy") in {(e.source, e.target) for e in edges}
    assert not methods_imported_from_below(edges)
    assert not methods_calling_the_runner(edges)
    assert not cycles_in_packages(edges, modules)
    assert not package_cycles(edges)
    assert not back_arrows(edges)


def test_the_root_check_names_a_stray_module(tmp_path: Path) -> None:
    src = _fake_tree(tmp_path, {"cli/app.py": "x = 1\n", "helpers.py": "x = 1\n"})
    (src / ROOT / "__init__.py").write_text('"""face"""\n', encoding="utf-8")
    entries, stray = root_entries(src)
    assert stray == ["helpers.py"] and "cli" in entries


def test_long_modules_are_named(tmp_path: Path) -> None:
    src = _fake_tree(tmp_path, {"big.py": "x = 1\n" * (MAX_LINES + 1), "small.py": "x = 1\n"})
    assert long_modules(module_names(src)) == [f"taiwa.big: {MAX_LINES + 1} lines"]
