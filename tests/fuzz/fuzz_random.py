"""Random mutations at scale (issue 25): seeded variants over the inputs where the last
tracebacks, hangs and silent accepts were found, any number of them (``random_variants(n)``).

Classes: wrong-typed JSON values at every level of a run directory (``summary.json`` and its
stage files, read by ``taiwa report`` and ``taiwa leaderboard``); records of the loaders
(prompts, ``score rouge`` / ``wed``) with long ids and fields, wrong types, NaN, deep nesting;
``run.yaml`` with wrong-typed values, huge counts and keys given twice; special files (FIFOs,
devices, directories) wherever the CLI reads a path, audio parts included. Every variant must
end without a traceback, a hang or a signal; a refusal is one ``error:`` line naming the file.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

from fuzz_core import Built, Expect, Variant

PROMPTS = [
    {"id": "p1", "prompt": "駅までの道を教えてください。"},
    {"id": "p2", "prompt": "今夜のおかずは何がいいと思いますか。", "reference": "焼き魚はどう？"},
    {"id": "p3", "messages": [{"role": "user", "content": "雨の日の過ごし方を教えて。"}]},
]
TEXTS = [{"id": f"t{i}", "text": t} for i, t in enumerate(["こんにちは", "また明日ね", "了解です"])]
STEPS = [
    {"id": "s1", "steps": [{"act": "質問", "importance": 0.6}, {"act": "提案", "importance": 0.4}]},
    {"id": "s2", "steps": [{"act": "あいさつ", "importance": 1.0}]},
]

_LONG = "長" * 2_000
_HUGE_ID = "x" * 100_000


def _values(rng: random.Random) -> Any:
    """One replacement value: every JSON type, the numbers taiwa never writes, long texts,
    deep nesting, huge counts."""
    pool: list[Any] = [
        [],
        {},
        "x",
        "",
        " ",
        0,
        -1,
        5,
        None,
        True,
        float("nan"),
        float("inf"),
        1e308,
        10**30,
        10**9,
        _LONG,
        _HUGE_ID,
        [[[[[[[[[[1]]]]]]]]]],
        {"value": "x", "n": -1},
        ["a", 1, None],
    ]
    if rng.random() < 0.05:
        return DEEP  # written as JSON nested thousands deep (see _dumps)
    return pool[rng.randrange(len(pool))]


DEEP = "__deeply_nested__"
_DEEP_JSON = "[" * 5_000 + "1" + "]" * 5_000


def json_paths(obj: Any, width: int = 3, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path (keys and indexes) to every value nested in ``obj``, the first ``width``
    items of each list followed."""
    out = [prefix] if prefix else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += json_paths(v, width, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:width]):
            out += json_paths(v, width, (*prefix, i))
    return out


def mutate(obj: Any, rng: random.Random, edits: int = 1) -> Any:
    """``obj`` (a copy) with ``edits`` random edits: a value replaced, a key deleted, an
    unknown key added; at any level."""
    obj = json.loads(json.dumps(obj))
    for _ in range(edits):
        paths = json_paths(obj)
        if not paths:
            return _values(rng)
        path = paths[rng.randrange(len(paths))]
        parent = obj
        for key in path[:-1]:
            parent = parent[key]
        roll = rng.random()
        if roll < 0.75:
            parent[path[-1]] = _values(rng)
        elif roll < 0.9 and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[f"extra_{rng.randrange(100)}"] = _values(rng)
    return obj


def _dumps(obj: Any, indent: int | None = None) -> str:
    """JSON text (NaN written as NaN on purpose; :data:`DEEP` as 5,000 nested arrays)."""
    text = json.dumps(obj, ensure_ascii=False, indent=indent)
    return text.replace(json.dumps(DEEP), _DEEP_JSON)


# ---------------------------------------------------------------------------------- run dirs

_TEMPLATE: dict[str, Path] = {}


def template_run(root: Path) -> Path:
    """A finished prompts run (the parrot on three prompts), made once per process."""
    key = str(root)
    if key not in _TEMPLATE:
        from taiwa.benchmarks import get_method
        from taiwa.harness.config import RunConfig
        from taiwa.harness.runner import run

        base = root / f"template-{os.getpid()}"  # one per worker process
        base.mkdir(parents=True, exist_ok=True)
        data = base / "prompts.jsonl"
        data.write_text("".join(_dumps(r) + "\n" for r in PROMPTS), "utf-8")
        out = base / "run"
        if not (out / "summary.json").exists():
            cfg = RunConfig(
                method="prompts", models=["builtin:parrot", "human"], data=data, out=out,
                no_cache=True,
            )  # fmt: skip
            run(cfg, get_method("prompts"), show_progress=False)
        _TEMPLATE[key] = out
    return _TEMPLATE[key]


def _run_dir_variant(rng: random.Random, w: Path) -> Built:
    run_dir = w / "run"
    shutil.copytree(template_run(w.parent), run_dir)
    files = sorted(p.name for p in run_dir.glob("*.json*") if p.name != "config.json")
    name = files[rng.randrange(len(files))]
    target = run_dir / name
    if name.endswith(".jsonl"):
        rows = [json.loads(x) for x in target.read_text("utf-8").splitlines() if x.strip()]
        k = rng.randrange(len(rows))
        rows[k] = mutate(rows[k], rng, rng.choice((1, 1, 2)))
        target.write_text("".join(_dumps(r) + "\n" for r in rows), "utf-8")
    else:
        obj = json.loads(target.read_text("utf-8"))
        target.write_text(_dumps(mutate(obj, rng, rng.choice((1, 1, 2))), indent=2), "utf-8")
    if rng.random() < 0.5:
        return Built(["report", str(run_dir), "--out", str(w / "r.html")], Expect(names=(str(w),)))
    return Built(["leaderboard", str(w)], Expect(names=(str(w),)))


# ---------------------------------------------------------------------------------- records


def _records_variant(rng: random.Random, w: Path) -> Built:
    kind = rng.choice(("prompts", "rouge", "wed"))
    base = {"prompts": PROMPTS, "rouge": TEXTS, "wed": STEPS}[kind]
    rows = [dict(r) for r in base]
    k = rng.randrange(len(rows))
    rows[k] = mutate(rows[k], rng, rng.choice((1, 2)))
    if rng.random() < 0.1:
        rows.append(dict(rows[0]))  # a repeated id
    data = w / "data.jsonl"
    data.write_text("".join(_dumps(r) + "\n" for r in rows), "utf-8")
    names = (str(data),)
    if kind == "prompts":
        argv = ["run", "prompts", "-m", "builtin:parrot", "--data", str(data)]
        argv += ["--out", str(w / "run"), "--no-cache", "-q"]
        return Built(argv, Expect(names=names, may_fail=True))
    ref = w / "ref.jsonl"
    ref.write_text("".join(_dumps(r) + "\n" for r in base), "utf-8")
    if kind == "rouge":
        return Built(
            ["score", "rouge", "--pred", str(data), "--ref", str(ref)], Expect(names=names)
        )
    return Built(["score", "wed", "--pred", str(data), "--gold", str(ref)], Expect(names=names))


# ---------------------------------------------------------------------------------- run.yaml


def _yaml_variant(rng: random.Random, w: Path) -> Built:
    import yaml

    data = w / "prompts.jsonl"
    data.write_text("".join(_dumps(r) + "\n" for r in PROMPTS), "utf-8")
    doc: dict[str, Any] = {
        "method": "prompts",
        "model": "builtin:parrot",
        "data": str(data),
        "concurrency": 4,
        "limit": 2,
        "max_tokens": 32,
        "max_retries": 1,
        "max_retry_wait": 5,
        "options": {},
    }
    doc = mutate(doc, rng, rng.choice((1, 2)))
    text = yaml.safe_dump(doc, allow_unicode=True) if isinstance(doc, dict) else json.dumps(doc)
    if rng.random() < 0.15:
        text += "model: builtin:eliza\n"  # a key given twice
    config = w / "run.yaml"
    config.write_text(text, "utf-8")
    argv = ["run", "--config", str(config), "--out", str(w / "run"), "--no-cache", "-q"]
    return Built(argv, Expect())  # refused or run; an error may name the data file it points to


# ---------------------------------------------------------------------------------- special files


def _special(w: Path, kind: str) -> Path:
    if kind == "fifo":
        p = w / "special.jsonl"
        os.mkfifo(p)
        return p
    if kind == "directory":
        p = w / "dir.jsonl"
        p.mkdir()
        return p
    if kind == "socket":
        import socket

        p = w / "sock.jsonl"
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(p))
        s.close()
        return p
    return Path("/dev/zero")


def _special_variant(rng: random.Random, w: Path) -> Built:
    kind = rng.choice(("fifo", "directory", "socket", "device"))
    where = rng.choice(("data", "config", "pred", "audio", "run"))
    special = _special(w, kind)
    expect = Expect(refuse=True, names=(str(special), special.name))
    if where == "data":
        argv = ["run", "prompts", "-m", "builtin:parrot", "--data", str(special)]
        return Built([*argv, "--out", str(w / "run"), "--no-cache"], expect)
    if where == "config":
        return Built(["run", "--config", str(special), "--out", str(w / "run")], expect)
    if where == "pred":
        ref = w / "ref.jsonl"
        ref.write_text("".join(_dumps(r) + "\n" for r in TEXTS), "utf-8")
        return Built(["score", "rouge", "--pred", str(special), "--ref", str(ref)], expect)
    if where == "audio":
        part = {"type": "audio", "audio_path": str(special)}
        data = w / "audio.jsonl"
        row = {"id": "a", "messages": [{"role": "user", "content": [part]}]}
        data.write_text(_dumps(row) + "\n", "utf-8")
        argv = ["run", "prompts", "-m", "builtin:parrot", "--data", str(data)]
        return Built([*argv, "--out", str(w / "run"), "--no-cache"], Expect(refuse=True))
    run_dir = w / "run"
    shutil.copytree(template_run(w.parent), run_dir)
    (run_dir / "summary.json").unlink()
    os.mkfifo(run_dir / "summary.json")
    return Built(["report", str(run_dir)], Expect(refuse=True, names=("summary.json",)))


# ---------------------------------------------------------------------------------- the lot

MAKERS = (
    ("run-dir", _run_dir_variant, 4),
    ("records", _records_variant, 3),
    ("run-yaml", _yaml_variant, 2),
    ("special-file", _special_variant, 1),
)
"""(target, builder, weight): run directories get the most variants."""


def random_variants(n: int, seed: int = 25) -> list[Variant]:
    """``n`` seeded random variants over :data:`MAKERS` (the same ``n`` and ``seed``, the
    same variants)."""
    chooser = random.Random(seed)
    weighted = [(name, make) for name, make, weight in MAKERS for _ in range(weight)]
    out = []
    for number in range(n):
        name, make = weighted[chooser.randrange(len(weighted))]
        rng_seed = chooser.randrange(2**32)

        def build(w: Path, make: Any = make, rng_seed: int = rng_seed) -> Built:
            return make(random.Random(rng_seed), w)

        out.append(Variant(f"random-{name}", f"random/{name}", number, build))
    return out
