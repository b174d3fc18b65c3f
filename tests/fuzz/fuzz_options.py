"""Bad option values for every command: one row per option in :data:`BAD_VALUES` (a new
option adds its row), a few cases that need a file or directory set up (:data:`SPECIAL`), and
every method option (``-o key=value``) derived from the method's options model.

Every bad value must be refused before any model call: exit 2 with one ``error:`` line (or
click's usage error) naming the option. Cases left to code owned elsewhere are ``xfail``
with the reason.
"""

from __future__ import annotations

import json
import os
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fuzz_core import Built, Expect, Variant
from fuzz_targets import (
    CHITCHAT_CORPUS,
    CHITCHAT_TASKS,
    GOLD,
    PRED,
    PROMPTS,
    ROUGE_PRED,
    ROUGE_REF,
    TAGS,
    chitchat3,
    chitchat_answers,
    chitchat_items,
    dd3,
    dialogues3,
    gold3,
    item_replies,
    prompts3,
    run_chitchat,
    run_dd,
    run_flags,
    scenarios3,
)

UNWRITABLE = "/proc/self/taiwa-fuzz/out"
"""A place nobody can create files in (root included, unlike a read-only directory)."""

LONG_NAME = "/tmp/" + "x" * 300 + ".jsonl"
"""A file name longer than any file system allows (ENAMETOOLONG when looked up)."""
LONG_PATH = "/" + "d/" * 2100 + "f.jsonl"
"""A path longer than PATH_MAX."""
HUGE = "a" * 1_000_000
LONG_SPEC = "a" * 8_000
"""A SPEC whose echo would make an error line too long."""

Command = Callable[[Path], list[str]]


@dataclass(frozen=True)
class OptionCase:
    """A command line with one bad (or edge) option value and what must happen."""

    name: str
    argv: Command
    names: tuple[str, ...] = ()
    refuse: bool = True
    may_fail: bool = False
    prepare: Callable[[Path], None] | None = None
    xfail: str | None = None
    runs: bool = False
    """The command line is usable: it must not be refused (exit 0, or 1 with ``may_fail``)."""

    def variant(self) -> Variant:
        def build(work: Path) -> Built:
            if self.prepare is not None:
                self.prepare(work)
            expect = Expect(self.refuse, False, self.names, self.may_fail, self.runs)
            return Built(self.argv(work), expect)

        return Variant("options", self.name, 0, build, self.xfail)


# ---------------------------------------------------------------------------- commands


def run_prompts(w: Path) -> list[str]:
    return ["run", "prompts", "-m", "builtin:parrot", "--data", str(prompts3(w)), *run_flags(w)]


def run_da(w: Path) -> list[str]:
    return ["run", "da-response", "-m", "builtin:parrot", "--data", str(gold3(w)), *run_flags(w)]


def score_wed(w: Path) -> list[str]:
    return ["score", "wed", "--pred", str(PRED), "--gold", str(GOLD)]


def score_wlcs(w: Path) -> list[str]:
    return ["score", "wlcs", "--pred", str(PRED), "--gold", str(GOLD)]


def score_dae(w: Path) -> list[str]:
    return ["score", "dae", str(TAGS)]


def score_dami(w: Path) -> list[str]:
    return ["score", "dami", str(TAGS), "--lift"]


def score_rouge(w: Path) -> list[str]:
    return ["score", "rouge", "--pred", str(ROUGE_PRED), "--ref", str(ROUGE_REF)]


def build_da(w: Path) -> list[str]:
    return [
        "build", "da-response", "--scenarios", str(scenarios3(w)),
        "--model", f"replay:{item_replies(w)}", "--out", str(w / "built.jsonl"),
        "--cache-dir", str(w / "cache"),
    ]  # fmt: skip


def build_calibrate(w: Path) -> list[str]:
    return ["build", "calibrate-cohesion", "--dialogues", str(dialogues3(w))]


def build_cooc(w: Path) -> list[str]:
    corpus = w / "corpus.txt"
    if not corpus.exists():
        lines = ["今日は寒いので温かいラーメンを食べました。", "寒い朝は布団から出られない。"]
        corpus.write_text("\n".join(lines * 3) + "\n", encoding="utf-8")
    return ["build", "cooccurrence", str(corpus), "--out", str(w / "pairs.parquet")]


def run_dd3(w: Path) -> list[str]:
    return run_dd(dd3(w), w)


def da_train(w: Path) -> list[str]:
    """``taiwa da train`` on a base directory that looks like a model (a config.json): every
    bad value below is refused before a model is loaded."""
    base = w / "base"
    base.mkdir(exist_ok=True)
    (base / "config.json").write_text("{}", encoding="utf-8")
    return ["da", "train", "--base", str(base), "--out", str(w / "enc"), "--epochs", "1"]


def build_chitchat(w: Path) -> list[str]:
    return ["build", "chitchat", "--corpus", str(CHITCHAT_CORPUS), "--out", str(w / "tasks.jsonl")]


def run_cc(w: Path) -> list[str]:
    """``taiwa run chitchat`` of the parrot and the references on three items, no judge."""
    return run_chitchat(chitchat3(w), w)


def garbage_cache(w: Path) -> None:
    """A response cache that is not SQLite (a crash while copying it, another tool's file)."""
    (w / "cache").mkdir(exist_ok=True)
    (w / "cache" / "responses.sqlite").write_bytes(b"this is not a database\x00" * 100)


def a_file(w: Path) -> None:
    (w / "file").write_text("x", encoding="utf-8")


def a_dir(w: Path) -> None:
    (w / "dir").mkdir(exist_ok=True)


# ---------------------------------------------------------------------------- the table

BAD_VALUES: list[tuple[str, Command, str, tuple[str, ...]]] = [
    ("run", run_prompts, "--seed", ("-5", "abc", "1.5")),
    ("run", run_prompts, "--concurrency", ("0", "-1", "x")),
    ("run", run_prompts, "--limit", ("0", "-3")),
    ("run", run_prompts, "--rpm", ("0", "-1", "nan", "inf")),
    ("run", run_prompts, "--timeout", ("0", "-1", "nan", "inf")),
    ("run", run_prompts, "--max-retries", ("-1", "many")),
    ("run", run_prompts, "--retry-window", ("-1", "nan")),
    ("run", run_prompts, "--max-retry-wait", ("0", "-1", "nan", "x")),
    ("run", run_prompts, "--temperature", ("-1", "nan", "inf")),
    ("run", run_prompts, "--max-tokens", ("0", "-1")),
    ("run", run_prompts, "--max-failures", ("abc", "-1", "-5%", "x%")),
    ("run", run_prompts, "--model", ("bogus", "builtin:nope", "replay:", "", "openai:")),
    ("run", run_prompts, "--model", ("gguf:/nonexistent.gguf", "hf:/nonexistent")),
    ("run", run_da, "--role", ("nope=x", "annotator", "=offline", "annotator=bogus")),
    ("run", run_da, "--role", ("annotator=replay:", "annotator=replay:/nonexistent.jsonl")),
    ("run", run_da, "--annotator", ("bogus", "replay:/nonexistent.jsonl", "openai:")),
    ("run", run_da, "--judge", ("builtin:parrot",)),
    ("run", run_da, "--tagger", ("builtin:parrot",)),
    ("run", run_da, "--asr", ("builtin:parrot",)),
    ("run", run_da, "--option", ("nope=1", "=1", "noequals", "annotator_attempts=")),
    ("run", run_prompts, "--config", ("/nonexistent.yaml",)),
    ("run", run_prompts, "--data", ("/nonexistent.jsonl",)),
    ("run", run_prompts, "--out", ("/dev/null", UNWRITABLE)),
    ("run", run_prompts, "--cache-dir", ("/dev/null", UNWRITABLE)),
    ("score wed", score_wed, "--seed", ("-5", "x")),
    ("score wed", score_wed, "--taxonomy", ("bogus", "chitchat11", "")),
    ("score wed", score_wed, "--json", ("", "/", UNWRITABLE + ".json")),
    ("score wed", score_wed, "--pred", ("/nonexistent.jsonl",)),
    ("score wed", score_wed, "--gold", ("/nonexistent.jsonl",)),
    ("score wlcs", score_wlcs, "--json", ("/",)),
    ("score wlcs", score_wlcs, "--seed", ("-1",)),
    ("score wlcs", score_wlcs, "--taxonomy", ("/nonexistent.yaml",)),
    ("score wlcs", score_wlcs, "--pred", ("/nonexistent.jsonl", "/")),
    ("score wlcs", score_wlcs, "--gold", (str(PROMPTS),)),
    ("score dae", score_dae, "--seed", ("-5",)),
    ("score dae", score_dae, "--taxonomy", ("assistant7", "/nonexistent.yaml")),
    ("score dae", score_dae, "--json", (UNWRITABLE + ".json",)),
    ("score dami", score_dami, "--seed", ("-5",)),
    ("score dami", score_dami, "--json", ("/",)),
    ("score dami", score_dami, "--taxonomy", ("/nonexistent.yaml",)),
    ("score rouge", score_rouge, "--seed", ("-5",)),
    ("score rouge", score_rouge, "--json", (UNWRITABLE + ".json",)),
    ("score rouge", score_rouge, "--ref", (str(PROMPTS), "/nonexistent.jsonl")),
    ("score rouge", score_rouge, "--pred", ("/nonexistent.jsonl",)),
    ("build da-response", build_da, "--attempts", ("0", "-1", "11")),
    ("build da-response", build_da, "--max-tokens", ("0", "-1")),
    ("build da-response", build_da, "--seed", ("-5",)),
    ("build da-response", build_da, "--concurrency", ("0",)),
    ("build da-response", build_da, "--model", ("bogus", "replay:/nonexistent.jsonl")),
    ("build da-response", build_da, "--out", ("/", UNWRITABLE + ".jsonl")),
    ("build da-response", build_da, "--cache-dir", ("/dev/null", UNWRITABLE)),
    ("build da-response", build_da, "--scenarios", ("/nonexistent.txt",)),
    ("build calibrate-cohesion", build_calibrate, "--seed", ("-5",)),
    ("build calibrate-cohesion", build_calibrate, "--dialogues", ("/nonexistent.jsonl",)),
    ("build cooccurrence", build_cooc, "--window", ("0", "-1")),
    ("build cooccurrence", build_cooc, "--workers", ("0", "-2")),
    ("build cooccurrence", build_cooc, "--sentences", ("0", "-1")),
    ("build cooccurrence", build_cooc, "--llr-threshold", ("nan", "-inf")),
    ("build cooccurrence", build_cooc, "--min-pair-count", ("0", "-1")),
    ("build cooccurrence", build_cooc, "--min-word-count", ("-1",)),
    ("build cooccurrence", build_cooc, "--exclude-top-k", ("-1",)),
    ("build cooccurrence", build_cooc, "--max-word-ratio", ("0", "2", "nan")),
    ("build cooccurrence", build_cooc, "--kind", ("bogus",)),
    ("build cooccurrence", build_cooc, "--engine", ("bogus",)),
    ("build cooccurrence", build_cooc, "--infeasible", ("bogus",)),
    ("build cooccurrence", build_cooc, "--memory-limit", ("lots", "")),
    ("build cooccurrence", build_cooc, "--out", ("/", UNWRITABLE + ".parquet")),
    ("demo", lambda w: ["demo"], "--out", ("/dev/null", UNWRITABLE)),
    ("run", run_prompts, "--data", (LONG_NAME, LONG_PATH)),
    ("run", run_prompts, "--config", (LONG_NAME,)),
    ("run", run_prompts, "--out", (LONG_NAME, LONG_PATH)),
    ("run", run_prompts, "--cache-dir", (LONG_PATH,)),
    ("run", run_prompts, "--model", ("replay:" + LONG_NAME, LONG_SPEC)),
    ("run", run_da, "--annotator", ("replay:" + LONG_NAME, LONG_SPEC)),
    ("run", run_da, "--option", (HUGE + "=1", "annotator_attempts=" + HUGE)),
    ("run", run_prompts, "--baseline", ("nope", "builtin:eliza")),
    ("run", run_prompts, "--price", ("x", "m=1", "m=a,b", "m=-1,2", "=1,2")),
    ("run", run_prompts, "--prices", ("/nonexistent.yaml", "/")),
    ("score wed", score_wed, "--pred", (LONG_NAME,)),
    ("score wed", score_wed, "--taxonomy", (LONG_NAME, LONG_PATH)),
    ("score wed", score_wed, "--json", (LONG_NAME, LONG_PATH)),
    ("build da-response", build_da, "--scenarios", (LONG_NAME,)),
    ("build da-response", build_da, "--out", (LONG_NAME,)),
    ("build cooccurrence", build_cooc, "--out", (LONG_PATH,)),
    ("build chitchat", build_chitchat, "--seed", ("-5", "x", str(2**63))),
    ("build chitchat", build_chitchat, "--per-dialogue", ("-1", "1001", "x")),
    ("build chitchat", build_chitchat, "--continuations", ("-1", "1001")),
    ("build chitchat", build_chitchat, "--min-context", ("0", "-1", "10001")),
    ("build chitchat", build_chitchat, "--min-turns", ("0", "51")),
    ("build chitchat", build_chitchat, "--max-turns", ("0", "51", "x")),
    ("build chitchat", build_chitchat, "--corpus", ("/nonexistent.jsonl", "/", LONG_NAME)),
    ("build chitchat", build_chitchat, "--corpus", (str(CHITCHAT_TASKS), str(PROMPTS), LONG_PATH)),
    ("build chitchat", build_chitchat, "--out", ("/", UNWRITABLE + ".jsonl", LONG_NAME, LONG_PATH)),
    ("run chitchat", run_cc, "--judge", ("bogus", "human", "replay:", "openai:", "")),
    ("run chitchat", run_cc, "--judge", ("replay:/nonexistent.jsonl", "replay:" + LONG_NAME)),
    ("run chitchat", run_cc, "--judge", (LONG_SPEC, "builtin:nope")),
    (
        "run chitchat",
        run_cc,
        "--role",
        ("judge=bogus", "judge=human", "judge=", "annotator=offline"),
    ),
    ("run chitchat", run_cc, "--data", (str(CHITCHAT_CORPUS), str(PROMPTS), "/")),
    ("run", run_prompts, "--models", ("", ",", "bogus,builtin:parrot", "builtin:parrot,,x")),
    ("run", run_prompts, "--models", ("builtin:parrot," + LONG_SPEC, "builtin:parrot")),
    (
        "run da-distribution",
        run_dd3,
        "--tagger",
        ("bogus", "gguf:/nonexistent.gguf", "human", "", LONG_SPEC),
    ),
    ("run da-distribution", run_dd3, "--tagger", ("votes:", "votes:/nonexistent.jsonl", "/")),
    ("run da-distribution", run_dd3, "--tagger", (str(PROMPTS), "votes:" + LONG_NAME)),
    ("da train", da_train, "--base", ("/nonexistent", "/", LONG_NAME, str(PROMPTS))),
    ("da train", da_train, "--out", ("/", str(PROMPTS))),
    ("da train", da_train, "--data", ("/nonexistent.jsonl", "/", str(PROMPTS), LONG_NAME)),
    ("da train", da_train, "--epochs", ("0", "x", "-1")),
    ("da train", da_train, "--batch-size", ("0", "x")),
    ("da train", da_train, "--lr", ("0", "-1", "x", "nan", "inf")),
    ("da train", da_train, "--max-length", ("0", "x")),
    ("da train", da_train, "--seed", ("-1", "x")),
]
"""``(command label, base command, option, bad values)``: each value is appended to the base
command as ``OPTION VALUE`` (the last occurrence of an option wins) and must be refused."""

NAMES: dict[str, tuple[str, ...]] = {
    "--model": ("spec", "model", "system", "human", "/nonexistent", "bogus", "nope"),
    "--role": ("role", "annotator", "spec", "KEY=VALUE", "/nonexistent", "bogus"),
    "--annotator": ("annotator", "spec", "/nonexistent", "bogus"),
    "--option": ("option", "KEY=VALUE", "nope", "annotator_attempts"),
    "--taxonomy": ("taxonomy", "bogus", "/nonexistent", str(PRED), str(TAGS)),
    "--json": ("json", "'/'", "''", "/proc/self", "'.'"),
    "--ref": ("/nonexistent", str(PROMPTS), str(ROUGE_PRED)),
    "--gold": ("/nonexistent", str(PROMPTS)),
    "--pred": ("/nonexistent", "'/'", ": expected an existing file"),
    "--judge": ("judge", "spec", "/nonexistent", "bogus", "human", "nope"),
    "--corpus": ("corpus", "/: expected an existing file"),
    "--data": ("data", "/: expected an existing file"),
    "--tagger": ("tagger", "/nonexistent", "bogus", "votes"),
    "--models": ("models", "model", "spec", "bogus", "builtin:parrot"),
    "--base": ("base", "model directory"),
    "--out": ("out",),
    "--prices": ("/: expected an existing",),
}
"""What the error line may name instead of the option itself (the file, the SPEC ...)."""

XFAIL: dict[tuple[str, str, str], str] = {}
"""``(command label, option, value)`` of bad values that code owned elsewhere still fails."""


def _names(option: str) -> tuple[str, ...]:
    bare = option.lstrip("-")
    too_long = ("File name too long", "at most 100,000 characters")
    return (option, bare, bare.replace("-", "_"), *NAMES.get(option, ()), *too_long)


def _label(value: str) -> str:
    """A value as it appears in a test id (long ones shortened)."""
    return repr(value) if len(value) <= 40 else f"{value[:16]!r}…({len(value):,} chars)"


def _table_cases() -> list[OptionCase]:
    out = []
    for label, base, option, values in BAD_VALUES:
        for v in values:
            out.append(
                OptionCase(
                    f"{label} {option} {_label(v)}",
                    lambda w, b=base, o=option, v=v: [*b(w), o, v],
                    (*_names(option), v) if v.startswith("/") and len(v) > 1 else _names(option),
                    xfail=XFAIL.get((label, option, v)),
                )
            )
    return out


OUTPUTS: list[tuple[str, Command, str, str]] = [
    ("run", run_prompts, "--out", "run"),
    ("run", run_prompts, "--cache-dir", "cache"),
    ("score wed", score_wed, "--json", "o.json"),
    ("score rouge", score_rouge, "--json", "o.json"),
    ("build da-response", build_da, "--out", "o.jsonl"),
    ("build da-response", build_da, "--cache-dir", "cache"),
    ("build cooccurrence", build_cooc, "--out", "p.parquet"),
    ("demo", lambda w: ["demo"], "--out", "demo"),
    ("build chitchat", build_chitchat, "--out", "tasks.jsonl"),
]
"""``(command label, base command, option, a name)``: outputs pointed at an existing file
where a directory is wanted (or the reverse) and under a file; each must be refused."""


def _output_cases() -> list[OptionCase]:
    out = []
    for label, base, option, name in OUTPUTS:
        wrong = ("file", a_file) if "." not in name else ("dir", a_dir)
        places = [
            (f"on a {wrong[0]}", wrong[0], wrong[1]),
            ("under a file", f"file/{name}", a_file),
        ]
        for what, rel, prepare in places:
            out.append(
                OptionCase(
                    f"{label} {option} {what}",
                    lambda w, b=base, o=option, r=rel: [*b(w), o, str(w / r)],
                    (rel.split("/")[0], option),
                    prepare=prepare,
                )
            )
    return out


SPECIAL: list[OptionCase] = [
    OptionCase(
        "run --cache-dir with a garbage responses.sqlite",
        run_prompts,
        ("responses.sqlite", "cache"),
        prepare=garbage_cache,
    ),
    OptionCase(
        "build da-response --cache-dir with a garbage responses.sqlite",
        build_da,
        ("responses.sqlite", "cache"),
        prepare=garbage_cache,
    ),
    OptionCase(
        "run --model twice",
        lambda w: [*run_prompts(w), "-m", "builtin:parrot"],
        ("builtin:parrot",),
    ),
    OptionCase(
        "run --model garbage.gguf",
        lambda w: [*run_prompts(w), "-m", f"gguf:{w / 'file'}"],
        ("file",),
        prepare=a_file,
    ),
    OptionCase(
        "run --max-failures nan",
        lambda w: [*run_prompts(w), "--max-failures", "nan"],
        ("max-failures",),
    ),
    OptionCase(
        "run unknown method", lambda w: ["run", "bogus", "-m", "builtin:parrot"], ("bogus",)
    ),
    OptionCase(
        "run no method", lambda w: ["run", "-m", "builtin:parrot", *run_flags(w)], ("method",)
    ),
    OptionCase("run no model", lambda w: ["run", "prompts", *run_flags(w)], ("model", "system")),
    OptionCase(
        "run cohesion --model",
        lambda w: ["run", "cohesion", "-m", "builtin:parrot", "--out", str(w / "run")],
        ("model",),
    ),
    OptionCase(
        "run cohesion --cache-dir",
        lambda w: ["run", "cohesion", "--cache-dir", str(w / "c"), "--out", str(w / "run")],
        ("cache",),
    ),
    OptionCase(
        "run --overwrite on a run of another method",
        lambda w: [*run_da(w), "--out", str(w / "run"), "--overwrite"],
        refuse=False,
        may_fail=True,
    ),
    OptionCase(
        "run --no-cache on cohesion",
        lambda w: ["run", "cohesion", "--no-cache", "--out", str(w / "run")],
        ("cache",),
    ),
    OptionCase(
        "run --base-url with credentials",
        lambda w: [
            "run",
            "prompts",
            "-m",
            "openai:x",
            "--base-url",
            "http://user:s3cr3tpass@127.0.0.1:9/v1",
            "--data",
            str(prompts3(w)),
            "--max-retries",
            "0",
            "--retry-window",
            "0",
            *run_flags(w),
        ],
        ("127.0.0.1", "connect"),
        refuse=False,
        may_fail=True,
    ),
    OptionCase(
        "run --base-url not a URL",
        lambda w: [
            "run",
            "prompts",
            "-m",
            "openai:x",
            "--base-url",
            "not a url",
            "--data",
            str(prompts3(w)),
            *run_flags(w),
        ],
        ("base", "url", "URL"),
        refuse=False,
        may_fail=True,
    ),
    OptionCase(
        "build da-response --base-url not a URL",
        lambda w: [*build_da(w), "--base-url", "not a url"],
        refuse=False,
        may_fail=True,
    ),
    OptionCase(
        "build da-response no valid item",
        lambda w: [*build_da(w), "--model", "builtin:parrot"],
        refuse=False,
        may_fail=True,
    ),
    OptionCase(
        "build cooccurrence --master with duckdb",
        lambda w: [*build_cooc(w), "--master", "bogus://x"],
        ("master",),
        refuse=False,
    ),
    OptionCase("--version", lambda w: ["--version"], refuse=False),
]
"""Cases that need something set up first, or that may run (exit 0 or 1) without a traceback."""


# ---------------------------------------------------------------------------- method options


def method_option_cases() -> list[OptionCase]:
    """Bad ``-o key=value`` values for every option of every registered method, derived from
    its options model: values outside ``ge``/``le``, wrong types, unknown literals, empty
    lists, unknown keys."""
    from taiwa.benchmarks import get_method, method_names

    out: list[OptionCase] = []
    for name in method_names():
        method = get_method(name)
        base = _method_base(name)
        out.append(
            OptionCase(f"-o {name} unknown key", lambda w, b=base: [*b(w), "-o", "zz=1"], ("zz",))
        )
        for key, info in method.options.model_fields.items():
            for value in bad_values(info):
                out.append(
                    OptionCase(
                        f"-o {name} {key}={_label(value)}",
                        lambda w, b=base, k=key, v=value: [*b(w), "-o", f"{k}={v}"],
                        (key,),
                    )
                )
    return out


def _method_base(name: str) -> Command:
    from taiwa.benchmarks import get_method

    if get_method(name).takes_systems:
        return lambda w: ["run", name, "-m", "builtin:parrot", *run_flags(w)]
    return lambda w: ["run", name, "--out", str(w / "run"), "-q"]


def bad_values(info: Any) -> list[str]:
    """Values no option of this type and bounds can take (an optional option, ``X | None``,
    as ``X``; an exclusive bound itself too)."""
    lo = hi = None
    edges: list[str] = []
    for meta in info.metadata:
        for bound in ("ge", "gt"):
            lo = getattr(meta, bound, None) if getattr(meta, bound, None) is not None else lo
        for bound in ("le", "lt"):
            hi = getattr(meta, bound, None) if getattr(meta, bound, None) is not None else hi
        edges += [str(getattr(meta, b)) for b in ("gt", "lt") if getattr(meta, b, None) is not None]
    ann = info.annotation
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(ann) if a is not type(None)]
        ann = rest[0] if len(rest) == 1 else ann
    origin = typing.get_origin(ann)
    values: list[str] = [HUGE]
    if ann in (int, float, bool) or origin is typing.Literal:
        values += ["[" * 10_000, "&a [*a, *a]"]
    if ann in (int, float):
        values += ["abc", "[1, 2]", "nan"] + (["1.5"] if ann is int else [])
        values += [str(lo - 1)] if lo is not None else []
        values += [str(hi + 1)] if hi is not None else []
        values += edges
    elif ann is bool:
        values += ["maybe", "2"]
    elif origin is typing.Literal:
        values += ["zz_bogus", "1"]
    elif origin is list and typing.get_origin(typing.get_args(ann)[0]) is typing.Literal:
        values += ["zz_bogus", ","]
    elif ann is str:
        values += ["zz_bogus:/nonexistent", "/" + "[" * 10_000]
    return values


# ---------------------------------------------------------------------------- chitchat


def _cc_option(key: str, value: str, *, judged: bool = False) -> Command:
    """:func:`run_cc` with ``-o key=value`` (and the parrot as judge when ``judged``)."""
    judge = ["--judge", "builtin:parrot"] if judged else []
    return lambda w: [*run_cc(w), *judge, "-o", f"{key}={value}"]


CHITCHAT_BAD_OPTIONS: dict[str, tuple[str, ...]] = {
    "per_task": ("-1", "[1]", "{a: 1}"),
    "flip_threshold": ("-0.1", "1.01", "inf", "-inf"),
    "judge_modes": ("", "single,bogus", "[]", "{a: 1}", "SINGLE"),
    "tasks": ("", "next_utterance,bogus", "[]", "next utterance"),
    "missing": ("", "LOSES"),
    "judge_attempts": ("",),
    "judge_max_tokens": ("",),
    "human_ranks": ("", "~", "123"),
}
"""Bad ``-o`` values of chitchat beyond those :func:`bad_values` derives (bounds that are
exclusive, empty and null values, lists and mappings): each must be refused naming the key."""

CHITCHAT_RANK_FILES = ("/nonexistent.jsonl", "/", str(CHITCHAT_TASKS), str(PROMPTS))
"""``-o human_ranks=`` values naming no rankings file: refused naming the file."""

CHITCHAT_GOOD_OPTIONS: list[tuple[str, str, bool]] = [
    ("per_task", "1", False),
    ("tasks", "continuation", False),
    ("tasks", "next_utterance,,next_utterance", False),
    ("flip_threshold", "1", True),
    ("judge_modes", "single,single", True),
    ("judge_modes", "pairwise", True),
    ("missing", "excluded", True),
    ("judge_attempts", "1", True),
    ("judge_max_tokens", "8", True),
]
"""Edge values chitchat takes (``judged``: with the parrot as judge): they run, exit 0 or 1."""


def _rank_rows(*rows: dict[str, int], ids: tuple[str, ...] = (), who: str = "a1") -> str:
    """JSONL of rankings: ``rows`` are the ranks, on the chitchat items in turn (or ``ids``)."""
    items = ids or tuple(r["id"] for r in chitchat_items())
    out = [
        json.dumps({"id": items[k % len(items)], "annotator": who, "ranks": r})
        for k, r in enumerate(rows)
    ]
    return "\n".join(out) + "\n"


PARROT, HUMAN = "builtin:parrot", "human"
ELIZA = "builtin:eliza"
GOOD = {HUMAN: 1, PARROT: 2}

RANKINGS: list[tuple[str, str, str, tuple[str, ...], bool]] = [
    ("a system not in the run", _rank_rows(GOOD, {HUMAN: 1, "gpt-9": 2}), "", (":2",), True),
    ("a tie", _rank_rows({HUMAN: 1, PARROT: 1}), "", (":1",), True),
    ("a gap", _rank_rows({HUMAN: 1, PARROT: 3}), "", (":1",), True),
    ("rank 0", _rank_rows({HUMAN: 0, PARROT: 1}), "", (":1",), True),
    ("rank true", _rank_rows({HUMAN: True, PARROT: 2}), "", (":1",), True),
    ("rank 1e30", _rank_rows({HUMAN: 1, PARROT: 10**30}), "", (":1",), True),
    ("one system", _rank_rows(GOOD, {HUMAN: 1}), "", (":2",), True),
    ("the same item and annotator twice", _rank_rows(GOOD, GOOD, GOOD, GOOD), "", (":4",), True),
    (
        "1,000 systems",
        _rank_rows({f"s{i}": i + 1 for i in range(1000)}),
        "",
        (":1",),
        True,
    ),
    ("ranks as a list", '{"id": "x", "annotator": "a", "ranks": [1, 2]}\n', "", (":1",), True),
    (
        "an incomplete ranking of 3 systems",
        _rank_rows({HUMAN: 1, PARROT: 2, ELIZA: 3}, GOOD),
        ELIZA,
        (":2",),
        True,
    ),
    ("2 of 3 systems ranked", _rank_rows(GOOD, GOOD, GOOD), ELIZA, (), False),
    ("items the run lacks", _rank_rows(GOOD, GOOD, ids=("zz1", "zz2")), "", (), False),
    ("two annotators", _rank_rows(GOOD, GOOD) + _rank_rows(GOOD, who="a2"), "", (), False),
]
"""``(case, rankings JSONL, a third system, what the error names, refused)``: rankings that
the run's systems (parrot, human and the third) make wrong, or odd but usable."""

WIDE_RANKINGS: list[tuple[str, str, tuple[str, ...]]] = [
    ("an unknown system column", "id,annotator,human,builtin:parrot,gpt-9\nx,a,1,2,3\n", (":2",)),
    ("an empty cell", "id,annotator,human,builtin:parrot\nx,a,1,\n", (":2",)),
    ("a text rank", "id,annotator,human,builtin:parrot\nx,a,first,second\n", (":2",)),
    ("no system column", "id,annotator\nx,a\n", (":2",)),
]
"""``(case, rankings CSV, what the error names)``: CSV rankings (one column per system) that
must be refused."""


def _write(name: str, text: str) -> Callable[[Path], None]:
    def prepare(w: Path) -> None:
        (w / name).write_text(text, encoding="utf-8")

    return prepare


def _ranked(name: str, third: str = "", judged: bool = False) -> Command:
    """:func:`run_cc` (plus ``third`` as a system) reading the rankings ``name``."""
    extra = (["-m", third] if third else []) + (["--judge", "builtin:parrot"] if judged else [])
    return lambda w: [*run_cc(w), *extra, "-o", f"human_ranks={w / name}"]


def _no_item_of_the_task(w: Path) -> list[str]:
    """:func:`run_cc` on next-utterance items only, asking for next-speaker items."""
    only = [r for r in chitchat_items() if r["task"] == "next_utterance"]
    data = w / "next_only.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in only), encoding="utf-8")
    return [*run_cc(w), "--data", str(data), "-o", "tasks=next_speaker"]


def _three_judged(w: Path) -> list[str]:
    """The references, the parrot and a replay system judged by the parrot (single and
    pairwise) with human rankings of all three: every block of the summary, Spearman ρ between
    evaluations and against the humans included."""
    answers = chitchat_answers(w)
    system = f"replay:{answers.name}"
    rows = [{HUMAN: 1, system: 2, PARROT: 3}, {system: 1, HUMAN: 2, PARROT: 3}]
    (w / "ranks.jsonl").write_text(_rank_rows(*rows, rows[0]), encoding="utf-8")
    return [
        *run_cc(w), "-m", system, "--judge", "builtin:parrot",
        "-o", f"human_ranks={w / 'ranks.jsonl'}",
    ]  # fmt: skip


def _failed_verdicts(w: Path) -> list[str]:
    """The references and ELIZA (both answer) single-judged by a judge that never gives a
    rating (``builtin:fixed``), with rankings of the run's items: no item is both judged and
    ranked."""
    systems = ["-m", HUMAN, "-m", ELIZA, "--judge", "builtin:fixed", "-o", "judge_modes=single"]
    data = ["--data", str(chitchat3(w)), *run_flags(w)]
    return ["run", "chitchat", *systems, *data, "-o", f"human_ranks={w / 'ranks.jsonl'}"]


def a_fifo(w: Path) -> None:
    """A named pipe: opening it to read would wait for a writer for ever."""
    os.mkfifo(w / "fifo.jsonl")


def _labels_one_to_the_extraction(w: Path) -> list[str]:
    """:func:`run_cc` on items whose first one has labels equal but for case."""
    items = chitchat_items()
    items[0]["labels"] = [items[0]["target"], items[0]["target"].lower()]
    data = w / "case_labels.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in items), encoding="utf-8")
    return [*run_cc(w), "--data", str(data)]


def _out_over_corpus(w: Path) -> list[str]:
    """``taiwa build chitchat`` writing its tasks over its own corpus (a copy)."""
    corpus = w / "corpus.jsonl"
    corpus.write_bytes(CHITCHAT_CORPUS.read_bytes())
    return ["build", "chitchat", "--corpus", str(corpus), "--out", str(corpus)]


def chitchat_cases() -> list[OptionCase]:
    """chitchat's own cases: bad and edge ``-o`` values, the rankings file checked against the
    run's systems, and ``taiwa build chitchat`` settings that build nothing."""
    out: list[OptionCase] = []
    for key, values in CHITCHAT_BAD_OPTIONS.items():
        for v in values:
            out.append(OptionCase(f"run chitchat -o {key}={_label(v)}", _cc_option(key, v), (key,)))
    for v in CHITCHAT_RANK_FILES:
        names = ("human_ranks", "/: expected an existing file") if v == "/" else (v,)
        out.append(
            OptionCase(
                f"run chitchat -o human_ranks={_label(v)}", _cc_option("human_ranks", v), names
            )
        )
    for v in (LONG_NAME, LONG_PATH):
        out.append(
            OptionCase(
                f"run chitchat -o human_ranks={_label(v)}",
                _cc_option("human_ranks", v),
                ("human_ranks", "File name too long", v[:40]),
            )
        )
    places: list[tuple[str, Command, str, Callable[[Path], None]]] = [
        ("run chitchat -o human_ranks on a directory", _ranked("dir"), "dir", a_dir),
        ("run chitchat -o human_ranks on a named pipe", _ranked("fifo.jsonl"), "fifo", a_fifo),
        (
            "build chitchat --corpus on a named pipe",
            lambda w: [*build_chitchat(w), "--corpus", str(w / "fifo.jsonl")],
            "fifo",
            a_fifo,
        ),
        (
            "build chitchat --out on a named pipe",
            lambda w: [*build_chitchat(w), "--out", str(w / "fifo.jsonl")],
            "fifo",
            a_fifo,
        ),
    ]
    for case, argv, name, prepare in places:
        out.append(OptionCase(case, argv, (name,), prepare=prepare))
    out.append(
        OptionCase(
            "run chitchat --data with labels equal but for case",
            _labels_one_to_the_extraction,
            ("case_labels.jsonl:1",),
        )
    )
    out.append(
        OptionCase(
            "run chitchat --judge replay:FILE without the judge's request ids",
            lambda w: [*run_cc(w), "--judge", f"replay:{chitchat_answers(w)}"],
            refuse=False,
            runs=True,
            may_fail=True,
        )
    )
    for key, v, judged in CHITCHAT_GOOD_OPTIONS:
        out.append(
            OptionCase(
                f"run chitchat -o {key}={_label(v)} (valid)",
                _cc_option(key, v, judged=judged),
                refuse=False,
                may_fail=True,
                runs=True,
            )
        )
    out.append(
        OptionCase(
            "run chitchat -o tasks with no item of that task",
            _no_item_of_the_task,
            ("next_only.jsonl",),
        )
    )
    for case, text, third, names, refuse in RANKINGS:
        out.append(
            OptionCase(
                f"run chitchat -o human_ranks with {case}",
                _ranked("ranks.jsonl", third, judged=not refuse and not third),
                tuple(f"ranks.jsonl{n}" for n in names),
                refuse=refuse,
                may_fail=True,
                runs=not refuse,
                prepare=_write("ranks.jsonl", text),
            )
        )
    for case, text, names in WIDE_RANKINGS:
        out.append(
            OptionCase(
                f"run chitchat -o human_ranks CSV with {case}",
                _ranked("ranks.csv"),
                tuple(f"ranks.csv{n}" for n in names),
                prepare=_write("ranks.csv", text),
            )
        )
    out.append(
        OptionCase(
            "run chitchat -o human_ranks with every verdict failed",
            _failed_verdicts,
            refuse=False,
            runs=True,
            may_fail=True,
            prepare=_write("ranks.jsonl", _rank_rows({HUMAN: 1, ELIZA: 2})),
        )
    )
    out.append(
        OptionCase(
            "run chitchat -o human_ranks with 3 judged systems",
            _three_judged,
            refuse=False,
            runs=True,
            may_fail=True,
        )
    )
    build = [
        ("--min-turns above --max-turns", ["--min-turns", "4", "--max-turns", "3"], "--min-turns"),
        ("no item asked for", ["--per-dialogue", "0", "--continuations", "0"], "--per-dialogue"),
        ("--min-context beyond every chat", ["--min-context", "10000"], "--min-context"),
    ]
    for case, args, name in build:
        out.append(
            OptionCase(
                f"build chitchat {case}",
                lambda w, a=args: [*build_chitchat(w), *a],
                (name,),
            )
        )
    out.append(
        OptionCase(
            "build chitchat --out over its --corpus",
            _out_over_corpus,
            refuse=False,
            runs=True,
        )
    )
    out.append(
        OptionCase(
            "build chitchat --min-turns 50 --max-turns 50 (valid)",
            lambda w: [*build_chitchat(w), "--min-turns", "50", "--max-turns", "50"],
            refuse=False,
            runs=True,
        )
    )
    return out


def option_cases() -> list[OptionCase]:
    """Every option case, in a fixed order."""
    return _table_cases() + _output_cases() + SPECIAL + method_option_cases() + chitchat_cases()


# ---------------------------------------------------------------------------- intent builder

INTENT_CORPUS = Path(__file__).resolve().parents[2] / "src/taiwa/data/samples/intent/corpus.jsonl"


def build_intent(w: Path) -> list[str]:
    """``taiwa build intent`` with the parrot (every bad value is refused before any call)."""
    return [
        "build", "intent", "--corpus", str(INTENT_CORPUS), "-m", "builtin:parrot",
        "--out", str(w / "intent"), "--cache-dir", str(w / "cache"),
    ]  # fmt: skip


def build_intent_import(w: Path) -> list[str]:
    return ["build", "intent-import", str(w / "intent"), "--out", str(w / "items.jsonl")]


BAD_VALUES += [
    (
        "build intent",
        build_intent,
        "--corpus",
        ("/nonexistent.jsonl", "/", LONG_NAME, str(PROMPTS)),
    ),
    ("build intent", build_intent, "--model", ("bogus", "replay:/nonexistent.jsonl", "")),
    ("build intent", build_intent, "--out", (UNWRITABLE, str(PROMPTS))),
    ("build intent", build_intent, "--contexts", ("0", "11", "x")),
    ("build intent", build_intent, "--per-dialogue", ("0", "21", "x")),
    ("build intent", build_intent, "--filter", ("bogus", "", "LLM")),
    ("build intent", build_intent, "--annotators", ("1", "27", "x")),
    ("build intent", build_intent, "--seed", ("-1", "x", str(2**63))),
    ("build intent", build_intent, "--limit", ("0", "-1", "x")),
    ("build intent", build_intent, "--max-tokens", ("0", "x")),
    ("build intent", build_intent, "--attempts", ("0", "11")),
    ("build intent", build_intent, "--concurrency", ("0", "x")),
    ("build intent", build_intent, "--cache-dir", ("/dev/null", UNWRITABLE)),
    ("build intent-import", build_intent_import, "--out", ("/", UNWRITABLE + ".jsonl")),
    ("build intent-import", build_intent_import, "--seed", ("-1", "x", str(2**63))),
]
SPECIAL.append(
    OptionCase(
        "build intent --base-url not a URL",
        lambda w: [*build_intent(w), "-m", "openai:x", "--base-url", "not a url"],
        ("base", "url", "URL"),
    )
)
SPECIAL.append(
    OptionCase(
        "build intent-import directory missing",
        lambda w: ["build", "intent-import", "/nonexistent", "--out", str(w / "i.jsonl")],
        ("/nonexistent",),
    )
)


# ------------------------------------------- speech, reports, annotator validation (issues 14-16)


def a_run_dir(w: Path) -> Path:
    """A finished prompts run (the parrot on three prompts), made once per work directory."""
    out = w / "finished-run"
    if not (out / "summary.json").exists():
        from taiwa.benchmarks import get_method
        from taiwa.harness.config import RunConfig
        from taiwa.harness.runner import run

        cfg = RunConfig(
            method="prompts", models=["builtin:parrot"], data=prompts3(w), out=out, no_cache=True
        )
        run(cfg, get_method(cfg.method), show_progress=False)
    return out


def report(w: Path) -> list[str]:
    return ["report", str(a_run_dir(w))]


def leaderboard(w: Path) -> list[str]:
    a_run_dir(w)
    return ["leaderboard", str(w)]


def build_audio(w: Path) -> list[str]:
    return ["build", "audio", "--data", str(GOLD), "--out", str(w / "audio")]


def validate_annotator(w: Path) -> list[str]:
    return ["validate", "annotator"]


def validate_tagger(w: Path) -> list[str]:
    return ["validate", "tagger"]


BAD_VALUES += [
    ("run", run_da, "--input-mode", ("bogus", "", "AUDIO")),
    ("report", report, "--out", (UNWRITABLE,)),
    ("leaderboard", leaderboard, "--out", (UNWRITABLE,)),
    ("build audio", build_audio, "--data", ("/nonexistent.jsonl", LONG_NAME)),
    ("build audio", build_audio, "--out", (UNWRITABLE,)),
    ("build audio", build_audio, "--field", ("bogus", "=", "")),
    ("build audio", build_audio, "--dataset-out", (UNWRITABLE + ".jsonl",)),
    ("build audio", build_audio, "--limit", ("0", "-1", "x")),
    ("build audio", build_audio, "--speed", ("-1", "0", "x", "nan")),
    ("validate annotator", validate_annotator, "--annotator", ("bogus:x", "")),
    ("validate annotator", validate_annotator, "--data", ("/nonexistent.jsonl", LONG_NAME)),
    ("validate annotator", validate_annotator, "--method", ("bogus",)),
    ("validate annotator", validate_annotator, "--seed", ("x", "1.5")),
    ("validate annotator", validate_annotator, "--json", (UNWRITABLE + ".json",)),
    ("validate tagger", validate_tagger, "--tagger", ("bogus:x", "")),
    ("validate tagger", validate_tagger, "--data", ("/nonexistent.jsonl", LONG_NAME)),
    ("validate tagger", validate_tagger, "--method", ("bogus",)),
    ("validate tagger", validate_tagger, "--seed", ("x", "1.5")),
    ("validate tagger", validate_tagger, "--json", (UNWRITABLE + ".json",)),
]
for _command, _base in (
    ("validate annotator", validate_annotator),
    ("validate tagger", validate_tagger),
):
    BAD_VALUES += [  # the model flags validate shares with run (issue 40 §6)
        (_command, _base, "--concurrency", ("0", "x")),
        (_command, _base, "--rpm", ("0", "nan")),
        (_command, _base, "--timeout", ("0", "inf")),
        (_command, _base, "--max-retries", ("-1", "many")),
        (_command, _base, "--retry-window", ("-1", "nan")),
        (_command, _base, "--max-retry-wait", ("0", "x")),
        (_command, _base, "--max-failures", ("abc", "-1", "x%")),
    ]
    SPECIAL.append(
        OptionCase(
            f"{_command} --base-url not a URL",
            lambda w, b=_base: [*b(w), f"--{b(w)[1]}", "openai:x", "--base-url", "not a url"],
            ("base", "url", "URL"),
        )
    )
SPECIAL += [
    OptionCase("leaderboard --baseline on a runs_dir that does not exist",
               lambda w: ["leaderboard", "/nonexistent/runs", "--baseline", "human"],
               ("/nonexistent/runs",)),
    OptionCase("compare --json, compare --baseline: run directories that do not exist",
               lambda w: ["compare", "/nonexistent/a", "/nonexistent/b", "--baseline", "x",
                          "--json", str(w / "c.json")],
               ("/nonexistent/a", "/nonexistent/b")),
    OptionCase("report run_dirs: no such directory", lambda w: ["report", "/nonexistent/run"],
               ("/nonexistent/run",)),
    OptionCase("leaderboard runs_dir: no such directory",
               lambda w: ["leaderboard", "/nonexistent/runs"], ("/nonexistent/runs",)),
]  # fmt: skip
