"""Bad option values for every command: one row per option in :data:`BAD_VALUES` (a new
option adds its row), a few cases that need a file or directory set up (:data:`SPECIAL`), and
every method option (``-o key=value``) derived from the method's options model.

Every bad value must be refused before any model call: exit 2 with one ``error:`` line (or
click's usage error) naming the option. Cases left to code owned elsewhere are ``xfail``
with the reason.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fuzz_core import Built, Expect, Variant
from fuzz_targets import (
    GOLD,
    PRED,
    PROMPTS,
    ROUGE_PRED,
    ROUGE_REF,
    TAGS,
    dialogues3,
    gold3,
    item_replies,
    prompts3,
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

    def variant(self) -> Variant:
        def build(work: Path) -> Built:
            if self.prepare is not None:
                self.prepare(work)
            return Built(self.argv(work), Expect(self.refuse, False, self.names, self.may_fail))

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
    ("score wed", score_wed, "--pred", (LONG_NAME,)),
    ("score wed", score_wed, "--taxonomy", (LONG_NAME, LONG_PATH)),
    ("score wed", score_wed, "--json", (LONG_NAME, LONG_PATH)),
    ("build da-response", build_da, "--scenarios", (LONG_NAME,)),
    ("build da-response", build_da, "--out", (LONG_NAME,)),
    ("build cooccurrence", build_cooc, "--out", (LONG_PATH,)),
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
    """Values no option of this type and bounds can take."""
    lo = hi = None
    for meta in info.metadata:
        for bound in ("ge", "gt"):
            lo = getattr(meta, bound, None) if getattr(meta, bound, None) is not None else lo
        for bound in ("le", "lt"):
            hi = getattr(meta, bound, None) if getattr(meta, bound, None) is not None else hi
    ann = info.annotation
    origin = typing.get_origin(ann)
    values: list[str] = [HUGE]
    if ann in (int, float, bool) or origin is typing.Literal:
        values += ["[" * 10_000, "&a [*a, *a]"]
    if ann in (int, float):
        values += ["abc", "[1, 2]", "nan"] + (["1.5"] if ann is int else [])
        values += [str(lo - 1)] if lo is not None else []
        values += [str(hi + 1)] if hi is not None else []
    elif ann is bool:
        values += ["maybe", "2"]
    elif origin is typing.Literal:
        values += ["zz_bogus", "1"]
    elif origin is list and typing.get_origin(typing.get_args(ann)[0]) is typing.Literal:
        values += ["zz_bogus", ","]
    elif ann is str:
        values += ["zz_bogus:/nonexistent", "/" + "[" * 10_000]
    return values


def option_cases() -> list[OptionCase]:
    """Every option case, in a fixed order."""
    return _table_cases() + _output_cases() + SPECIAL + method_option_cases()
