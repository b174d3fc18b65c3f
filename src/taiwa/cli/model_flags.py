"""The flags that say how a command calls its models, and its failure rule: one declaration for
``taiwa run`` and ``taiwa validate`` (issue 40 §6, issue 42), so that both take the same
``--base-url``, concurrency, timeout, retries, retry window and ``--max-failures``, check them
alike (:class:`~taiwa.harness.config.RunConfig`'s ranges, errors naming the flag) and give up
alike (the transport's retries and :data:`~taiwa.models.openai_errors.GIVE_UP_AFTER`)."""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from taiwa.models.spec import ModelOptions

BaseUrl = Annotated[str | None, typer.Option(help="Base URL for openai: models.")]
Concurrency = Annotated[int | None, typer.Option(help="Requests in flight per model (default 16).")]
Rpm = Annotated[float | None, typer.Option(help="Requests per minute limit.")]
Timeout = Annotated[float | None, typer.Option(help="Per-request timeout, seconds.")]
MaxRetries = Annotated[int | None, typer.Option(help="Retries on 429/5xx/timeouts (default 5).")]
RetryWindow = Annotated[
    float | None,
    typer.Option(help="Seconds to keep retrying a server that cannot be reached (120)."),
]
MaxRetryWait = Annotated[
    float | None,
    typer.Option(
        help="Longest wait for one Retry-After, seconds (600); a longer one is cut to this, "
        "with a note."
    ),
]
MaxFailures = Annotated[
    str | None,
    typer.Option(help="Exit 0 despite up to N (or P%) failed samples (default 0)."),
]


def model_settings(
    base_url: str | None,
    concurrency: int | None,
    rpm: float | None,
    timeout: float | None,
    max_retries: int | None,
    retry_window: float | None,
    max_retry_wait: float | None,
) -> dict[str, Any]:
    """The model flags' values by the names of their run settings (None: not given)."""
    return {
        "base_url": base_url,
        "concurrency": concurrency,
        "rpm": rpm,
        "timeout": timeout,
        "max_retries": max_retries,
        "retry_window": retry_window,
        "max_retry_wait": max_retry_wait,
    }


def model_options(method: str, flags: dict[str, Any]) -> ModelOptions:
    """The model options of ``flags`` (``base_url``, ``concurrency``, ... as ``taiwa run``
    names them; None: the default), checked as a run checks them: a bad value is one line
    naming its flag."""
    from taiwa.harness.config import resolve_config

    return resolve_config(None, {"method": method, **flags}).model_options


def allowed_failures(spec: str | None, total: int) -> float:
    """``--max-failures``: a count (``3``) or a share of the samples (``5%``)."""
    from taiwa.core.errors import TaiwaError

    if spec is None:
        return 0
    text = spec.strip()
    try:
        value = float(text[:-1]) / 100 * total if text.endswith("%") else float(text)
    except ValueError:
        raise TaiwaError(f"--max-failures expects N or P%, got {spec!r}") from None
    if not math.isfinite(value) or value < 0:
        raise TaiwaError(f"--max-failures must be a number >= 0 (or P%), got {spec[:40]!r}")
    return value


def exit_on_failures(
    console: Console, failed: int, total: int, spec: str | None, what: str = "sample"
) -> None:
    """Exit 1, with one line saying so, when ``failed`` of ``total`` exceed ``--max-failures``
    (:func:`allowed_failures`); the outputs are written before."""
    if failed > allowed_failures(spec, total):
        console.print(
            f"[red]error:[/red] {failed} failed {what}(s) exceed --max-failures {spec or 0}: exit 1"
        )
        sys.exit(1)
