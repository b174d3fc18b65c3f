"""Pipelined local stages: a stage that calls no model and follows one that does runs on each
sample as soon as that sample's reply is in, while the other requests are still in flight
(runner._run_chunk); its failures, retries and method bugs behave as in a separate pass."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from taiwa.benchmarks.prompts import METHOD as PROMPTS
from taiwa.benchmarks.prompts.dataset import PromptSample
from taiwa.core.errors import EndpointError
from taiwa.harness.config import RunConfig
from taiwa.harness.demo_spec import Demo
from taiwa.harness.method import NoOptions, Results, Retry, Row, Setup, StageBase, Summary
from taiwa.harness.pool import RoleModel
from taiwa.harness.runner import run
from taiwa.harness.stage_run import BUILD_SLICE, FIRST_WAVE_ROUNDS, run_stage
from taiwa.harness.stages import LocalStage
from taiwa.models.base import ConcurrentModel
from taiwa.models.types import ChatMessage, ChatRequest, ChatResponse, GenerationParams


class SlowEcho(ConcurrentModel):
    """Answers ``ok <prompt>`` after a delay that grows with the sample number (p01 first);
    counts the requests still unanswered; answers ``bad`` to the first attempt of ``bad_ids``."""

    backend = "test"
    model_id = "slow-echo"
    identity = "slow-echo"
    cacheable = False

    def __init__(self, bad_ids: Sequence[str] = (), fail_ids: Sequence[str] = ()) -> None:
        self.concurrency = 8
        self.outstanding = 0
        self.bad_ids = set(bad_ids)
        self.fail_ids = set(fail_ids)

    async def generate(
        self, requests: Sequence[ChatRequest], *, on_response: Any = None
    ) -> list[ChatResponse]:
        self.outstanding += len(requests)
        return await super().generate(requests, on_response=on_response)

    async def _complete(self, request: ChatRequest) -> str:
        try:
            await asyncio.sleep(0.05 * int(request.id.removeprefix("p")))
            if request.id in self.fail_ids:
                raise RuntimeError("the server fell over")
            if request.id in self.bad_ids and len(request.messages) == 1:
                return "bad"
            return f"ok {request.messages[0].text}"
        finally:
            self.outstanding -= 1


class Ask(StageBase):
    """The systems answer; an answer not starting with ``ok`` is re-asked once."""

    def __init__(self) -> None:
        super().__init__(name="generate", role="system", output="responses.jsonl", attempts=2)

    def requests(self, sample: PromptSample, upstream: Any) -> Sequence[ChatRequest]:
        msg = ChatMessage(role="user", content=sample.prompt or "")
        return [ChatRequest(id=sample.id, messages=[msg], params=GenerationParams())]

    def finish(
        self, sample: PromptSample, upstream: Any, replies: Sequence[ChatResponse]
    ) -> Row | Retry:
        text = replies[0].text or ""
        return {"text": text} if text.startswith("ok") else Retry("start with ok")


class Toy:
    """generate → score (local): the score row records how many requests were unanswered."""

    name = "pipeline-toy"
    seed = "-"
    title = "pipelining"
    takes_systems = True
    roles = ()
    options = NoOptions
    prompts: Mapping[str, str] = {}

    def __init__(self, model: SlowEcho, explode: str | None = None) -> None:
        self.model = model
        self.explode = explode

    def default_data(self) -> Path:
        return PROMPTS.default_data()

    def load(self, path: Path, options: Any) -> Any:
        return PROMPTS.load(path, options)

    def reference(self, sample: PromptSample) -> str | None:
        return None

    def score(self, sample: PromptSample, upstream: Any) -> Row:
        if sample.id == self.explode:
            raise ValueError("a bug in the method's scorer")
        return {"chars": len(upstream["generate"]["text"]), "unanswered": self.model.outstanding}

    def stages(self, setup: Setup) -> list[Any]:
        return [Ask(), LocalStage("score", self.score, output="scores.jsonl")]

    def aggregate(self, samples: Any, results: Results, setup: Setup) -> Summary:
        return Summary({s: {"scored": len(results.ok("score", s))} for s in results.systems})

    def tables(self, summary: Mapping[str, Any]) -> list[Any]:
        return []

    def demo(self) -> Demo:
        """No demo."""
        return Demo()


def _run(tmp_path: Path, model: SlowEcho, explode: str | None = None) -> Any:
    cfg = RunConfig(
        method="pipeline-toy",
        models=["builtin:parrot"],
        out=tmp_path / "run",
        no_cache=True,
        limit=8,
    )
    return run(
        cfg, method=Toy(model, explode), preloaded={"builtin:parrot": model}, show_progress=False
    )


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_score_runs_while_requests_are_in_flight(tmp_path: Path) -> None:
    res = _run(tmp_path, SlowEcho())
    scores = _rows(tmp_path / "run" / "scores.jsonl")
    assert [r["id"] for r in scores] == [f"p{i:02d}" for i in range(1, 9)]  # sample order kept
    unanswered = [r["unanswered"] for r in scores]
    # p01 answers first: it was scored while the seven slower requests were still out
    assert unanswered[0] == 7 and unanswered[-1] == 0
    assert unanswered == sorted(unanswered, reverse=True)
    assert res.summary["systems"]["builtin:parrot"]["scored"] == 8 and res.failures == 0


def test_failed_and_retried_samples_reach_the_score_stage(tmp_path: Path) -> None:
    res = _run(tmp_path, SlowEcho(bad_ids=["p02"], fail_ids=["p03"]))
    scores = {r["id"]: r for r in _rows(tmp_path / "run" / "scores.jsonl")}
    assert scores["p02"]["chars"] > 0 and scores["p02"]["unanswered"] == 0  # after the re-ask
    assert scores["p03"]["skipped"] is True and "the server fell over" in scores["p03"]["error"]
    responses = {r["id"]: r for r in _rows(tmp_path / "run" / "responses.jsonl")}
    assert responses["p02"]["attempts"] == 2
    assert res.summary["failures"] == {"generate": 1, "score": 0}


def test_a_bug_in_a_pipelined_stage_is_raised_not_lost(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="a bug in the method's scorer"):
        _run(tmp_path, SlowEcho(), explode="p01")


class Shuffled(ConcurrentModel):
    """Answers ``ok <prompt>`` after a random delay (replies come back in any order); the
    first attempt of every seventh sample answers ``bad``."""

    backend = "test"
    model_id = "shuffled"
    identity = "shuffled"
    cacheable = False

    def __init__(self) -> None:
        self.concurrency = 4

    async def _complete(self, request: ChatRequest) -> str:
        await asyncio.sleep(random.Random(request.id).random() * 0.004)
        if int(request.id.removeprefix("p")) % 7 == 0 and len(request.messages) == 1:
            return "bad"
        return f"ok {request.messages[0].text}"


def test_every_reply_reaches_its_own_sample_across_the_waves() -> None:
    """A stage's first wave goes out while the rest is built (stage_run.FIRST_WAVE_ROUNDS);
    replies arriving in any order, from either wave, re-asks included, land on their own
    sample."""
    n = 150
    assert n > FIRST_WAVE_ROUNDS * 4 + BUILD_SLICE  # a first wave and the rest, built in slices
    samples = [PromptSample(id=f"p{i:03d}", prompt=f"質問{i}") for i in range(n)]
    model = RoleModel("system", "shuffled", Shuffled(), None)
    done: list[str] = []
    rows = asyncio.run(
        run_stage(
            Ask(), samples, lambda s: {}, model, lambda x: None, lambda s, r: done.append(s.id)
        )
    )
    assert [r["text"] for r in rows] == [f"ok 質問{i}" for i in range(n)]
    assert [r["attempts"] for r in rows] == [2 if i % 7 == 0 else 1 for i in range(n)]
    assert sorted(done) == [s.id for s in samples]
    assert model.stats.requests == n + len(range(0, n, 7)) and model.stats.repaired == 22


class RefusesTheRest(ConcurrentModel):
    """Answers the first wave's samples (one of them slowly); the endpoint refuses every
    later one."""

    backend = "test"
    model_id = "refuses"
    identity = "refuses"
    cacheable = False

    def __init__(self, first: int) -> None:
        self.concurrency = 2
        self.first = first

    async def _complete(self, request: ChatRequest) -> str:
        if int(request.id.removeprefix("p")) >= self.first:
            raise EndpointError("HTTP 404 from the server: no such model")
        await asyncio.sleep(1.0 if request.id == "p001" else 0.1)  # p001 still in flight
        return f"ok {request.messages[0].text}"


def test_a_refusal_in_the_second_wave_stops_the_stage_with_its_error() -> None:
    """The rest of the chunk fails while the first wave is still in flight: the stage raises
    the endpoint's error (the run's one-line message), never an error of its own."""
    first = FIRST_WAVE_ROUNDS * 2
    samples = [PromptSample(id=f"p{i:03d}", prompt=f"質問{i}") for i in range(first + 20)]
    model = RoleModel("system", "refuses", RefusesTheRest(first), None)
    with pytest.raises(EndpointError, match="HTTP 404"):
        asyncio.run(run_stage(Ask(), samples, lambda s: {}, model, lambda x: None))
