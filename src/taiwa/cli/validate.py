"""``taiwa validate annotator|tagger``: how good is the helper that turns replies into dialogue
acts? Scores a SPEC against gold labels with trivial baselines beside every figure (issue 16).
A chat-model SPEC is called as ``taiwa run`` calls it (:mod:`taiwa.cli.model_flags`: the same
flags, ``--base-url`` included, the endpoint checked first, the same retries, give-up and
``--max-failures``; issues 40, 42).

The method that owns the role (the one whose ``validators`` names it) reads the data and does
the scoring; this module knows no method by name."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from taiwa.cli import model_flags as mf
from taiwa.display.console import make_console
from taiwa.metrics.flags import small_n_lines

if TYPE_CHECKING:
    from taiwa.harness.method import Validator

validate_app = typer.Typer(
    help="Score an annotator or tagger against gold labels, beside trivial baselines.",
    no_args_is_help=True,
)
console = make_console()
err = make_console(stderr=True)

DataFiles = Annotated[
    list[Path] | None,
    typer.Option(
        "--data",
        help="Gold file(s) (repeatable; default: the bundled held-out files of the method).",
    ),
]
MethodName = Annotated[
    str | None, typer.Option("--method", help="The method whose role this is, if several have it.")
]
Seed = Annotated[
    int, typer.Option(min=0, max=2**63 - 1, help="Seed of the bootstrap CIs (and of a model SPEC).")
]
JsonOut = Annotated[Path | None, typer.Option("--json", help="Write the full report here.")]


def _validator(role: str, method: str | None) -> tuple[str, Validator]:
    from taiwa.benchmarks import get_method, method_names
    from taiwa.core.errors import TaiwaError

    names = [method] if method is not None else method_names()  # '' names no method
    found = [
        (n, v)
        for n in names
        if (v := getattr(get_method(n), "validators", {}).get(role)) is not None
    ]
    if not found:
        raise TaiwaError(f"no method validates a {role!r}" + (f" in {method}" if method else ""))
    if len(found) > 1:
        raise TaiwaError(
            f"several methods validate a {role!r} ({', '.join(n for n, _ in found)}): "
            "pick one with --method"
        )
    return found[0]


def _run(
    role: str,
    spec: str,
    data: list[Path] | None,
    method: str | None,
    seed: int,
    out: Path | None,
    flags: dict[str, Any],
    max_failures: str | None,
) -> None:
    """Validate ``spec`` in ``role``: the model flags checked and the endpoint of a chat model
    checked before anything else, the tables printed, the report written, then exit 1 when
    the helper failed on more items than ``--max-failures`` allows (as ``taiwa run``)."""
    from taiwa.core.io import write_json

    mf.allowed_failures(max_failures, 0)  # a malformed value: one line before anything runs
    if out is not None:
        from taiwa.core.io import check_writable

        check_writable(out, "--json")
    name, validator = _validator(role, method)
    options = mf.model_options(name, flags)
    files = list(data) if data else validator.default_data()
    report: dict[str, Any] = {"method": name, "role": role, "spec": spec}
    report.update(validator.validate(spec, files, seed, options))
    for table in validator.tables(report):
        console.print(table)
    for line in small_n_lines(report, "validation"):
        console.print(line, highlight=False, markup=False)
    if out is not None:
        write_json(out, report)
        err.print(f"wrote {out}")
    failures = report.get("failures", {})
    mf.exit_on_failures(
        console, failures.get("failed", 0), failures.get("items", 0), max_failures, "item"
    )


@validate_app.command("annotator")
def annotator(
    spec: Annotated[
        str, typer.Option("--annotator", help="The annotator SPEC (offline, replay:FILE, a model).")
    ] = "offline",
    data: DataFiles = None,
    method: MethodName = None,
    seed: Seed = 0,
    json_out: JsonOut = None,
    base_url: mf.BaseUrl = None,
    concurrency: mf.Concurrency = None,
    rpm: mf.Rpm = None,
    timeout: mf.Timeout = None,
    max_retries: mf.MaxRetries = None,
    retry_window: mf.RetryWindow = None,
    max_retry_wait: mf.MaxRetryWait = None,
    max_failures: mf.MaxFailures = None,
) -> None:
    """A DA-sequence annotator against gold sequences: per-act P/R/F1 and confusion, WED
    against gold, exact-sequence rate and, on gold-vs-flawed items, how often the gold reply
    ranks first; trivial baselines beside every figure. A model is called as taiwa run calls
    it (the same flags, the endpoint checked first, the same retries and give-up)."""
    flags = mf.model_settings(
        base_url, concurrency, rpm, timeout, max_retries, retry_window, max_retry_wait
    )
    _run("annotator", spec, data, method, seed, json_out, flags, max_failures)


@validate_app.command("tagger")
def tagger(
    spec: Annotated[
        str, typer.Option("--tagger", help="The tagger SPEC (default, PATH or a chat-model SPEC).")
    ] = "default",
    data: DataFiles = None,
    method: MethodName = None,
    seed: Seed = 0,
    json_out: JsonOut = None,
    base_url: mf.BaseUrl = None,
    concurrency: mf.Concurrency = None,
    rpm: mf.Rpm = None,
    timeout: mf.Timeout = None,
    max_retries: mf.MaxRetries = None,
    retry_window: mf.RetryWindow = None,
    max_retry_wait: mf.MaxRetryWait = None,
    max_failures: mf.MaxFailures = None,
) -> None:
    """A single-label DA tagger against gold labels: per-act P/R/F1, confusion and accuracy,
    beside the majority-act baseline. A model is called as taiwa run calls it (the same
    flags, the endpoint checked first, the same retries and give-up)."""
    flags = mf.model_settings(
        base_url, concurrency, rpm, timeout, max_retries, retry_window, max_retry_wait
    )
    _run("tagger", spec, data, method, seed, json_out, flags, max_failures)
