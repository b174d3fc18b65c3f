"""YAML (``run.yaml``): one document, loaded safely and strictly; every problem an
:class:`~taiwa.core.errors.InputError` naming the source and the line."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError
from taiwa.core.io.text import (
    MAX_DEPTH,
    MAX_NUMBER,
    NUMBER_LIMIT,
    _check_text,
    decoded_lines,
    require_file,
)


def read_yaml(path: str | Path) -> Any:
    """The YAML document in ``path`` (``None`` when it holds none), read as strict UTF-8 and
    parsed by :func:`parse_yaml`."""
    p = Path(path)
    require_file(p, "an existing YAML file")
    return parse_yaml("".join(decoded_lines(p)), str(p))


def parse_yaml(text: str, source: str) -> Any:
    """One YAML document, loaded safely (no Python tags) and strictly: no aliases (``&a`` /
    ``*a``, so no alias bombs), no keys other than strings, no key twice in one mapping (the
    later value would silently win), nesting at most :data:`MAX_DEPTH` deep, numbers finite and
    below :data:`MAX_NUMBER` in magnitude (as every JSON reader: :mod:`.json_doc`), strings at
    most :data:`~taiwa.core.schema.MAX_TEXT_CHARS` long without lone surrogates. Anything else
    is an :class:`InputError` naming ``source`` and the line."""
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())  # a SafeLoader: no Python objects
    except _YamlRefusal as exc:
        raise InputError(source, exc.line, exc.field, exc.expected, exc.got) from None
    except RecursionError:
        raise InputError(source, None, None, f"YAML nested at most {MAX_DEPTH} deep") from None
    except yaml.YAMLError as exc:
        raise InputError(
            source, _yaml_line(exc, text), None, "valid YAML", _yaml_problem(exc)
        ) from None


class _YamlRefusal(Exception):
    """Something :func:`parse_yaml` does not accept, located."""

    def __init__(self, mark: Any, field: str | None, expected: str, got: str | None) -> None:
        super().__init__(expected)
        self.line = mark.line + 1 if mark is not None else None
        self.field, self.expected, self.got = field, expected, got


def _yaml_line(exc: Any, text: str) -> int | None:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None:
        return int(mark.line) + 1
    position = getattr(exc, "position", None)  # ReaderError: a character YAML does not allow
    return text.count("\n", 0, position) + 1 if isinstance(position, int) else None


def _yaml_problem(exc: Any) -> str:
    problem = getattr(exc, "problem", None) or str(exc).strip().splitlines()[0]
    return str(problem)[:200]


def _short_key(key: str, limit: int = 60) -> str:
    return key if len(key) <= limit else key[: limit - 1] + "…"


@functools.cache
def _strict_loader() -> type:
    import yaml

    class StrictLoader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            event: Any = self.peek_event()  # type: ignore[no-untyped-call]
            if isinstance(event, yaml.AliasEvent):
                raise _YamlRefusal(
                    event.start_mark, None, "no YAML aliases (*name)", f"*{event.anchor}"
                )
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _YamlRefusal(
                    event.start_mark, None, f"nesting at most {MAX_DEPTH} deep", "deeper"
                )
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: dict[str, int] = {}
            for key_node, _ in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    first = seen.setdefault(key_node.value, key_node.start_mark.line + 1)
                    if first != key_node.start_mark.line + 1:
                        raise _YamlRefusal(
                            key_node.start_mark,
                            _short_key(key_node.value),
                            "each key once",
                            f"a second '{_short_key(key_node.value)}' (the first is on line "
                            f"{first})",
                        )
                if key_node.tag != "tag:yaml.org,2002:str":
                    got = (
                        f"{key_node.value!r}"
                        if isinstance(key_node, yaml.ScalarNode)
                        else "a collection"
                    )
                    raise _YamlRefusal(key_node.start_mark, None, "string keys", got[:60])
            return super().construct_mapping(node, deep=deep)

        def construct_bounded_int(self, node: Any) -> Any:
            if len(node.value) > 24:  # no int() of a 100,000-digit literal
                raise _YamlRefusal(node.start_mark, None, NUMBER_LIMIT, _short_key(node.value))
            value = super().construct_yaml_int(node)
            if abs(value) >= MAX_NUMBER:
                raise _YamlRefusal(node.start_mark, None, NUMBER_LIMIT, _short_key(node.value))
            return value

        def construct_bounded_float(self, node: Any) -> Any:
            value = super().construct_yaml_float(node)
            if not math.isfinite(value) or abs(value) >= MAX_NUMBER:
                raise _YamlRefusal(node.start_mark, None, NUMBER_LIMIT, _short_key(node.value))
            return value

        def construct_scalar(self, node: Any) -> Any:
            value = super().construct_scalar(node)
            if isinstance(value, str):
                try:
                    _check_text("", None, "", value, True)
                except InputError as exc:
                    raise _YamlRefusal(node.start_mark, None, exc.expected, exc.got) from None
            return value

    StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_bounded_int)
    StrictLoader.add_constructor("tag:yaml.org,2002:float", StrictLoader.construct_bounded_float)
    return StrictLoader
