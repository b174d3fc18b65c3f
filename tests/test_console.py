"""The CLI's consoles (:mod:`taiwa.display.console`): made on first use, every access handed on."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from taiwa.display.console import LazyConsole, make_console
from taiwa.display.fit import FitTables


def test_the_console_is_made_on_first_use_with_the_table_fitting() -> None:
    console = make_console(file=io.StringIO(), width=40, color_system=None)
    assert isinstance(console, LazyConsole)
    assert vars(console)["made"] is None
    table = Table("name", "value")
    table.add_row("a-name-that-is-long", "x" * 60)
    console.print(table)
    made = vars(console)["made"]
    assert isinstance(made, Console) and console.get() is made
    assert any(isinstance(hook, FitTables) for hook in made._render_hooks)
    assert "a-name-that-is-long" in made.file.getvalue()  # a name is never cut


def test_writes_and_with_go_to_the_console() -> None:
    console = make_console(file=io.StringIO())
    console.width = 123
    assert console.get().width == 123 and console.width == 123
    with console:  # rich's live displays enter their console
        console.print("buffered")
    assert "buffered" in console.get().file.getvalue()
