"""What a run cost (issue 27, "Cost"): prices per million tokens (``--price MODEL=IN,OUT``,
``--prices FILE``) matched to the run's models and turned into US dollars per role.

A price names a model by its SPEC as typed (``openai:gpt-4o-mini``) or by the model's name
(the SPEC without its backend prefix, ``gpt-4o-mini``, or the name the backend reports);
the SPEC wins when both match. Tokens served from the cache cost nothing; a role with replies
whose usage is unknown gets a cost that is a lower bound (``cost_lower_bound``). The run's
total (``totals`` in summary.json, :func:`run_totals`) adds the roles up, with the requests
answered from the cache and those the backend retried or that failed counted apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from taiwa.core.errors import InputError, TaiwaError
from taiwa.core.io.text import json_type

Prices = dict[str, tuple[float, float]]
"""Model → (USD per million input tokens, USD per million output tokens)."""


MAX_PRICE = 1_000_000.0
"""The largest price taken (USD per million tokens): a price beyond it is a typo."""

PRICE = f"a number from 0 to {MAX_PRICE:,.0f} (USD per million tokens)"


def _amount(text: Any, where: str) -> float:
    if isinstance(text, bool):  # float(True) is 1.0: a YAML `yes` is no price
        raise TaiwaError(f"{where}: {text!r} is not a number (USD per million tokens)")
    try:
        value = float(text)
    except (TypeError, ValueError, OverflowError):
        raise TaiwaError(
            f"{where}: {str(text)[:40]!r} is not a number (USD per million tokens)"
        ) from None
    if not math.isfinite(value) or not 0 <= value <= MAX_PRICE:
        raise TaiwaError(f"{where}: {str(text)[:40]!r}: expected {PRICE}")
    return value


def parse_price(text: str) -> tuple[str, tuple[float, float]]:
    """``MODEL=IN,OUT`` (USD per million tokens in and out) → (MODEL, (IN, OUT))."""
    model, eq, amounts = text.rpartition("=")
    parts = amounts.split(",")
    if not eq or not model.strip() or len(parts) != 2:
        raise TaiwaError(
            f"--price {text[:200]!r}: expected MODEL=IN,OUT (USD per million tokens in and "
            "out), e.g. --price gpt-4o-mini=0.15,0.60"
        )
    where = f"--price {text[:200]!r}"
    return model.strip(), (_amount(parts[0], where), _amount(parts[1], where))


def read_prices(path: Path) -> Prices:
    """A prices file: a JSON or YAML mapping ``MODEL: {in: IN, out: OUT}`` or ``MODEL: [IN,
    OUT]`` (USD per million tokens), read by taiwa's bounded readers
    (:func:`taiwa.core.io.read_json_object`, :func:`taiwa.core.io.read_yaml`); errors name the
    file, the line and the model."""
    from taiwa.core.io import decoded_lines, read_json_object, read_yaml, shown

    if path.suffix.lower() == ".json":
        loaded: Any = read_json_object(path, "a prices file (JSON)")[0]
    else:
        loaded = read_yaml(path)
    shape = "a mapping MODEL: {in: IN, out: OUT} or MODEL: [IN, OUT]"
    if not isinstance(loaded, dict) or not loaded:
        got = "an empty mapping" if isinstance(loaded, dict) else json_type(loaded)
        raise InputError(str(path), None, None, shape, got)
    text = "".join(decoded_lines(path))
    prices: Prices = {}
    for model, value in loaded.items():
        line = _line_of(text, str(model))
        if isinstance(value, Mapping) and set(value) == {"in", "out"}:
            pair = (value["in"], value["out"])
        elif isinstance(value, list) and len(value) == 2:
            pair = (value[0], value[1])
        else:
            got = shown(value) if not isinstance(value, dict | list) else json_type(value)
            raise InputError(str(path), line, str(model), "{in: IN, out: OUT} or [IN, OUT]", got)
        amounts = []
        for side, amount in zip(("in", "out"), pair, strict=True):
            if isinstance(amount, bool) or not isinstance(amount, int | float):
                raise InputError(str(path), line, f"{model}.{side}", PRICE, shown(amount))
            if not 0 <= amount <= MAX_PRICE:
                raise InputError(str(path), line, f"{model}.{side}", PRICE, shown(amount))
            amounts.append(float(amount))
        prices[str(model)] = (amounts[0], amounts[1])
    return prices


def _line_of(text: str, key: str) -> int | None:
    """The line where ``key`` first appears in ``text`` (``None``: not found as written)."""
    at = text.find(key)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def price_for(spec: str, model_id: str, prices: Mapping[str, tuple[float, float]]) -> Any:
    """The price of a model: by its SPEC, else by its name (SPEC without the backend prefix,
    or the backend's model id); None when no price names it."""
    for name in (spec, spec.split(":", 1)[-1], model_id):
        if name in prices:
            return prices[name]
    return None


def add_cost(entry: dict[str, Any], price: tuple[float, float] | None) -> None:
    """Add ``price_in``, ``price_out`` (USD per million tokens), ``cost_usd`` (None without a
    price or tokens) and ``cost_lower_bound`` (replies of unknown usage were left out) to a
    ``calls`` entry; tokens from the cache are free."""
    entry["price_in"] = price[0] if price else None
    entry["price_out"] = price[1] if price else None
    tokens_in, tokens_out = entry.get("tokens_in"), entry.get("tokens_out")
    if price is None or tokens_in is None or tokens_out is None:
        entry["cost_usd"] = None
        entry["cost_lower_bound"] = False
        return
    entry["cost_usd"] = round((tokens_in * price[0] + tokens_out * price[1]) / 1e6, 6)
    entry["cost_lower_bound"] = entry.get("usage_unknown", 0) > 0


def unmatched(prices: Mapping[str, Any], names: list[tuple[str, str]]) -> list[str]:
    """Prices that name none of the run's models (``names``: SPEC, model id pairs)."""
    known = {n for spec, mid in names for n in (spec, spec.split(":", 1)[-1], mid)}
    return [p for p in prices if p not in known]


TOTAL_COUNTS = ("requests", "cache_hits", "calls", "retries", "failures", "usage_unknown")
TOTAL_TOKENS = ("tokens_in", "tokens_out", "cached_tokens_in", "cached_tokens_out")


def run_totals(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's total over every role's ``calls`` entry (issue 42): requests, answered from the
    cache (``cache_hits``) and sent (``calls``); ``retries``: HTTP requests the backends
    repeated after a 5xx, 429 or timeout and ``failures``: requests that got no reply (a paid
    API may bill either; their tokens are in no count); tokens sent and cached (None when no
    model counts them); ``cost_usd`` of the priced roles (None without a price),
    ``cost_lower_bound`` when a priced role had replies of unknown usage or a role that
    counts tokens has no price, and ``cached_cost_usd``: what the replies served from the
    cache would have cost at the same prices (not spent)."""
    totals: dict[str, Any] = {k: sum(int(c.get(k) or 0) for c in calls) for k in TOTAL_COUNTS}
    totals["usage_unknown"] += sum(int(c.get("cached_usage_unknown") or 0) for c in calls)
    counting = [c for c in calls if c.get("tokens_in") is not None]
    for key in TOTAL_TOKENS:
        totals[key] = sum(int(c.get(key) or 0) for c in counting) if counting else None
    priced = [c for c in counting if c.get("cost_usd") is not None]
    totals["cost_usd"] = round(sum(c["cost_usd"] for c in priced), 6) if priced else None
    totals["cost_lower_bound"] = bool(priced) and (
        any(c.get("cost_lower_bound") for c in priced) or len(priced) < len(counting)
    )
    totals["cached_cost_usd"] = (
        round(
            sum(
                ((c.get("cached_tokens_in") or 0) * c["price_in"]
                 + (c.get("cached_tokens_out") or 0) * c["price_out"]) / 1e6
                for c in priced
            ),
            6,
        )
        if priced
        else None
    )  # fmt: skip
    return totals
