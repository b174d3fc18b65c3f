"""Built-in dialogue-act taxonomies and loading custom ones from YAML.

``assistant7``: seed 000 §3.2 / App. A.2. ``chitchat11``: seed 002 §3.1, Fig. 1, Table 1.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import yaml
from pydantic import ValidationError

from taiwa.io import InputError
from taiwa.schema import Taxonomy

BUILTIN = ("assistant7", "chitchat11")


def load_taxonomy(name_or_path: str | Path) -> Taxonomy:
    """A built-in taxonomy by name, or a custom one from a YAML file.

    The YAML has ``name``, optional ``description`` and ``acts``: a list of mappings with
    ``name``, ``ja``, ``en``, ``definition`` and an optional ``group``.
    """
    if str(name_or_path) in BUILTIN:
        return _builtin(str(name_or_path))
    path = Path(name_or_path)
    if not path.exists():
        raise InputError(
            str(path), None, None, f"a built-in taxonomy ({', '.join(BUILTIN)}) or a YAML file"
        )
    return _from_yaml(path.read_text(encoding="utf-8"), str(path))


@cache
def _builtin(name: str) -> Taxonomy:
    text = resources.files("taiwa").joinpath(f"data/taxonomies/{name}.yaml").read_text("utf-8")
    return _from_yaml(text, name)


def _from_yaml(text: str, source: str) -> Taxonomy:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise InputError(source, line, None, "valid YAML", str(exc).splitlines()[0]) from exc
    try:
        return Taxonomy.model_validate(data)
    except ValidationError as exc:
        raise InputError.from_validation(source, None, exc) from exc
