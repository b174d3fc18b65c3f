"""Built-in dialogue-act taxonomies and loading custom ones from YAML.

``assistant7``: seed 000 §3.2 / App. A.2. ``chitchat11``: seed 002 §3.1, Fig. 1, Table 1.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from taiwa.core.errors import TaiwaError
from taiwa.core.io import InputError, parse_yaml, path_kind, read_yaml, shown_path
from taiwa.core.schema import Taxonomy

BUILTIN = ("assistant7", "chitchat11", "chitchat16", "opinion6")


def load_taxonomy(name_or_path: str | Path) -> Taxonomy:
    """A built-in taxonomy by name, or a custom one from a YAML file.

    The YAML has ``name``, optional ``description`` and ``acts``: a list of mappings with
    ``name``, ``ja``, ``en``, ``definition`` and an optional ``group``.
    """
    if str(name_or_path) in BUILTIN:
        return _builtin(str(name_or_path))
    expected = f"a built-in taxonomy ({', '.join(BUILTIN)}) or a YAML file"
    if not str(name_or_path).strip():
        raise TaiwaError(f"taxonomy: expected {expected} (got '')")
    path = Path(name_or_path)
    if path_kind(path) == "missing":
        raise InputError(shown_path(path), None, None, expected)
    return _validated(read_yaml(path), str(path))


@cache
def _builtin(name: str) -> Taxonomy:
    text = resources.files("taiwa").joinpath(f"data/taxonomies/{name}.yaml").read_text("utf-8")
    return _validated(parse_yaml(text, name), name)


def _validated(data: object, source: str) -> Taxonomy:
    if not isinstance(data, dict):
        got = "an empty file" if data is None else type(data).__name__
        raise InputError(source, None, None, "a taxonomy: a mapping with name and acts", got)
    try:
        return Taxonomy.model_validate(data)
    except ValidationError as exc:
        raise InputError.from_validation(source, None, exc) from None
