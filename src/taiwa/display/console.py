"""The CLI's consoles, made when first used: importing rich (its console, tables and text,
20-35 ms) is not on the way to a run's first request (issue 29), only to what a command prints.

:func:`make_console` gives a stand-in that builds the real :class:`rich.console.Console` (with
:mod:`taiwa.display.fit`'s table fitting) on its first attribute access and hands every access
on to it, reads and writes alike, and ``with`` (rich's live displays enter their console);
:meth:`LazyConsole.get` is the console itself (to patch it in a test), :attr:`~LazyConsole.made`
the console once it exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from rich.console import Console


class LazyConsole:
    """A console made on first use (see the module docstring)."""

    def __init__(self, kwargs: dict[str, Any]) -> None:
        object.__setattr__(self, "_kwargs", kwargs)
        object.__setattr__(self, "made", None)

    def get(self) -> Console:
        """The console, made now if it was not yet."""
        made: Console | None = object.__getattribute__(self, "made")
        if made is None:
            from taiwa.display.fit import fitting_console

            made = fitting_console(**object.__getattribute__(self, "_kwargs"))
            object.__setattr__(self, "made", made)
        return made

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.get(), name, value)

    def __enter__(self) -> Console:
        return self.get().__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.get().__exit__(*exc)


def make_console(**kwargs: Any) -> Console:
    """A console for the CLI (no emoji codes: ``:D`` in a reply stays as typed) whose tables
    fit its width (:func:`taiwa.display.fit.fitting_console`), made when first used."""
    return cast("Console", LazyConsole(kwargs))
