"""pip install from a wheel (issue 42 point 3): a wheel built from the repository installs into a
fresh venv outside the checkout with the extras the README names, and `taiwa demo` runs from it
in a directory outside the checkout, finding its sample data and model files in the installed
package alone.

The wheel is built from a copy of the project's files (``pip wheel --no-deps``; setuptools
writes ``build/`` and ``*.egg-info`` into the tree it builds, so never the checkout). The fresh
venv reuses the dependencies already installed for the tests: a ``.pth`` file names a folder of
links to every entry of this interpreter's site-packages except taiwa's own (its editable
install), so pip sees them installed and the README's ``pip install`` commands run with
``--no-index``, needing no network, and resolve the extras against what is there (a misspelt
extra, or a dependency the extras do not bring, fails). The demo is answered from the session's
response cache: conftest.py runs this test after `taiwa demo`'s on the same worker
(:data:`conftest.CHAIN`)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

PROJECT_FILES = ("pyproject.toml", "README.md", "src")
"""What building the wheel reads (pyproject.toml's ``readme`` and ``packages.find``)."""


def readme_pip_commands(text: str) -> list[list[str]]:
    """The ``pip install`` commands of the README's ```bash blocks, as argument lists."""
    from test_readme_commands import readme_commands

    return [shlex.split(c) for c in readme_commands(text) if c.startswith("pip install ")]


def _copy_project(dst: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    dst.mkdir()
    for name in PROJECT_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, dst / name, ignore=ignore)
        else:
            shutil.copy2(source, dst / name)
    return dst


def _build_wheel(project: Path, out: Path) -> Path:
    """``pip wheel --no-deps`` of ``project`` into ``out``: with this interpreter's setuptools
    when it is recent enough (no network), else in pip's isolated build environment (setuptools
    from the registry, as any user's build)."""
    try:
        import setuptools
        import wheel  # noqa: F401

        local = int(setuptools.__version__.split(".")[0]) >= 77
    except ImportError:
        local = False
    isolation = ["--no-build-isolation"] if local else []
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", str(out)]
    r = subprocess.run([*cmd, str(project)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    [built] = out.glob("taiwa-*.whl")
    return built


def _installed_dependencies(folder: Path) -> Path:
    """A folder of links to every entry of this interpreter's site-packages but taiwa's own."""
    folder.mkdir()
    site = {Path(sysconfig.get_paths()[k]) for k in ("purelib", "platlib")}
    for packages in site:
        for entry in packages.iterdir():
            name = entry.name.lower()
            if name == "taiwa" or name.startswith(("taiwa-", "__editable__.taiwa")):
                continue
            if name.endswith(".pth") or (folder / entry.name).exists():
                continue
            (folder / entry.name).symlink_to(entry)
    return folder


def _fresh_venv(where: Path, dependencies: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env(),
    ).stdout.strip()
    (Path(purelib) / "taiwa_test_dependencies.pth").write_text(f"{dependencies}\n")
    return python


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without what would point Python at the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "COLUMNS": "80", **extra}


def test_the_getting_started_page_installs_as_the_readme_does() -> None:
    page = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    readme = readme_pip_commands(README.read_text(encoding="utf-8"))
    assert readme and readme_pip_commands(page) == readme


@pytest.mark.slow
@pytest.mark.timeout(3600)  # cold (run alone), `taiwa demo` computes every demo-LLM reply
def test_wheel_installs_outside_the_checkout_and_runs_the_demo(tmp_path: Path) -> None:
    commands = readme_pip_commands(README.read_text(encoding="utf-8"))
    wheel_installs = [c for c in commands if any(a.endswith(".whl]") or ".whl[" in a for a in c)]
    assert len(wheel_installs) == 1, f"the README's pip install of the wheel: {commands}"
    outside = tmp_path / "outside"
    outside.mkdir()
    assert not outside.resolve().is_relative_to(REPO)
    built = _build_wheel(_copy_project(tmp_path / "project"), tmp_path / "dist")

    [wheel_install] = wheel_installs
    [arg] = [a for a in wheel_install if ".whl[" in a]
    named, extras = re.fullmatch(r"(.*\.whl)(\[[a-z0-9,_-]+\])", arg).groups()  # type: ignore[union-attr]
    assert Path(named).name == built.name, f"the README installs {named}; the build made {built}"
    python = _fresh_venv(tmp_path / "venv", _installed_dependencies(tmp_path / "deps"))
    for command in commands:
        args = [f"{built}{extras}" if a == arg else a for a in command[2:]]
        r = subprocess.run(
            [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", *args],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=outside,
            env=_clean_env(),
        )
        assert r.returncode == 0, f"{shlex.join(command)}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}"

    # taiwa comes from the wheel, installed (not editable), with every file of the package
    probe = (
        "import json, importlib.metadata as m, taiwa; d = m.distribution('taiwa'); "
        "print(json.dumps([taiwa.__file__, d.read_text('direct_url.json'), "
        "[str(f) for f in d.files]]))"
    )
    r = subprocess.run(
        [str(python), "-c", probe], capture_output=True, text=True, cwd=outside, env=_clean_env()
    )
    assert r.returncode == 0, r.stderr
    module, direct_url, files = json.loads(r.stdout)
    assert Path(module).resolve().is_relative_to((tmp_path / "venv").resolve()), module
    editable = json.loads(direct_url).get("dir_info", {}).get("editable") if direct_url else None
    assert not editable, direct_url
    shipped = {f for f in files if f.startswith("taiwa/")}
    source = REPO / "src"
    wanted = {
        p.relative_to(source).as_posix()
        for p in (source / "taiwa").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    assert not wanted - shipped, f"not in the wheel: {sorted(wanted - shipped)[:20]}"

    # `taiwa demo` from the installed command, outside the checkout
    taiwa = python.parent / "taiwa"
    r = subprocess.run(
        [str(taiwa), "demo"],
        capture_output=True,
        text=True,
        cwd=outside,
        env=_clean_env(),
        timeout=3600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr
    assert (outside / "runs" / "demo" / "report.html").is_file()
    assert r.stdout.rstrip().splitlines()[-1].startswith("taiwa compare runs/demo/")
