"""Built-in baselines: parrot (seed 002), ELIZA-style (seed 003 spirit) and a fixed script;
the concurrency limit every backend shares (:class:`ConcurrentModel`)."""

from __future__ import annotations

import asyncio
import re

import pytest

from taiwa.core.errors import TaiwaError
from taiwa.models import ChatMessage, ChatRequest, GenerationParams, load_model
from taiwa.models.base import ConcurrentModel
from taiwa.models.builtin import eliza_reply, eliza_rules
from taiwa.models.types import ChatResponse


def _req(*turns: str, seed: int = 0, rid: str = "x") -> ChatRequest:
    roles = ["user", "assistant"]
    msgs = [ChatMessage(role=roles[i % 2], content=t) for i, t in enumerate(turns)]  # type: ignore[arg-type]
    return ChatRequest(id=rid, messages=msgs, params=GenerationParams(seed=seed))


def _reply(spec: str, req: ChatRequest) -> str:
    [res] = asyncio.run(load_model(spec).generate([req]))
    assert res.ok, res.error
    return res.text or ""


def test_parrot_returns_last_user_utterance() -> None:
    assert (
        _reply("builtin:parrot", _req("昨日は雨だった", "そうなんだ", "今日は晴れたね"))
        == "今日は晴れたね"
    )


def test_fixed_follows_its_script_whatever_the_input() -> None:
    a = _reply("builtin:fixed", _req("こんにちは"))
    b = _reply("builtin:fixed", _req("全然ちがう話"))
    c = _reply("builtin:fixed", _req("こんにちは", a, "それで？"))
    assert a == b and c != a


def test_eliza_rules_are_well_formed() -> None:
    rules, fallbacks = eliza_rules()
    assert len(rules) >= 30 and len(fallbacks) >= 10
    for rule in rules:
        for template in rule.responses:
            used = {int(n) for n in re.findall(r"\{(\d+)\}", template)}
            assert all(n <= rule.pattern.groups for n in used), (rule.pattern.pattern, template)


def test_eliza_reflects_and_is_deterministic() -> None:
    reply = eliza_reply("猫が好きなんだよね")
    assert "猫" in reply
    assert eliza_reply("猫が好きなんだよね") == reply
    replies = {eliza_reply("こんにちは", seed=s) for s in range(20)}
    assert len(replies) > 1  # the seed picks among a rule's alternatives
    assert eliza_reply("ｇｘｑｚ") in eliza_rules()[1]  # no rule matches → a fallback


def test_eliza_through_the_model_interface() -> None:
    assert "上司" in _reply("builtin:eliza", _req("仕事で上司に怒られちゃった"))


def test_unknown_builtin() -> None:
    with pytest.raises(TaiwaError, match="parrot, eliza, fixed"):
        load_model("builtin:shakespeare")


class _Slow(ConcurrentModel):
    """Counts the requests in flight at once."""

    backend = model_id = identity = "slow"

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self.now = self.peak = 0

    async def _complete(self, request: ChatRequest) -> str:
        self.now += 1
        self.peak = max(self.peak, self.now)
        await asyncio.sleep(0.01)
        self.now -= 1
        return request.id


def test_concurrency_is_a_limit_per_model_not_per_call() -> None:
    """Several stages calling one model at once (one judge for every system's lane) share its
    limit; each call still gets every reply, in order."""
    model = _Slow(concurrency=4)

    async def main() -> list[list[ChatResponse]]:
        batches = [
            [ChatRequest(id=f"{k}-{i}", messages=[ChatMessage(role="user", content="x")])
             for i in range(20)]
            for k in range(3)
        ]  # fmt: skip
        return await asyncio.gather(*(model.generate(b) for b in batches))

    out = asyncio.run(main())
    assert model.peak == 4
    assert [r.text for r in out[2]] == [f"2-{i}" for i in range(20)]
    asyncio.run(main())  # a new event loop gets a new limit
    assert model.peak == 4
