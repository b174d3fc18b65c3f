"""Seed 001's regex post-processing: the reply cut out of a system's raw output.

Seed 001 (補足：正規表現による抜き出しについて) gives the model the prompt up to
``出力:`` / ``ASSISTANT:`` and keeps the text up to the next line that looks like a speaker
label, 「文頭から一定文字数で":"がある行」. Here a *label line* starts (after blanks) with 1 to
:data:`~taiwa.benchmarks.chitchat.dataset.LABEL_CHARS` characters without spaces, colons or
sentence punctuation, then an ASCII or full-width colon not followed by ``//`` or a digit (so
``https://…`` and ``10:30`` are text); and what stands before the colon is one of the item's
labels, or label-like: letters and digits with at least one letter (``USER``, ``S4``,
``ID1234``), or at most :data:`SHORT_LABEL` other characters (``佐藤``, ``Aさん``). So a
sentence such as 「今日のおすすめはこれです：カレー」 stays text. Labels compare after NFKC
and case folding (``ＡＳＳＩＳＴＡＮＴ：`` is ``ASSISTANT:``). A leading echo of the
``出力:`` cue is dropped.

Single-turn tasks (next utterance, next speaker): a leading label of the target speaker is
stripped (models often repeat it); the reply is every non-blank line up to the next label
line. **Failure**: the output is empty, starts with another speaker's label (the system spoke
as someone else), or has no text before the next label.

Continuation: the output is parsed into turns (a label line opens a turn, the lines below it
without a label belong to it; consecutive turns of one speaker merge, as the prompt shows
them; turns without text are dropped) and cut after the requested ``n_turns``. **Success**:
at least one turn, no text before the first label, and every label within the kept turns is
one of the item's labels. Fewer turns than requested is still a success (the row says how
many, ``turns`` against ``n_turns``): the judge sees what was written; more are cut, as the
seed's extraction keeps only the expected part.

A failure is a row like any other (``extracted`` false, empty ``reply``): it scores as a
failure and is never dropped, so the method can count 「正規表現 抜き出し成功」 per system.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from taiwa.benchmarks.chitchat.dataset import (
    LABEL_CHAR,
    LABEL_CHARS,
    ChitchatItem,
    Turn,
    render_turns,
)
from taiwa.text.normalize import nfkc

LABEL_LINE = re.compile(
    rf"^[ \t\u3000]*(?P<label>{LABEL_CHAR}{{1,{LABEL_CHARS}}})[ \t\u3000]*[:：](?![/0-9０-９])"
)
"""A line that starts with a candidate label and a colon (seed 001's regex); see
:func:`label_line` for which candidates count."""

SHORT_LABEL = 4
"""Candidates of at most this many characters count as labels whatever they hold."""

_WORD = re.compile(r"[0-9A-Za-z_\-]*[A-Za-z][0-9A-Za-z_\-]*")

_CUE = re.compile(r"^[ \t\u3000]*出力[ \t\u3000]*[:：][ \t\u3000]*")


@dataclass(frozen=True)
class Extraction:
    """What was cut out of one output: ``reply`` is what a judge reads (the target's lines,
    or labelled turns for a continuation), ``plain`` its lines without labels (for ROUGE)."""

    ok: bool
    reply: str = ""
    plain: str = ""
    turns: tuple[Turn, ...] = ()
    error: str | None = None
    cut: bool = False
    """Whether the output went on past what was kept (another speaker, or extra turns)."""

    def as_row(self, item: ChitchatItem) -> dict[str, Any]:
        """The row fields: ``task``, ``extracted``, ``extraction_error``, ``reply``,
        ``turns`` (kept), ``n_turns`` (requested), ``cut``."""
        return {
            "task": item.task,
            "extracted": self.ok,
            "extraction_error": self.error,
            "reply": self.reply,
            "turns": len(self.turns),
            "n_turns": item.n_turns,
            "cut": self.cut,
        }


def same_label(a: str, b: str) -> bool:
    """Whether two labels name the same speaker (NFKC, case-insensitive)."""
    return nfkc(a).casefold() == nfkc(b).casefold()


def label_line(line: str, labels: Sequence[str]) -> re.Match[str] | None:
    """The label match of ``line`` if it starts with a speaker label (one of ``labels`` or
    label-like, see the module docstring), else ``None``."""
    found = LABEL_LINE.match(line)
    if found is None:
        return None
    label = nfkc(found["label"])
    if len(label) <= SHORT_LABEL or _WORD.fullmatch(label):
        return found
    return found if any(same_label(label, known) for known in labels) else None


def _lines(output: str) -> list[str]:
    """The output's lines, right-stripped, without leading blank lines or a ``出力:`` echo."""
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and (cue := _CUE.match(lines[0])):
        rest = lines[0][cue.end() :]
        lines = ([rest] if rest.strip() else []) + lines[1:]
        while lines and not lines[0].strip():
            lines.pop(0)
    return lines


def _failure(reason: str) -> Extraction:
    return Extraction(ok=False, error=reason)


def extract_reply(item: ChitchatItem, output: str) -> Extraction:
    """The reply of ``output`` for ``item``'s task (see the module docstring)."""
    if item.task == "continuation":
        return _extract_turns(item, output)
    target = item.target or ""
    lines = _lines(output)
    if not lines:
        return _failure("empty output")
    head = label_line(lines[0], item.labels)
    if head:
        if not same_label(head["label"], target):
            return _failure(f"the output starts with another speaker's label {head['label']!r}")
        lines[0] = lines[0][head.end() :]
    body: list[str] = []
    cut = False
    for i, line in enumerate(lines):
        if i and label_line(line, item.labels):
            cut = True
            break
        if line.strip():
            body.append(line.strip())
    if not body:
        return _failure("no text before the next speaker label")
    turn = Turn.model_construct(speaker=target, lines=body)  # output: not re-validated
    return Extraction(True, "\n".join(body), "\n".join(body), (turn,), cut=cut)


def _extract_turns(item: ChitchatItem, output: str) -> Extraction:
    lines = _lines(output)
    if not lines:
        return _failure("empty output")
    segments: list[tuple[str, list[str]]] = []  # (label as written, lines)
    for line in lines:
        label = label_line(line, item.labels)
        if label:
            segments.append((label["label"], []))
            line = line[label.end() :]
        elif not segments:
            return _failure("text before the first speaker label")
        if line.strip():
            segments[-1][1].append(line.strip())
    turns: list[tuple[str, list[str]]] = []
    for written, texts in segments:
        if not texts:
            continue
        canonical = next((lab for lab in item.labels if same_label(lab, written)), written)
        if turns and same_label(turns[-1][0], canonical):
            turns[-1][1].extend(texts)
        else:
            turns.append((canonical, list(texts)))
    if not turns:
        return _failure("no speaker label followed by text")
    kept, cut = turns[: item.n_turns], len(turns) > item.n_turns
    for written, _ in kept:
        if written not in item.labels:
            expected = ", ".join(item.labels)
            return _failure(f"an unknown speaker label {written!r} (expected one of {expected})")
    parsed = tuple(Turn.model_construct(speaker=label, lines=texts) for label, texts in kept)
    plain = "\n".join(line for t in parsed for line in t.lines)
    return Extraction(True, render_turns(parsed), plain, parsed, cut=cut)
