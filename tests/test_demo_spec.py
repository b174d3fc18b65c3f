"""Demos as data (issue 28): a method declares what its ``taiwa demo`` section runs, and the demo
(the CLI floor) runs it through the runner, step by step, in the declared order."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from rich.console import Console

from taiwa.benchmarks import get_method, method_names
from taiwa.benchmarks.prompts import PromptsMethod
from taiwa.cli.demo import method_demo, run_config
from taiwa.core.errors import TaiwaError
from taiwa.harness.config import RunConfig
from taiwa.harness.demo_spec import Demo, DemoRun, DemoStep, Lines, RunOutcome, one_run


@pytest.mark.parametrize("name", method_names())
def test_every_method_declares_runs_that_taiwa_run_accepts(name: str, tmp_path: Path) -> None:
    method = get_method(name)
    demo = method.demo()
    assert isinstance(demo, Demo) and demo.steps
    runs = [r for step in demo.steps for r in step.runs]
    assert runs, f"{name}: a demo without a run"
    for r in runs:
        cfg = run_config(method.name, r, tmp_path)
        assert cfg.method == name and cfg.out is not None
        assert cfg.out.is_relative_to(tmp_path)
        assert bool(cfg.models) == method.takes_systems
        method.options.model_validate(cfg.options)  # a typo in an option fails here
        assert set(cfg.roles) <= {role.name for role in method.roles}
        assert cfg.data is None or cfg.data.is_relative_to(tmp_path)


def test_run_config_keeps_the_defaults_it_is_not_given(tmp_path: Path) -> None:
    cfg = run_config("prompts", DemoRun("p", systems=("builtin:parrot",)), tmp_path)
    assert cfg.max_tokens == 512 and cfg.limit is None and cfg.data is None
    given = DemoRun("p", data=Path("made/items.jsonl"), limit=3, max_tokens=7)
    cfg = run_config("prompts", given, tmp_path)
    assert (cfg.data, cfg.limit, cfg.max_tokens) == (tmp_path / "made/items.jsonl", 3, 7)
    assert cfg.out == tmp_path / "p"


class _Declared(PromptsMethod):
    """The prompts method with a demo of two steps: a file prepared, then read by a run."""

    def demo(self) -> Demo:
        def prepare(out: Path) -> Lines:
            path = out / "prepared" / "items.jsonl"
            path.parent.mkdir(parents=True)
            rows = [{"id": "q1", "prompt": "今日の夕飯、何にしようかな。"}]
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            return ["prepared one item"]

        def joined(outcomes: Sequence[RunOutcome]) -> Lines:
            return [f"after: {[o.summary['n_samples'] for o in outcomes]}"]

        return Demo(
            [
                DemoStep(
                    [DemoRun("first", systems=("builtin:parrot",), limit=2, show="nothing")],
                    before=lambda out: ["first step"],
                ),
                DemoStep(
                    [
                        DemoRun(
                            "second",
                            systems=("builtin:eliza",),
                            data=Path("prepared/items.jsonl"),
                            progress=False,
                            show="tables",
                        )
                    ],
                    before=prepare,
                    status="preparing …",
                    after=joined,
                ),
            ]
        )


def test_method_demo_runs_the_steps_in_order(tmp_path: Path) -> None:
    console = Console(file=io.StringIO(), width=120, record=True)
    method_demo(_Declared(), console, tmp_path)
    text = console.export_text()
    order = ["first step", "prepared one item", "prompts", "after: [1]"]
    at = [text.find(s) for s in order]
    assert -1 not in at and at == sorted(at), text
    first = json.loads((tmp_path / "first" / "summary.json").read_text(encoding="utf-8"))
    assert first["n_samples"] == 2 and first["status"] == "ok"
    config = json.loads((tmp_path / "second" / "config.json").read_text(encoding="utf-8"))
    assert Path(config["config"]["data"]) == tmp_path / "prepared" / "items.jsonl"
    assert config["systems"] == ["builtin:eliza"]


def test_a_second_demo_replaces_an_earlier_demos_other_run(tmp_path: Path) -> None:
    """After an update that changes a demo's settings or inputs, `taiwa demo` runs again over
    its own earlier run directories (it has no --overwrite to pass), but never over files
    taiwa did not write."""
    console = Console(file=io.StringIO(), width=120, record=True)

    class Earlier(PromptsMethod):
        def demo(self) -> Demo:
            return one_run(DemoRun("p", systems=("builtin:parrot",), limit=1, show="nothing"))

    class Later(PromptsMethod):
        def demo(self) -> Demo:
            return one_run(DemoRun("p", systems=("builtin:parrot",), limit=2, show="nothing"))

    method_demo(Earlier(), console, tmp_path)
    method_demo(Later(), console, tmp_path)
    summary = json.loads((tmp_path / "p" / "summary.json").read_text(encoding="utf-8"))
    assert summary["n_samples"] == 2
    foreign = tmp_path / "q"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine", encoding="utf-8")

    class Elsewhere(PromptsMethod):
        def demo(self) -> Demo:
            return one_run(DemoRun("q", systems=("builtin:parrot",), limit=1, show="nothing"))

    with pytest.raises(TaiwaError, match="holds no taiwa run"):
        method_demo(Elsewhere(), console, tmp_path)
    assert (foreign / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_one_run_prints_its_note_from_the_outcome(tmp_path: Path) -> None:
    class Noted(PromptsMethod):
        def demo(self) -> Demo:
            run = DemoRun("noted", systems=("builtin:parrot",), limit=1, progress=False)
            return one_run(run, lambda res: [f"note on {res.run_dir.name}"])

    console = Console(file=io.StringIO(), width=120, record=True)
    method_demo(Noted(), console, tmp_path)
    text = console.export_text()
    # show="result": the tables, then where the run went (as `taiwa run` prints), then the note
    assert text.index("prompts") < text.index(f"{tmp_path / 'noted'}") < text.index("note on")


@pytest.mark.parametrize("name", ["da-response", "da-distribution", "intent"])
def test_the_readme_demo_llm_commands_ask_what_the_demo_asked(name: str, tmp_path: Path) -> None:
    """The README's ``taiwa run NAME ... demo ... --limit N`` commands ask the demo LLM for
    replies the demo's own run of NAME already got: the same bundled data, ``taiwa run``'s
    generation defaults, and at least N items. So after ``make demo`` they are answered from
    the cache, and the README walk (tests/test_readme_commands.py, run after the demo test on
    the same worker) computes none of them again."""
    import re

    from test_readme_commands import COMMANDS, DEMO_LLM, reason_not_run

    method = get_method(name)
    [cfg] = [
        cfg
        for step in method.demo().steps
        for r in step.runs
        if "demo" in (cfg := run_config(name, r, tmp_path)).models
    ]
    defaults = RunConfig(method=name)
    assert cfg.data is None and cfg.params == defaults.params and cfg.limit is not None
    readme = [
        c
        for c in COMMANDS
        if c.startswith(f"taiwa run {name} ") and DEMO_LLM.search(c) and reason_not_run(c) is None
    ]
    assert readme, f"no README command runs {name} with the demo LLM"
    for command in readme:
        flags = set(re.findall(r"--[a-z-]+|-o\b", command))
        assert flags <= {"--model", "--models", "--limit", "--baseline"}, command
        limit = re.search(r"--limit (\d+)", command)
        assert limit is not None and int(limit.group(1)) <= cfg.limit, command


def test_the_readme_chitchat_demo_command_asks_what_the_demo_asked(tmp_path: Path) -> None:
    """The README's ROUGE-only ``taiwa run chitchat ... -m demo`` asks the demo LLM what the
    demo's judged chitchat run asked: the same bundled tasks, at most its items per task type,
    its generation parameters (its ``--max-tokens``, the other defaults), so after ``make demo``
    the README walk finds every demo reply in the cache (issue 29 point 6: computed there, its
    replies at 512 tokens were 140 CPU s of the walk's 160)."""
    import re

    from test_readme_commands import COMMANDS, DEMO_LLM, reason_not_run

    [demo_cfg] = [
        cfg
        for step in get_method("chitchat").demo().steps
        for r in step.runs
        if "demo" in (cfg := run_config("chitchat", r, tmp_path)).models
    ]
    assert demo_cfg.data is None and demo_cfg.limit is None
    readme = [
        c
        for c in COMMANDS
        if c.startswith("taiwa run chitchat ") and DEMO_LLM.search(c) and reason_not_run(c) is None
    ]
    assert readme, "no README command runs chitchat with the demo LLM"
    for command in readme:
        flags = set(re.findall(r"--[a-z-]+|-o\b", command))
        assert flags <= {"--model", "--models", "-o", "--max-tokens"}, command
        options = dict(re.findall(r"-o (\w+)=(\S+)", command))
        assert set(options) == {"per_task"}, command
        assert int(options["per_task"]) <= demo_cfg.options["per_task"], command
        max_tokens = re.search(r"--max-tokens (\d+)", command)
        assert max_tokens is not None, command
        cfg = RunConfig(method="chitchat", max_tokens=int(max_tokens.group(1)))
        assert cfg.params == demo_cfg.params, command
