"""Every input the CLI reads, in one list (issue 40, point 2): each option or argument that
takes a value or a path, of every command, and each file a command opens by itself (a run
directory's ``summary.json``, ``config.json`` and stage files). :data:`INPUTS` drives the
seeded, bounded fuzz test (``test_inputs.py``); ``test_inputs.py`` also fails when a command
gains an option or argument that is not listed here, or opens a file none of its entries names.

An entry's ``kind`` says what is read: a ``value`` (fuzzed with bad values of its ``family``),
an input ``file`` or ``dir``, an ``out`` file or directory, or a file the command ``opens``
(matched by the glob ``name``). ``argv(work, value)`` is a small working command line with the
value in its place; every bad value must be refused with exit 2 and one error line, before
any model call."""

# ruff: noqa: E501 (the table keeps one input per line)
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fuzz_options import (
    a_run_dir,
    build_audio,
    build_calibrate,
    build_chitchat,
    build_cooc,
    build_da,
    build_intent,
    build_intent_import,
    da_train,
    leaderboard,
    report,
    run_cc,
    run_da,
    run_dd3,
    run_prompts,
    score_dae,
    score_dami,
    score_rouge,
    score_wed,
    score_wlcs,
    show,
    validate_annotator,
    validate_tagger,
)
from fuzz_targets import prompts3

Argv = Callable[[Path, str], list[str]]


@dataclass(frozen=True)
class Input:
    """One input of one command: ``name`` is the option (``--prices``), the argument's name
    (``run_dirs``) or, for a file the command opens itself, a glob of its name."""

    command: str
    name: str
    kind: str
    family: str
    argv: Argv | None = None

    @property
    def id(self) -> str:
        return f"{self.command} {self.name}"


def opt(base: Callable[[Path], list[str]], option: str) -> Argv:
    """``base`` with ``option VALUE`` appended (the last occurrence of an option wins)."""
    return lambda w, v: [*base(w), option, v]


def two_system_run(w: Path) -> Path:
    """A finished prompts run of two systems on three prompts, made once per directory."""
    out = w / "two-system-run"
    if not (out / "summary.json").exists():
        from taiwa.benchmarks import get_method
        from taiwa.harness.config import RunConfig
        from taiwa.harness.runner import run

        models = ["builtin:parrot", "builtin:eliza"]
        data = prompts3(w)
        cfg = RunConfig(method="prompts", models=models, data=data, out=out, no_cache=True)
        run(cfg, get_method(cfg.method), show_progress=False)
    return out


def _compare(w: Path) -> list[str]:
    return ["compare", str(two_system_run(w))]


METHOD_FILES = {
    ("chitchat", "human_ranks"): "records",
    ("da-distribution", "tagger_validation"): "json",
    ("da-distribution", "taxonomy"): "taxonomy",
    ("cohesion", "resource"): "resource",
}
"""Method options (``-o KEY=VALUE``) naming a file the run reads, and its family."""


def _method_base(name: str) -> Callable[[Path], list[str]]:
    """A small run of ``name`` (the one the option cases of :mod:`fuzz_options` use)."""
    from fuzz_options import _method_base as base

    return {"da-response": run_da, "chitchat": run_cc, "da-distribution": run_dd3}.get(
        name, base(name)
    )


def method_inputs() -> list[Input]:
    """``-o KEY=VALUE`` of every option of every registered method."""
    from taiwa.benchmarks import get_method, method_names

    out = []
    for name in method_names():
        base = _method_base(name)
        for key in get_method(name).options.model_fields:
            family = METHOD_FILES.get((name, key))
            out.append(
                Input(
                    f"run {name}",
                    f"-o {key}",
                    "file" if family else "value",
                    family or "method-option",
                    lambda w, v, b=base, k=key: [*b(w), "-o", f"{k}={v}"],
                )
            )
    return out


KINDS = ("value", "file", "dir", "out", "opens")

# fmt: off
INPUTS: list[Input] = [
    # ---------------------------------------------------------------- taiwa run
    Input("run", "method", "value", "choice", lambda w, v: ["run", v, "-m", "builtin:parrot"]),
    Input("run", "--model", "value", "spec", opt(run_prompts, "--model")),
    Input("run", "--models", "value", "specs", opt(run_prompts, "--models")),
    Input("run", "--role", "value", "role", opt(run_da, "--role")),
    Input("run", "--annotator", "value", "spec", opt(run_da, "--annotator")),
    Input("run", "--judge", "value", "spec", opt(run_cc, "--judge")),
    Input("run", "--tagger", "value", "spec", opt(run_dd3, "--tagger")),
    Input("run", "--asr", "value", "spec", opt(run_da, "--asr")),
    Input("run", "--input-mode", "value", "choice", opt(run_da, "--input-mode")),
    Input("run", "--option", "value", "key=value", opt(run_da, "--option")),
    Input("run", "--data", "file", "records", opt(run_prompts, "--data")),
    Input("run", "--out", "out", "dir", opt(run_prompts, "--out")),
    Input("run", "--config", "file", "yaml", opt(run_prompts, "--config")),
    Input("run", "--base-url", "value", "url", lambda w, v: [*run_prompts(w), "-m", "openai:x", "--base-url", v]),
    Input("run", "--limit", "value", "count", opt(run_prompts, "--limit")),
    Input("run", "--concurrency", "value", "count", opt(run_prompts, "--concurrency")),
    Input("run", "--rpm", "value", "positive", opt(run_prompts, "--rpm")),
    Input("run", "--timeout", "value", "positive", opt(run_prompts, "--timeout")),
    Input("run", "--max-retries", "value", "count0", opt(run_prompts, "--max-retries")),
    Input("run", "--retry-window", "value", "number0", opt(run_prompts, "--retry-window")),
    Input("run", "--max-retry-wait", "value", "positive", opt(run_prompts, "--max-retry-wait")),
    Input("run", "--temperature", "value", "number0", opt(run_prompts, "--temperature")),
    Input("run", "--max-tokens", "value", "count", opt(run_prompts, "--max-tokens")),
    Input("run", "--seed", "value", "count0", opt(run_prompts, "--seed")),
    Input("run", "--baseline", "value", "system", opt(run_prompts, "--baseline")),
    Input("run", "--cache-dir", "out", "dir", opt(run_prompts, "--cache-dir")),
    Input("run", "--price", "value", "price", opt(run_prompts, "--price")),
    Input("run", "--prices", "file", "prices", opt(run_prompts, "--prices")),
    Input("run", "--max-failures", "value", "share", opt(run_prompts, "--max-failures")),
    # ---------------------------------------------------------------- report, leaderboard, compare
    Input("report", "run_dirs", "dir", "run-dir", lambda w, v: ["report", v, "--out", str(w / "r.html")]),
    Input("report", "--out", "out", "file", opt(report, "--out")),
    Input("leaderboard", "runs_dir", "dir", "run-dir", lambda w, v: ["leaderboard", v]),
    Input("leaderboard", "--out", "out", "file", opt(leaderboard, "--out")),
    Input("leaderboard", "--baseline", "value", "system", opt(leaderboard, "--baseline")),
    Input("compare", "run_dirs", "dir", "run-dir", lambda w, v: ["compare", v]),
    Input("compare", "--baseline", "value", "system", opt(_compare, "--baseline")),
    Input("compare", "--json", "out", "file", opt(_compare, "--json")),
    Input("show", "run_dir", "dir", "run-dir", lambda w, v: ["show", v]),
    Input("show", "item", "value", "system", lambda w, v: ["show", str(a_run_dir(w)), v]),
    Input("show", "--filter", "value", "key=value", opt(show, "--filter")),
    Input("show", "--system", "value", "system", opt(show, "--system")),
    Input("show", "--metric", "value", "choice", opt(show, "--metric")),
    Input("show", "--sort", "value", "choice", opt(show, "--sort")),
    Input("show", "--limit", "value", "count", opt(show, "--limit")),
    *(
        Input(command, name, "opens", schema)
        for command in ("report", "leaderboard", "compare", "show")
        for name, schema in (
            ("summary.json", "summary"), ("config.json", "config"), ("*.jsonl", "stage"),
        )
    ),
    Input("report", "*.svg", "opens", "svg"),
    # ---------------------------------------------------------------- demo
    Input("demo", "--out", "out", "dir", lambda w, v: ["demo", "--out", v]),
    # ---------------------------------------------------------------- taiwa score
    *(
        Input(f"score {m}", option, "file", "records", opt(base, option))
        for m, base, options in (
            ("wed", score_wed, ("--pred", "--gold")),
            ("wlcs", score_wlcs, ("--pred", "--gold")),
            ("rouge", score_rouge, ("--pred", "--ref")),
        )
        for option in options
    ),
    *(
        Input(f"score {m}", "file", "file", "records", lambda w, v, m=m: ["score", m, v])
        for m in ("dae", "dami")
    ),
    *(
        Input(f"score {m}", option, kind, family, opt(base, option))
        for m, base in (
            ("wed", score_wed), ("wlcs", score_wlcs), ("dae", score_dae), ("dami", score_dami),
            ("rouge", score_rouge),
        )
        for option, kind, family in (
            ("--taxonomy", "value", "taxonomy"), ("--json", "out", "file"), ("--seed", "value", "count0"),
        )
        if not (m == "rouge" and option == "--taxonomy")
    ),
    # ---------------------------------------------------------------- taiwa build
    Input("build da-response", "--scenarios", "file", "lines", opt(build_da, "--scenarios")),
    Input("build da-response", "--model", "value", "spec", opt(build_da, "--model")),
    Input("build da-response", "--out", "out", "file", opt(build_da, "--out")),
    Input("build da-response", "--attempts", "value", "count", opt(build_da, "--attempts")),
    Input("build da-response", "--max-tokens", "value", "count", opt(build_da, "--max-tokens")),
    Input("build da-response", "--seed", "value", "count0", opt(build_da, "--seed")),
    Input("build da-response", "--base-url", "value", "url", lambda w, v: [*build_da(w), "--model", "openai:x", "--base-url", v]),
    Input("build da-response", "--concurrency", "value", "count", opt(build_da, "--concurrency")),
    Input("build da-response", "--cache-dir", "out", "dir", opt(build_da, "--cache-dir")),
    Input("build chitchat", "--corpus", "file", "records", opt(build_chitchat, "--corpus")),
    Input("build chitchat", "--out", "out", "file", opt(build_chitchat, "--out")),
    *(
        Input("build chitchat", option, "value", "count0", opt(build_chitchat, option))
        for option in ("--seed", "--per-dialogue", "--continuations", "--min-context",
                       "--min-turns", "--max-turns")
    ),
    Input("build calibrate-cohesion", "--dialogues", "file", "records", opt(build_calibrate, "--dialogues")),
    Input("build calibrate-cohesion", "--seed", "value", "count0", opt(build_calibrate, "--seed")),
    Input("build intent", "--corpus", "file", "records", opt(build_intent, "--corpus")),
    Input("build intent", "--model", "value", "spec", opt(build_intent, "--model")),
    Input("build intent", "--out", "out", "dir", opt(build_intent, "--out")),
    *(
        Input("build intent", option, "value", "count", opt(build_intent, option))
        for option in ("--contexts", "--per-dialogue", "--annotators", "--limit",
                       "--max-tokens", "--attempts", "--concurrency")
    ),
    Input("build intent", "--filter", "value", "choice", opt(build_intent, "--filter")),
    Input("build intent", "--seed", "value", "count0", opt(build_intent, "--seed")),
    Input("build intent", "--base-url", "value", "url", lambda w, v: [*build_intent(w), "-m", "openai:x", "--base-url", v]),
    Input("build intent", "--cache-dir", "out", "dir", opt(build_intent, "--cache-dir")),
    Input("build intent-import", "directory", "dir", "dir", lambda w, v: ["build", "intent-import", v, "--out", str(w / "i.jsonl")]),
    Input("build intent-import", "--out", "out", "file", opt(build_intent_import, "--out")),
    Input("build intent-import", "--seed", "value", "count0", opt(build_intent_import, "--seed")),
    Input("build cooccurrence", "inputs", "file", "text", lambda w, v: ["build", "cooccurrence", v, "--out", str(w / "p.parquet")]),
    Input("build cooccurrence", "--out", "out", "file", opt(build_cooc, "--out")),
    Input("build cooccurrence", "--kind", "value", "choice", opt(build_cooc, "--kind")),
    Input("build cooccurrence", "--engine", "value", "choice", opt(build_cooc, "--engine")),
    *(
        Input("build cooccurrence", option, "value", "count", opt(build_cooc, option))
        for option in ("--sentences", "--window", "--min-pair-count", "--workers")
    ),
    Input("build cooccurrence", "--min-word-count", "value", "count0", opt(build_cooc, "--min-word-count")),
    Input("build cooccurrence", "--exclude-top-k", "value", "count0", opt(build_cooc, "--exclude-top-k")),
    Input("build cooccurrence", "--llr-threshold", "value", "finite", opt(build_cooc, "--llr-threshold")),
    Input("build cooccurrence", "--max-word-ratio", "value", "share", opt(build_cooc, "--max-word-ratio")),
    Input("build cooccurrence", "--infeasible", "value", "choice", opt(build_cooc, "--infeasible")),
    Input("build cooccurrence", "--memory-limit", "value", "memory", opt(build_cooc, "--memory-limit")),
    Input("build cooccurrence", "--master", "value", "master", lambda w, v: [*build_cooc(w), "--engine", "spark", "--master", v]),
    Input("build audio", "--data", "file", "records", opt(build_audio, "--data")),
    Input("build audio", "--out", "out", "dir", opt(build_audio, "--out")),
    Input("build audio", "--field", "value", "choice", opt(build_audio, "--field")),
    Input("build audio", "--dataset-out", "out", "file", opt(build_audio, "--dataset-out")),
    Input("build audio", "--limit", "value", "count", opt(build_audio, "--limit")),
    Input("build audio", "--speed", "value", "positive", opt(build_audio, "--speed")),
    # ---------------------------------------------------------------- taiwa da, validate
    Input("da train", "--out", "out", "dir", opt(da_train, "--out")),
    Input("da train", "--data", "file", "records", opt(da_train, "--data")),
    Input("da train", "--base", "dir", "dir", opt(da_train, "--base")),
    *(
        Input("da train", option, "value", "count", opt(da_train, option))
        for option in ("--epochs", "--batch-size", "--max-length")
    ),
    Input("da train", "--lr", "value", "positive", opt(da_train, "--lr")),
    Input("da train", "--seed", "value", "count0", opt(da_train, "--seed")),
    *(
        Input(f"validate {what}", option, kind, family, opt(base, option))
        for what, base, spec in (
            ("annotator", validate_annotator, "--annotator"), ("tagger", validate_tagger, "--tagger"),
        )
        for option, kind, family in (
            (spec, "value", "spec"), ("--data", "file", "records"), ("--method", "value", "choice"),
            ("--seed", "value", "count0"), ("--json", "out", "file"),
        )
    ),
    *(  # the model flags validate shares with run (issue 40 §6)
        Input(f"validate {what}", option, "value", family, opt(base, option))
        for what, base in (("annotator", validate_annotator), ("tagger", validate_tagger))
        for option, family in (
            ("--concurrency", "count"), ("--rpm", "positive"), ("--timeout", "positive"),
            ("--max-retries", "count0"), ("--retry-window", "number0"),
            ("--max-retry-wait", "positive"), ("--max-failures", "share"),
        )
    ),
    *(
        Input(f"validate {what}", "--base-url", "value", "url", lambda w, v, b=base, s=spec: [*b(w), s, "openai:x", "--base-url", v])
        for what, base, spec in (
            ("annotator", validate_annotator, "--annotator"), ("tagger", validate_tagger, "--tagger"),
        )
    ),
]
# fmt: on
INPUTS += method_inputs()
"""Every input of the CLI (see the module's docstring)."""

FLAGS = {"--help", "--no-cache", "--overwrite", "--quiet", "--lift", "--reference", "--fresh",
         "--keep-negative", "--char-ngram", "--previous-act", "--version", "--debug",
         "--install-completion", "--show-completion"}  # fmt: skip
"""Options that take no value (on or off): nothing to fuzz but their effect."""
