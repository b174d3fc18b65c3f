"""``--resource SPEC`` for cohesion: ``default`` (ja-ginza vectors at the calibrated threshold),
``vectors:THRESHOLD``, or the path of an LLR pair table from ``taiwa build cooccurrence``."""

from __future__ import annotations

from pathlib import Path

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io import path_kind, shown, shown_path
from taiwa.resources.association import AssociationResource


def load_resource(spec: str) -> AssociationResource:
    """Build the association resource named by ``spec``."""
    from taiwa.resources.vectors import DEFAULT_THRESHOLD, GinzaVectors

    if spec == "default":
        return GinzaVectors(DEFAULT_THRESHOLD)
    if spec.startswith("vectors:"):
        try:
            return GinzaVectors(float(spec.removeprefix("vectors:")))
        except ValueError as exc:
            raise TaiwaError(
                f"bad resource {shown(spec)}: {exc}; expected vectors:THRESHOLD in (0, 1]"
            ) from None
    path = Path(spec)
    try:
        kind = path_kind(path)
    except InputError as exc:
        raise TaiwaError(f"bad resource {shown_path(spec)}: {exc.got}") from None
    if kind == "missing":
        raise TaiwaError(
            f"bad resource {shown_path(spec)}: "
            "expected default, vectors:THRESHOLD or an existing pair table"
        )
    from taiwa.resources.pairs_resource import PairTableResource

    return PairTableResource(path)
