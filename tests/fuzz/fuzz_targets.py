"""The files the CLI reads, one fuzz target each: the command that reads the file and a valid
input (records, a YAML document or text lines) for :mod:`fuzz_mutations` to break.

A new loader adds one :class:`~fuzz_mutations.RecordTarget` (or YAML / lines target) here.
Every command runs offline: ``builtin:parrot`` systems (and judge), the ``offline`` annotator,
replay files, and a cache and run directory inside the variant's own directory.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from fuzz_mutations import LinesTarget, RecordTarget, YamlTarget

from taiwa.benchmarks.chitchat.corpus import MAX_ID_CHARS
from taiwa.core.samples import sample_path

GOLD = sample_path("da_response/gold.jsonl")
PRED = sample_path("da_response/pred.jsonl")
TAGS = sample_path("chitchat_da/replies.jsonl")
ROUGE_PRED = sample_path("rouge/pred.jsonl")
ROUGE_REF = sample_path("rouge/ref.jsonl")
PROMPTS = sample_path("prompts/tiny.jsonl")
DIALOGUES = sample_path("cohesion/dialogues.jsonl")
SCENARIOS = sample_path("da_response/scenarios.txt")
CHITCHAT_TASKS = sample_path("chitchat/tasks.jsonl")
DD_CONTEXTS = sample_path("da_distribution/contexts.jsonl")
INTENT_ITEMS = sample_path("intent/items.jsonl")
CHITCHAT_CORPUS = sample_path("chitchat/corpus.jsonl")

IMPORTANCE = "steps[].importance"


@cache
def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def first(path: Path, n: int) -> Callable[[], list[dict[str, Any]]]:
    """The first ``n`` records of a sample file."""
    return lambda: [dict(r) for r in _records(path)[:n]]


def _tags() -> list[dict[str, Any]]:
    """Six tagged replies of two systems (each system costs a bootstrap)."""
    return [dict(r) for r in _records(TAGS)[:9] if r["system"] in ("human", "parrot")]


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    if not path.exists():
        path.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
        )
    return path


def gold3(work: Path) -> Path:
    """A three-item da-response dataset beside the variant."""
    return _write_jsonl(work / "gold3.jsonl", _records(GOLD)[:3])


def prompts3(work: Path) -> Path:
    return _write_jsonl(work / "prompts3.jsonl", _records(PROMPTS)[:3])


def dialogues3(work: Path) -> Path:
    return _write_jsonl(work / "dialogues3.jsonl", _records(DIALOGUES)[:3])


def chitchat_items() -> list[dict[str, Any]]:
    """The first item of each chitchat task type (next utterance, continuation, next speaker)."""
    out: dict[str, dict[str, Any]] = {}
    for rec in _records(CHITCHAT_TASKS):
        out.setdefault(rec["task"], rec)
    return [json.loads(json.dumps(r)) for r in out.values()]


def chitchat3(work: Path) -> Path:
    """Three chitchat items, one per task type, beside the variant."""
    return _write_jsonl(work / "chitchat3.jsonl", chitchat_items())


def _answer(item: dict[str, Any]) -> str:
    """A reply that extracts (and differs from the reference): one line for a single-turn
    item, labelled turns for a continuation."""
    if item["task"] != "continuation":
        return "へえ、そうなんですね！もっと聞かせてください"
    return "\n".join(f"{t['speaker']}: なるほど、いいですね" for t in item["reference"])


def chitchat_answers(work: Path) -> Path:
    """Replies of a ``replay:`` system to :func:`chitchat3`'s items (ids of the valid items)."""
    rows = [{"id": r["id"], "text": _answer(r)} for r in chitchat_items()]
    return _write_jsonl(work / "answers.jsonl", rows)


CHITCHAT_SYSTEMS = ("builtin:parrot", "human")
"""The systems of a chitchat run: the parrot (whose replies never extract: missing answers)
and the references."""


def run_chitchat(data: Path, work: Path, *extra: str) -> list[str]:
    """``taiwa run chitchat`` of :data:`CHITCHAT_SYSTEMS` on ``data``."""
    systems = [a for s in CHITCHAT_SYSTEMS for a in ("-m", s)]
    return ["run", "chitchat", *systems, "--data", str(data), *run_flags(work), *extra]


def run_chitchat_judged(data: Path, work: Path, *extra: str) -> list[str]:
    """``taiwa run chitchat`` judged by the parrot (which echoes the judge prompt, whose
    examples parse as verdicts after a repair round) on the references and a replay system,
    both of which answer, so that single and pairwise judging run."""
    answers = chitchat_answers(work)
    return [
        "run", "chitchat", "-m", "human", "-m", f"replay:{answers.name}",
        "--judge", "builtin:parrot", "--data", str(data), *run_flags(work), *extra,
    ]  # fmt: skip


def _rankings() -> list[dict[str, Any]]:
    """One annotator's rankings of :data:`CHITCHAT_SYSTEMS` on :func:`chitchat3`'s items."""
    orders = ({"human": 1, "builtin:parrot": 2}, {"builtin:parrot": 1, "human": 2})
    return [
        {"id": r["id"], "annotator": "評価者A", "ranks": dict(orders[k % 2])}
        for k, r in enumerate(chitchat_items())
    ]


def _wide_rankings() -> list[dict[str, Any]]:
    """:func:`_rankings` with one column per system (the CSV layout)."""
    return [{"id": r["id"], "annotator": r["annotator"], **r["ranks"]} for r in _rankings()]


def _chitchat_dialogues() -> list[dict[str, Any]]:
    """A 2-speaker and a 3-speaker chat of the bundled corpus."""
    recs = _records(CHITCHAT_CORPUS)
    two = next(r for r in recs if r["meta"]["speakers"] == 2)
    three = next(r for r in recs if r["meta"]["speakers"] == 3)
    return [json.loads(json.dumps(r)) for r in (two, three)]


def human_ranks_run(p: Path, w: Path) -> list[str]:
    """A single-judged chitchat run reading the human rankings ``p`` (the judge's agreement
    with them is computed over items)."""
    judge = ["--judge", "builtin:parrot", "-o", "judge_modes=single"]
    return run_chitchat(chitchat3(w), w, *judge, "-o", f"human_ranks={p}")


def run_flags(work: Path) -> list[str]:
    """Where a run writes: its own run directory and cache, no progress bars."""
    return ["--out", str(work / "run"), "--cache-dir", str(work / "cache"), "-q"]


def run_da_response(data: Path, annotator: str, work: Path) -> list[str]:
    """``taiwa run da-response`` of the parrot on ``data`` with ``annotator``."""
    system = ["-m", "builtin:parrot", "--annotator", annotator]
    return ["run", "da-response", *system, "--data", str(data), *run_flags(work)]


def item_replies(work: Path) -> Path:
    """Replies of a ``replay:`` model for ``taiwa build da-response``: one valid seed 000 item
    (as JSON text) per request id ``gen0001`` ..., each with its own user utterance."""
    items = []
    for k, rec in enumerate(_records(GOLD)[:20], start=1):
        body = {key: v for key, v in rec.items() if key != "id"}
        items.append({"id": f"gen{k:04d}", "text": json.dumps(body, ensure_ascii=False)})
    return _write_jsonl(work / "item_replies.jsonl", items)


def dd_items() -> list[dict[str, Any]]:
    """Three da-distribution contexts, one of them with history."""
    recs = _records(DD_CONTEXTS)
    plain = [r for r in recs if not r["history"]][:2]
    with_history = next(r for r in recs if r["history"])
    return [json.loads(json.dumps(r)) for r in [*plain, with_history]]


def dd3(work: Path) -> Path:
    return _write_jsonl(work / "dd3.jsonl", dd_items())


def run_dd(data: Path, work: Path, *extra: str) -> list[str]:
    """``taiwa run da-distribution`` of the parrot and the human replies on ``data``."""
    systems = ["-m", "builtin:parrot", "-m", "human"]
    return ["run", "da-distribution", *systems, "--data", str(data), *run_flags(work), *extra]


def _dd_votes() -> list[dict[str, Any]]:
    """Crowd votes on the parrot's replies to :func:`dd3`'s contexts: two ballots each."""
    return [
        {"id": f"{r['id']}/builtin:parrot", "annotator": f"w{k}", "acts": ["うなずき・おうむ返し"]}
        for r in dd_items()
        for k in (1, 2)
    ]


def run_dd_votes(p: Path, w: Path) -> list[str]:
    """The parrot on :func:`dd3`, its replies labelled by the votes in ``p``."""
    data = dd3(w)
    return ["run", "da-distribution", "-m", "builtin:parrot", "--tagger", f"votes:{p}",
            "--data", str(data), *run_flags(w)]  # fmt: skip


def _prompt_records() -> list[dict[str, Any]]:
    chat = {
        "id": "m01",
        "messages": [
            {"role": "system", "content": "あなたは親切なアシスタントです。"},
            {"role": "user", "content": "おすすめの本を一冊教えて。"},
        ],
        "reference": "『銀河鉄道の夜』はいかがですか。",
    }
    return [*first(PROMPTS, 3)(), chat]


def _pair_records() -> list[dict[str, Any]]:
    return [
        {"w1": "ラーメン", "w2": "味噌", "g": 5, "llr": 12.5},
        {"w1": "寒い", "w2": "温かい", "g": 3, "llr": 11.0},
        {"w1": "布団", "w2": "寒い", "g": 4, "llr": 10.5},
    ]


def _replies_for_prompts() -> list[dict[str, Any]]:
    return [{"id": r["id"], "text": f"{r['id']} への返事です。"} for r in _records(PROMPTS)]


RECORD_TARGETS: list[RecordTarget] = [
    RecordTarget(
        "score wed --pred",
        lambda p, w: ["score", "wed", "--pred", str(p), "--gold", str(GOLD)],
        first(PRED, 4),
        texts=("text",),
        lists=("steps",),
        numbers=(IMPORTANCE,),
    ),
    RecordTarget(
        "score wlcs --gold",
        lambda p, w: [
            "score",
            "wlcs",
            "--pred",
            str(PRED),
            "--gold",
            str(p),
            "--json",
            str(w / "o.json"),
        ],
        first(GOLD, 4),
        texts=("output.text",),
        lists=("output_dialogue_acts.steps",),
        numbers=("output_dialogue_acts.steps[].importance",),
    ),
    RecordTarget(
        "score dae",
        lambda p, w: ["score", "dae", str(p), "--json", str(w / "o.json")],
        _tags,
        texts=("reply", "context", "system"),
    ),
    RecordTarget(
        "score dami --lift",
        lambda p, w: ["score", "dami", str(p), "--lift"],
        _tags,
        texts=("system",),
        formats=("jsonl",),
        share=0.25,
    ),
    RecordTarget(
        "score rouge --pred",
        lambda p, w: ["score", "rouge", "--pred", str(p), "--ref", str(ROUGE_REF)],
        first(ROUGE_PRED, 4),
        texts=("text",),
    ),
    RecordTarget(
        "score rouge --ref",
        lambda p, w: [
            "score",
            "rouge",
            "--pred",
            str(ROUGE_PRED),
            "--ref",
            str(p),
            "--json",
            str(w / "o.json"),
        ],
        first(ROUGE_REF, 4),
        texts=("text",),
        formats=("jsonl", "csv"),
    ),
    RecordTarget(
        "run prompts --data",
        lambda p, w: ["run", "prompts", "-m", "builtin:parrot", "--data", str(p), *run_flags(w)],
        _prompt_records,
        texts=("prompt", "reference", "system", "messages[].content"),
        lists=("messages",),
        may_fail=True,
    ),
    RecordTarget(
        "run da-response --data",
        lambda p, w: run_da_response(p, "offline", w),
        first(GOLD, 3),
        texts=("input.text", "output.text", "scenario_context.background"),
        lists=("output_dialogue_acts.steps",),
        numbers=("output_dialogue_acts.steps[].importance",),
        may_fail=True,
    ),
    RecordTarget(
        "run cohesion --data",
        lambda p, w: ["run", "cohesion", "--data", str(p), "--out", str(w / "run"), "-q"],
        first(DIALOGUES, 3),
        texts=("utterances[].text", "meta.system"),
        lists=("utterances",),
        free=("meta",),
        may_fail=True,
    ),
    RecordTarget(
        "run prompts --model replay:FILE",
        lambda p, w: ["run", "prompts", "-m", f"replay:{p}", "--data", str(PROMPTS), *run_flags(w)],
        _replies_for_prompts,
        texts=("text",),
        may_fail=True,
    ),
    RecordTarget(
        "run da-response --annotator replay:FILE",
        lambda p, w: run_da_response(gold3(w), f"replay:{p}", w),
        first(PRED, 3),
        texts=("text",),
        lists=("steps",),
        numbers=(IMPORTANCE,),
        may_fail=True,
    ),
    RecordTarget(
        "build calibrate-cohesion --dialogues",
        lambda p, w: ["build", "calibrate-cohesion", "--dialogues", str(p)],
        first(DIALOGUES, 3),
        texts=("utterances[].text",),
        lists=("utterances",),
        free=("meta",),
        formats=("jsonl",),
    ),
    RecordTarget(
        "run cohesion -o resource=PAIRS",
        lambda p, w: [
            "run",
            "cohesion",
            "--data",
            str(dialogues3(w)),
            "-o",
            f"resource={p}",
            "--out",
            str(w / "run"),
            "-q",
        ],
        _pair_records,
        ids=None,
        texts=("w1", "w2"),
        numbers=("llr",),
        formats=("parquet",),
        may_fail=True,
    ),
    RecordTarget(
        "run chitchat --data",
        run_chitchat,
        chitchat_items,
        texts=(
            "context[].lines[]",
            "reference[].lines[]",
            "labels[]",
            "target",
            "context[].speaker",
            "reference[].speaker",
            "dialogue",
            "family",
        ),
        lists=("context", "reference", "labels", "context[].lines", "reference[].lines"),
        numbers=("n_turns", "cut"),
        may_fail=True,
    ),
    RecordTarget(
        "run chitchat --judge builtin:parrot --data",
        run_chitchat_judged,
        chitchat_items,
        texts=("context[].lines[]", "reference[].lines[]", "labels[]", "target"),
        lists=("context", "reference"),
        numbers=("n_turns",),
        may_fail=True,
        share=0.2,
    ),
    RecordTarget(
        "build chitchat --corpus",
        lambda p, w: ["build", "chitchat", "--corpus", str(p), "--out", str(w / "tasks.jsonl")],
        _chitchat_dialogues,
        texts=("utterances[].text", "utterances[].speaker"),
        lists=("utterances",),
        free=("meta",),
        id_chars=MAX_ID_CHARS,
    ),
    RecordTarget(
        "run chitchat -o human_ranks=FILE",
        human_ranks_run,
        _rankings,
        texts=("annotator",),
        numbers=("ranks.human", "ranks.builtin:parrot"),
        may_fail=True,
    ),
    RecordTarget(
        "run chitchat -o human_ranks=FILE (one column per system)",
        human_ranks_run,
        _wide_rankings,
        texts=("annotator",),
        numbers=("human", "builtin:parrot"),
        formats=("csv",),
        may_fail=True,
    ),
    RecordTarget(
        "run da-distribution --data",
        run_dd,
        dd_items,
        texts=("context", "reply", "history[]", "prev_act", "reply_act"),
        may_fail=True,
    ),
    RecordTarget(
        "run da-distribution --tagger votes:FILE",
        run_dd_votes,
        _dd_votes,
        ids=None,
        texts=("annotator", "acts[]"),
        lists=("acts",),
        may_fail=True,
    ),
    RecordTarget(
        "run intent --data",
        lambda p, w: [
            "run",
            "intent",
            "-m",
            "builtin:random",
            "-m",
            "human",
            "--data",
            str(p),
            *run_flags(w),
        ],
        first(INTENT_ITEMS, 3),
        texts=("context", "core", "group", "options[]"),
        lists=("options",),
        numbers=("gold",),
        may_fail=True,
    ),
]


def _run_yaml(work: Path) -> dict[str, Any]:
    return {
        "method": "da-response",
        "models": ["builtin:parrot"],
        "roles": {"annotator": "offline"},
        "options": {"annotator_attempts": 2},
        "data": gold3(work).name if work.exists() else "gold3.jsonl",
        "out": "run",
        "cache-dir": "cache",
        "seed": 0,
        "max-tokens": 64,
        "concurrency": 2,
    }


@cache
def _taxonomy_doc() -> dict[str, Any]:
    import yaml

    text = (Path(str(sample_path("da_response/gold.jsonl"))).parents[2] / "taxonomies").joinpath(
        "assistant7.yaml"
    )
    loaded: dict[str, Any] = yaml.safe_load(text.read_text(encoding="utf-8"))
    return loaded


YAML_TARGETS: list[YamlTarget] = [
    YamlTarget(
        "run --config run.yaml",
        lambda p, w: ["run", "--config", str(p), "-q"],
        _run_yaml,
        also_names=lambda w: (str(w), "method", "option", "role", "model", "spec"),
        may_fail=True,
    ),
    YamlTarget(
        "score wed --taxonomy TAXONOMY.yaml",
        lambda p, w: [
            "score",
            "wed",
            "--pred",
            str(PRED),
            "--gold",
            str(GOLD),
            "--taxonomy",
            str(p),
        ],
        lambda w: json.loads(json.dumps(_taxonomy_doc())),
        also_names=lambda w: (str(PRED), str(GOLD)),
    ),
]


def _scenarios() -> list[str]:
    lines = SCENARIOS.read_text(encoding="utf-8").splitlines()
    return [x for x in lines if x.strip() and not x.startswith("#")][:3]


def _corpus() -> list[str]:
    lines = [
        "今日は寒いので温かいラーメンを食べました。",
        "味噌ラーメンにバターを乗せると美味しい。",
        "寒い朝は布団から出られない。",
    ]
    return lines * 3


def scenarios3(work: Path) -> Path:
    """Three scenario instructions beside the variant."""
    path = work / "scenarios3.txt"
    if not path.exists():
        path.write_text("\n".join(_scenarios()) + "\n", encoding="utf-8")
    return path


LINES_TARGETS: list[LinesTarget] = [
    LinesTarget(
        "build da-response --scenarios",
        lambda p, w: [
            "build",
            "da-response",
            "--scenarios",
            str(p),
            "--model",
            f"replay:{item_replies(w)}",
            "--out",
            str(w / "built.jsonl"),
            "--cache-dir",
            str(w / "cache"),
        ],
        _scenarios,
        key="instruction",
        may_fail=True,
    ),
    LinesTarget(
        "build cooccurrence CORPUS",
        lambda p, w: ["build", "cooccurrence", str(p), "--out", str(w / "pairs.parquet")],
        _corpus,
        comments=False,
        bounded=False,
        dirs=True,
    ),
]
