"""How ``taiwa --help`` shows its options: a boolean flag (``--overwrite``, ``--quiet``) is
shown as a flag, without the ``<bool>`` value type that typer's rich help puts beside every
option (a flag takes no value: ``--overwrite true`` is an error)."""

from __future__ import annotations

from typing import Any

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
