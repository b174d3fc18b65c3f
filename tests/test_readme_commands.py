"""Every README shell command that runs offline runs verbatim, in order, in a fresh directory
(issue 24, "Done when"). The commands are read from the README's ```bash blocks; each is either
run through the real CLI or listed in :data:`NOT_RUN` with the reason, so a new README command
is either run here or consciously left out. The commands that call the demo LLM are the slow
part: they run in their own test, marked ``slow`` (still part of ``make test``)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

NOT_RUN: dict[str, str] = {
    "taiwa run chitchat -m openai:gpt-4o-mini --judge openai:gpt-4o --price gpt-4o-mini=0.15,0.60 "
    "--price gpt-4o=2.50,10": "network",
    "taiwa run chitchat -m openai:gpt-4o-mini --prices prices.yaml": "network; the user's prices",
    "taiwa validate tagger --tagger openai:gpt-4o-mini --json tagger.json": "network",
    "taiwa run da-distribution -m openai:a --tagger openai:gpt-4o-mini": "network",
    "taiwa run da-distribution -m openai:a --tagger runs/my-bert -o tagger_validation=gold.jsonl": (
        "network; the user's tagger and gold file"
    ),
    "D=src/taiwa/data/samples/da_distribution": "a shell variable for the walk-through below",
    "taiwa da train --data $D/chatstyle_train.jsonl --out my-tagger": (
        "the training walk-through (minutes of CPU): tests/test_da_classifier_own.py runs it"
    ),
    "taiwa validate tagger --tagger my-tagger --data $D/chatstyle_heldout.jsonl "
    "--json report.json": (
        "the tagger trained in the walk-through: tests/test_da_classifier_own.py runs it"
    ),
    "taiwa run da-distribution -m openai:my-model --tagger my-tagger": "network",
    "taiwa compare runs/intent/a runs/intent/b [--baseline SYSTEM] [--json out.json]": (
        "[...] optional-flag notation; placeholder run directories"
    ),
    "taiwa leaderboard runs/ [--baseline human]": "[...] optional-flag notation",
    "make demo": "make: creates .venv and installs packages (the entry point, not a command)",
    "make test": "make: runs this suite",
    "taiwa run da-response -m openai:gpt-4o-mini --annotator openai:gpt-4o-mini": "network",
    "taiwa run da-response -m openai:qwen --base-url http://127.0.0.1:8000/v1": "needs a server",
    "taiwa run da-response -m replay:my_replies.jsonl --role annotator=replay:my_da.jsonl": (
        "the user's files my_replies.jsonl, my_da.jsonl"
    ),
    "taiwa run prompts -m gguf:/models/my.gguf --data my_prompts.jsonl": (
        "the user's GGUF model and my_prompts.jsonl"
    ),
    "taiwa run da-response --config run.yaml": "the user's run.yaml",
    "taiwa validate annotator --annotator openai:gpt-4o-mini --data my_gold.jsonl "
    "--json report.json": "network; the user's my_gold.jsonl",
    "taiwa build audio --data items.jsonl --out audio/": "the user's items.jsonl",
    "taiwa run da-response --input-mode audio --data audio/items.jsonl "
    "--model openai:gpt-4o-audio-preview --model cascade:whisper-base+demo": (
        "network (an audio chat model); the WAVs of the previous command"
    ),
    "taiwa build chitchat --corpus my_chats.jsonl --out tasks.jsonl --seed 0": (
        "the user's my_chats.jsonl"
    ),
    "taiwa run chitchat -m openai:a -m openai:b -m human --judge openai:judge "
    "-o human_ranks=ranks.jsonl": "network; the user's ranks.jsonl",
    "taiwa run da-distribution -m openai:a -m openai:b --data contexts.jsonl "
    "--tagger votes:votes.jsonl": "network; the user's contexts.jsonl, votes.jsonl",
    "taiwa run da-distribution -m openai:a --tagger runs/my-bert": (
        "network; a `taiwa da train` output"
    ),
    "taiwa run cohesion --data mine.jsonl -o resource=vectors:0.65 -o distance=3 "
    "[-o strict=true]": "the user's mine.jsonl; [...] marks an optional flag",
    "taiwa build calibrate-cohesion --dialogues mine.jsonl": "the user's mine.jsonl",
    "taiwa build cooccurrence corpus.txt.gz --out pairs.parquet --llr-threshold 10": (
        "the user's corpus"
    ),
    "taiwa build cooccurrence corpus/ --out pairs.parquet --window 7 --exclude-top-k 100": (
        "the user's corpus"
    ),
    "taiwa build cooccurrence 1gms/ 7gms/ --kind ngrams --sentences 20000000000 "
    "--llr-threshold 10000 --exclude-top-k 100 --out web-pairs.parquet": "the user's Web 1T",
    "taiwa run cohesion -o resource=pairs.parquet -o strict=true": (
        "pairs.parquet from the user's corpus (previous commands)"
    ),
    "taiwa run intent -m openai:a -m openai:b --data items.jsonl": (
        "network; the user's items.jsonl"
    ),
    "taiwa build intent --corpus dialogues.jsonl -m SPEC --out build/ [--filter llm|manual]": (
        "the user's corpus and model (SPEC); [...] marks an optional flag"
    ),
    "taiwa build intent-import build/ --out items.jsonl --seed 0": (
        "sheets the annotators filled in by hand"
    ),
    "taiwa report runs/chitchat/openai_a+openai_b+human,human_ranks=ranks.jsonl,"
    "judge=openai_judge [more run dirs ...] [--out report.html]": (
        "the run of the network chitchat command above; [...] marks optional arguments"
    ),
    "taiwa report runs/demo": "runs/demo is written by `make demo` (taiwa demo)",
    "taiwa score wed --pred replies_da.jsonl --gold dataset.jsonl [--json out.json]": (
        "the user's files; [...] marks an optional flag"
    ),
    "taiwa score wlcs --pred replies_da.jsonl --gold dataset.jsonl": "the user's files",
    "taiwa score dae tagged.jsonl": "the user's tagged.jsonl",
    "taiwa score dami tagged.jsonl --lift": "the user's tagged.jsonl",
    "taiwa score rouge --pred replies.jsonl --ref references.jsonl": "the user's files",
}
"""README commands not run here, each with why (a network, a server, the user's own files)."""

SPEED = "speed benchmark run from the repository: minutes of CPU each (`make bench`)"
SPARK = "spark-submit on a YARN cluster"

DEMO_LLM = re.compile(r"(?:-m|--model|--models)[ =](?:\S*,)?demo\b")
"""Commands that call the embedded demo LLM (slow on a small CPU)."""


def readme_commands(text: str) -> list[str]:
    """The shell commands of the README's ```bash blocks, in order: comments dropped,
    continuation lines joined, runs of spaces squeezed."""
    out: list[str] = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, flags=re.S | re.M):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            command = _without_comment(line).strip()
            if command:
                out.append(re.sub(r"\s+", " ", command))
    return out


def _without_comment(line: str) -> str:
    """``line`` up to a ``#`` that starts a comment (outside quotes, after a space)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def reason_not_run(command: str) -> str | None:
    if command.startswith(".venv/bin/python benchmarks/"):
        return SPEED
    if "spark-submit" in command:
        return SPARK
    return NOT_RUN.get(command)


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))


def test_every_readme_command_is_run_or_listed() -> None:
    """A README command is run below or listed in NOT_RUN; a NOT_RUN entry the README no
    longer has is an error (the list stays the README's)."""
    assert len(COMMANDS) >= 40
    stale = set(NOT_RUN) - set(COMMANDS)
    assert not stale, f"NOT_RUN names commands the README no longer has: {sorted(stale)}"
    run = [c for c in COMMANDS if reason_not_run(c) is None]
    assert all(c.startswith("taiwa ") for c in run), run
    assert "taiwa run cohesion" in run and "taiwa list" in run


def _run_in_order(tmp: Path, commands: list[str], *, fresh_cache: bool) -> None:
    """``commands`` through the real CLI in one fresh directory.

    ``fresh_cache``: with a fresh response cache (every reply computed as on a new machine).
    Only content-keyed files are the session's: the joined, checked model files (``models/``,
    as conftest.py shares them; joining and hashing the demo GGUF again tests nothing new:
    tests/test_llama_backend.py checks the join) and the fitted char-n-gram baseline
    (``taggers/``: the session fits it once, in whichever `taiwa validate tagger` comes first).
    Otherwise the session's cache (``TAIWA_CACHE_DIR``, as conftest.py sets it)."""
    from taiwa.models.cache import default_cache_dir

    cache = default_cache_dir()
    if fresh_cache:
        (tmp / "cache").mkdir()
        for shared in ("models", "taggers"):
            (default_cache_dir() / shared).mkdir(exist_ok=True)
            (tmp / "cache" / shared).symlink_to(
                (default_cache_dir() / shared).resolve(), target_is_directory=True
            )
        cache = tmp / "cache"
    env = {
        **os.environ,
        "COLUMNS": "80",
        "TAIWA_CACHE_DIR": str(cache),
        "PYTHONPATH": os.pathsep.join(
            p
            for p in (
                str(Path(__file__).resolve().parents[1] / "src"),
                os.environ.get("PYTHONPATH"),
            )
            if p
        ),
    }
    work = tmp / "fresh"
    work.mkdir()
    for command in commands:
        args = shlex.split(command)
        r = subprocess.run(
            [sys.executable, "-m", "taiwa", *args[1:]],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=3600,
        )
        assert r.returncode == 0, f"`{command}` exited {r.returncode}:\n{r.stderr[-2000:]}"
        assert "Traceback" not in r.stderr, command


def test_offline_readme_commands_run_verbatim_in_order(tmp_path: Path) -> None:
    """The README's offline commands that need no LLM, verbatim and in the README's order, in
    one fresh directory (so a default run directory of one command never collides with the
    next: issue 24 point 6)."""
    commands = [c for c in COMMANDS if reason_not_run(c) is None and not DEMO_LLM.search(c)]
    assert len(commands) >= 8
    _run_in_order(tmp_path, commands, fresh_cache=True)
    runs = sorted(
        p.parent.relative_to(tmp_path / "fresh").as_posix()
        for p in (tmp_path / "fresh").rglob("summary.json")
    )
    assert "runs/cohesion/dialogues" in runs
    assert "runs/cohesion/dialogues,distance=2,resource=vectors_0.7" in runs
    assert "runs/cohesion/dialogues,conditions=a+b" in runs
    assert (tmp_path / "fresh" / "runs" / "leaderboard.md").is_file()


@pytest.mark.slow
@pytest.mark.timeout(7200)  # the demo LLM on every bundled set (its replies cached once)
def test_all_runnable_readme_commands_run_verbatim_in_order(tmp_path: Path) -> None:
    """Every runnable README command, those calling the embedded demo LLM included, in the
    README's order in one fresh directory, with the session's response cache: conftest.py
    runs this test right after `taiwa demo`'s (tests/test_cli.py), on the same worker, so the
    demo-LLM requests the demo made cold (its da-response, da-distribution and intent runs use
    `taiwa run`'s defaults and the README's items; the README's ROUGE-only chitchat command asks
    what the demo's judged chitchat run asked) are answered from the cache, as a user's are
    after `make demo` (tests/test_demo_spec.py checks that the README asks what the demo
    asked)."""
    commands = [c for c in COMMANDS if reason_not_run(c) is None]
    assert sum(bool(DEMO_LLM.search(c)) for c in commands) >= 5
    _run_in_order(tmp_path, commands, fresh_cache=False)
