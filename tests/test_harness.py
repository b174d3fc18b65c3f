"""The harness: several systems, helper roles, cross-system stages, repair rounds, the human
system, options and roles validation, `taiwa list`, method help and a lean CLI import."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field

from cli import taiwa_main
from taiwa.benchmarks import get_method
from taiwa.benchmarks.prompts import METHOD as PROMPTS
from taiwa.benchmarks.prompts.dataset import PromptSample
from taiwa.core.errors import TaiwaError
from taiwa.harness.config import RunConfig
from taiwa.harness.demo_spec import Demo
from taiwa.harness.method import Results, Retry, Role, Row, Setup, StageBase, Summary
from taiwa.harness.rundir import default_run_dir
from taiwa.harness.runner import prepare, run
from taiwa.harness.stages import GenerateStage
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, GenerationParams

# ---------------------------------------------------------------------------- a pairwise method


class PairwiseStage(StageBase):
    """For every pair of systems, ask the judge which reply is better ("A" or "B")."""

    def __init__(self, attempts: int) -> None:
        super().__init__(
            name="judge",
            role="judge",
            output="judgments.jsonl",
            attempts=attempts,
            across_systems=True,
        )
        self.params = GenerationParams()

    def requests(self, sample: PromptSample, upstream: Any) -> Sequence[ChatRequest]:
        systems = sorted(upstream)
        return [
            ChatRequest(
                id=f"{sample.id}:{a}|{b}",
                messages=[
                    ChatMessage(
                        role="user",
                        content=f"A: {upstream[a]['generate']['text']}\n"
                        f"B: {upstream[b]['generate']['text']}",
                    )
                ],
                params=self.params,
            )
            for a, b in itertools.combinations(systems, 2)
        ]

    def finish(
        self, sample: PromptSample, upstream: Any, replies: Sequence[ChatResponse]
    ) -> Row | Retry:
        verdicts = [r.text for r in replies]
        if any(v not in ("A", "B") for v in verdicts):
            return Retry(f"expected A or B, got {verdicts}")
        pairs = itertools.combinations(sorted(upstream), 2)
        return {
            "winners": [a if v == "A" else b for (a, b), v in zip(pairs, verdicts, strict=True)]
        }


class PairwiseOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attempts: int = Field(2, ge=1, description="judge rounds per pair")


class PairwiseMethod:
    """A method that exists only in this test: the runner needs no registry line to run it."""

    name = "pairwise-toy"
    seed = "-"
    title = "pairwise wins by a judge"
    takes_systems = True
    roles = (Role("judge", "which reply is better", required=True),)
    options = PairwiseOptions
    prompts: Mapping[str, str] = {}

    def default_data(self) -> Path:
        return PROMPTS.default_data()

    def load(self, path: Path, options: Any) -> list[PromptSample]:
        return PROMPTS.load(path, options)

    def reference(self, sample: PromptSample) -> str | None:
        return sample.reference

    def stages(self, setup: Setup) -> list[Any]:
        return [
            GenerateStage(lambda s: s.chat(), setup.params),
            PairwiseStage(setup.options.attempts),
        ]

    def aggregate(self, samples: Sequence[Any], results: Results, setup: Setup) -> Summary:
        wins = dict.fromkeys(results.systems, 0)
        for row in results.ok("judge"):
            for w in row["winners"]:
                wins[w] += 1
        return Summary({s: {"wins": n} for s, n in wins.items()}, {"wins": wins})

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        return []

    def demo(self) -> Demo:
        """No demo."""
        return Demo()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _judge_file(tmp_path: Path, verdict: str, n: int = 3) -> Path:
    """A replay judge: ``verdict`` for every pair of every sample."""
    systems = sorted(["builtin:parrot", "builtin:fixed", "human"])
    path = tmp_path / "judge.jsonl"
    lines = [
        json.dumps({"id": f"p{i:02d}:{a}|{b}", "text": verdict})
        for i in range(1, n + 1)
        for a, b in itertools.combinations(systems, 2)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _pairwise(tmp_path: Path, verdict: str) -> Any:
    cfg = RunConfig(
        method="pairwise-toy",
        models=["builtin:parrot", "builtin:fixed", "human"],
        roles={"judge": f"replay:{_judge_file(tmp_path, verdict)}"},
        limit=3,
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    return run(cfg, method=PairwiseMethod(), show_progress=False)


def test_cross_system_stage_sees_every_system(tmp_path: Path) -> None:
    res = _pairwise(tmp_path, "A")
    s = res.summary
    # sorted order: builtin:fixed < builtin:parrot < human; "A" always wins
    assert s["across"]["wins"] == {"builtin:parrot": 3, "builtin:fixed": 6, "human": 0}
    assert s["status"] == "ok" and s["failures"] == {"generate": 0, "judge": 0}
    judgments = [
        json.loads(x) for x in (tmp_path / "run" / "judgments.jsonl").read_text().splitlines()
    ]
    assert [j["id"] for j in judgments] == ["p01", "p02", "p03"] and "system" not in judgments[0]
    calls = {(c["role"], c["spec"]): c for c in s["calls"]}
    assert calls[("system", "human")]["calls"] == 3  # the dataset's references, never cached
    assert calls[("judge", next(k[1] for k in calls if k[0] == "judge"))]["requests"] == 9
    responses = [
        json.loads(x) for x in (tmp_path / "run" / "responses.jsonl").read_text().splitlines()
    ]
    human = [r for r in responses if r["system"] == "human"]
    assert human[0]["text"].startswith("納豆ごはん")


def test_invalid_outputs_are_re_asked_then_counted(tmp_path: Path) -> None:
    res = _pairwise(tmp_path, "maybe")
    s = res.summary
    assert s["failures"]["judge"] == 3 and s["status"] == "failures"
    [judge] = [c for c in s["calls"] if c["role"] == "judge"]
    assert (judge["requests"], judge["invalid"], judge["repaired"]) == (18, 3, 0)
    row = next(iter(res.results.rows("judge")))
    assert "invalid output after 2 attempt(s): expected A or B" in row["error"]


def test_roles_and_systems_are_validated_before_any_call(tmp_path: Path) -> None:
    method = PairwiseMethod()
    base = {"method": "pairwise-toy", "out": tmp_path / "o", "cache_dir": tmp_path / "c"}
    cases = [
        ({"models": ["builtin:parrot"]}, "pairwise-toy needs a judge: --role judge=SPEC"),
        ({"models": [], "roles": {"judge": "builtin:parrot"}}, "needs at least one system"),
        (
            {"models": ["builtin:parrot"], "roles": {"judge": "builtin:parrot", "tagger": "x"}},
            "has no role 'tagger' (its roles: judge)",
        ),
        ({"models": ["builtin:parrot", "builtin:parrot"], "roles": {"judge": "demo"}}, "twice"),
        ({"models": ["nope:x"], "roles": {"judge": "demo"}}, "bad model spec 'nope:x'"),
        (
            {"models": ["demo"], "roles": {"judge": "demo"}, "options": {"attempts": "0"}},
            "option 'attempts' of pairwise-toy",
        ),
        (  # pydantic alone would read true as 1
            {"models": ["demo"], "roles": {"judge": "demo"}, "options": {"attempts": "true"}},
            "option 'attempts' of pairwise-toy: takes no true/false (got true)",
        ),
        ({"models": ["demo"], "roles": {"judge": " "}}, "--role judge= is empty"),
    ]
    for over, message in cases:
        with pytest.raises(TaiwaError, match=message.replace("(", r"\(").replace(")", r"\)")):
            prepare(RunConfig.model_validate({**base, **over}), method=method)


def test_default_run_directory_names_what_differs(tmp_path: Path) -> None:
    """Two runs that differ in an option, role, dataset, limit or parameter get two default
    directories (issue 24 point 6); the defaults add nothing, a long name ends in a hash."""
    cohesion, prompts = get_method("cohesion"), get_method("prompts")

    def out(method: Any, **over: Any) -> str:
        return prepare(
            RunConfig.model_validate({"method": method.name, **over}), method
        ).out.as_posix()

    assert out(cohesion) == "runs/cohesion/dialogues"
    assert out(cohesion, options={"distance": "3"}) == "runs/cohesion/dialogues"  # the default
    assert (
        out(cohesion, options={"resource": "vectors:0.7", "distance": "2"})
        == "runs/cohesion/dialogues,distance=2,resource=vectors_0.7"
    )
    assert out(cohesion, options={"conditions": "a,b"}) == "runs/cohesion/dialogues,conditions=a+b"
    p = {"models": ["builtin:parrot"]}
    data = tmp_path / "sub" / "mine.jsonl"
    data.parent.mkdir()
    data.write_text(prompts.default_data().read_text(encoding="utf-8"), encoding="utf-8")
    names = [
        out(prompts, **p),
        out(prompts, **p, limit=2),
        out(prompts, **p, seed=3),
        out(prompts, **p, temperature=0.5, max_tokens=64),
        out(prompts, **p, data=data),
    ]
    assert names == [
        "runs/prompts/builtin_parrot",
        "runs/prompts/builtin_parrot,limit=2",
        "runs/prompts/builtin_parrot,seed=3",
        "runs/prompts/builtin_parrot,max_tokens=64,temperature=0.5",
        "runs/prompts/builtin_parrot,data=mine",
    ]
    many = {f"option_{k}": "value" * 4 for k in range(8)}
    a = default_run_dir("prompts", ["builtin:parrot"], data, many)
    b = default_run_dir("prompts", ["builtin:parrot"], data, {**many, "option_7": "other"})
    assert len(a.name) == len(b.name) == 100 and a != b
    assert a.name.startswith("builtin_parrot,option_0=valuevalue")


def test_several_systems_one_run_directory(tmp_path: Path) -> None:
    cfg = RunConfig(
        method="prompts",
        models=["builtin:parrot", "builtin:fixed", "human"],
        out=tmp_path / "run",
        cache_dir=tmp_path / "c",
    )
    s = run(cfg, get_method(cfg.method), show_progress=False).summary
    assert list(s["systems"]) == ["builtin:parrot", "builtin:fixed", "human"]
    assert s["systems"]["human"]["rouge1"]["value"] == pytest.approx(1.0)
    assert s["systems"]["builtin:parrot"]["rouge1"]["value"] < 1.0
    rows = [json.loads(x) for x in (tmp_path / "run" / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * 8 and {r["system"] for r in rows} == set(s["systems"])
    assert set(s["seconds"]) == {"generate", "score", "item", "aggregate", "comparisons", "total"}


def test_list_and_method_help() -> None:
    r = taiwa_main("list")
    assert r.returncode == 0, r.stderr
    for text in ("da-response", "cohesion", "prompts", "annotator=offline", "distance=3"):
        assert text in r.stdout
    r = taiwa_main("run", "cohesion", "--help")
    assert r.returncode == 0 and "conditions" in r.stdout and "human_systems" in r.stdout
    r = taiwa_main("run", "da-response", "-m", "builtin:fixed", "-o", "annotator_attempts=x")
    assert r.returncode == 2 and "option 'annotator_attempts' of da-response" in r.stderr


def test_cli_imports_no_heavy_library() -> None:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import taiwa.cli.app"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in out.splitlines()}
    heavy = {"torch", "transformers", "scipy", "nltk", "openai", "duckdb", "pyspark"}
    heavy |= {"llama_cpp", "fugashi", "numpy", "aiohttp"}
    assert not loaded & heavy
