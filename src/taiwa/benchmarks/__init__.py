"""The evaluation methods, one package each. Adding a method is one line here plus its package
(see ``docs/architecture.md``). Nothing is imported until a method is asked for."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, cast

from taiwa.core.errors import TaiwaError
from taiwa.core.errors import _short as shown

if TYPE_CHECKING:
    from taiwa.harness.method import Method

METHODS: dict[str, str] = {
    "prompts": "taiwa.benchmarks.prompts",
    "da-response": "taiwa.benchmarks.da_response",
    "chitchat": "taiwa.benchmarks.chitchat",
    "da-distribution": "taiwa.benchmarks.da_distribution",
    "cohesion": "taiwa.benchmarks.cohesion",
    "intent": "taiwa.benchmarks.intent",
}
"""Method name → the package whose ``METHOD`` implements :class:`taiwa.harness.method.Method`."""


def method_names() -> list[str]:
    return list(METHODS)


def get_method(name: str) -> Method[Any]:
    """The method called ``name`` (its package's ``METHOD``); an unknown name lists the known."""
    if name not in METHODS:
        raise TaiwaError(f"unknown method {shown(name)}: expected one of {', '.join(METHODS)}")
    return cast("Method[Any]", importlib.import_module(METHODS[name]).METHOD)


def all_methods() -> list[Method[Any]]:
    """Every registered method, in the registry's order (handed to the report functions)."""
    return [get_method(name) for name in METHODS]


__all__ = ["METHODS", "all_methods", "get_method", "method_names"]
