"""How ``taiwa --help`` shows its options and commands: a boolean flag (``--overwrite``,
``--quiet``) is shown as a flag, without the ``<bool>`` value type that typer's rich help puts
beside every option (a flag takes no value: ``--overwrite true`` is an error); a command's
summary in the list of commands is its docstring's first paragraph on one line; a usage error
(a misspelt flag, a bad value) is one line naming the closest flag (:func:`usage_line`)."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperOption


def show_flags_as_flags() -> None:
    """Make typer's rich help print no value type for options that take no value."""
    if getattr(TyperOption, "_taiwa_flags", False):
        return
    shown = TyperOption.display_type_rich

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if self.is_flag and self.metavar is None:
            return None
        return shown(self, ctx)

    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
    TyperOption._taiwa_flags = True  # type: ignore[attr-defined]


def one_line_summaries(app: typer.Typer) -> None:
    """Give every command of ``app`` (and of its sub-apps) a summary for the list of commands:
    its help's first paragraph with the line breaks of the source joined. In rich markup mode
    typer keeps them there, so a docstring wrapped at 100 columns showed as lines broken
    mid-sentence in ``taiwa --help``. The command's own ``--help`` page is not changed."""
    for info in app.registered_commands:
        doc = info.help or inspect.getdoc(info.callback) or ""
        if info.short_help is None and doc:
            info.short_help = " ".join(doc.split("\n\n", 1)[0].split())
    for group in app.registered_groups:
        if group.typer_instance is not None:
            one_line_summaries(group.typer_instance)


def only_the_command_asked(app: typer.Typer, args: Sequence[str]) -> typer.Typer:
    """``app`` holding only the command or group that ``args`` name (the first argument not
    an option: the root's options are flags). Typer turns every command's signature into
    click options when the app is called, evaluating their annotations: for ``taiwa run``
    about 40 ms before the run starts, nearly all of it for the other commands (issue 29:
    exec to first request). Without such a name (``taiwa``, ``taiwa --help``, a typo) the
    whole app, so that the help lists every command and a typo gets click's suggestions."""
    name = next((a for a in args if not a.startswith("-")), None)
    commands = [c for c in app.registered_commands if _command_name(c) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    pruned = copy.copy(app)
    pruned.registered_commands = commands
    pruned.registered_groups = groups
    return pruned


def _command_name(info: Any) -> str | None:
    if info.name:
        return str(info.name)
    callback = info.callback
    return typer.main.get_command_name(callback.__name__) if callback else None


def usage_line(exc: Any) -> str:
    """A click usage error (``click.UsageError``) as one line instead of typer's five-line box:
    what is wrong, the closest flag for a misspelt one, and where the help is
    (``no such option --limt; did you mean --limit? (taiwa run --help)``)."""
    if isinstance(exc, click_exceptions().NoSuchOption):
        closest = exc.possibilities[0] if exc.possibilities else None  # most similar first
        what = f"no such option {exc.option_name}"
        if closest:
            what += f"; did you mean {closest}?"
    else:
        what = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    return f"{what} ({ctx.command_path} --help)" if ctx is not None else what


def click_exceptions() -> Any:
    """The module of the click exceptions typer raises: typer may carry its own copy of click
    (``typer._click``), whose exceptions are not ``click``'s."""
    import sys

    return sys.modules[typer.BadParameter.__module__]
