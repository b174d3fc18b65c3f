"""Sentence-final form features for sentence-by-sentence act tagging (seed 000 §3.2, App. A.2;
issue 26).

Whether a sentence of a reply asks (質問 / 確認質問), suggests, requests or informs is mostly
said by how it ends: 〜ますか, 〜でしょうか, 〜でよろしいですか, 〜しましょうか, 〜てください,
〜ました. Replies write the same ending in many ways: with ？, with 。, with nothing (a speech
assistant's transcript), in plain or polite form. The character n-grams of the whole sentence
see ``か？`` , ``か。`` and ``か`` at the end as different n-grams; this block sees the ending
itself, with the closing punctuation taken off and kept apart as its own small feature:

- the last 1–4 characters of the sentence without its closing punctuation (``sfx2:すか``),
- the kind of closing punctuation (``?``, ``!``, ``.``, or none),
- the last two characters together with that kind (``か|none`` is how a speech transcript
  asks),
- whether an interrogative word (何, どちら, どっち, いつ, どこ, …) occurs, and whether it
  occurs in the last clause (after the last 、),
- the same ending keys of the user's utterance the sentence replies to, marked ``ctx``: an
  answer (回答) follows a question, the same sentence after a request informs or promises,
- optional (``cross``): the sentence's last two characters and its place in the reply, each
  joined with how the user's utterance ends (its closing punctuation and last character), so a
  linear model can tell 〜ました after 〜した？ (an answer) from 〜ました after 〜して (a task
  done: 約束・承諾), and the first sentence after a question (mostly its answer) from the
  first sentence after a request,

hashed (CRC-32 of the key) into ``2**bits`` columns, each present key weighing
``scale / sqrt(number of keys)``. Nothing here is fitted: the block needs no idf.
"""

from __future__ import annotations

import math
import re
import zlib

from taiwa.text.normalize import nfkc

_CLOSING = re.compile(r"[\s。．.!！?？…‥～〜~♪☆★」』)）\"'`]+$")
_WH = re.compile(
    r"何|なに|なん|どちら|どっち|どれ|どの|どこ|どう|どんな|いつ|誰|だれ|いくら|いくつ"
)


def position_class(index: int, count: int) -> str:
    """``only``, ``first``, ``middle`` or ``last``: a sentence's place in its reply."""
    if count <= 1:
        return "only"
    return "first" if index == 0 else "last" if index == count - 1 else "middle"


def _closing_kind(closing: str) -> str:
    if any(c in closing for c in "?？"):
        return "?"
    if any(c in closing for c in "!！"):
        return "!"
    if any(c in closing for c in "。．."):
        return "."
    return "none"


def ending_keys(sentence: str) -> list[str]:
    """The ending keys of one sentence (see the module docstring)."""
    core, kind = _ending_of(sentence)
    keys = [f"end:{kind}"]
    keys += [f"sfx{n}:{core[-n:]}" for n in range(1, 5) if len(core) >= n]
    if core:
        keys.append(f"sfx2|{core[-2:]}|{kind}")
    if _WH.search(core):
        keys.append("wh")
        if _WH.search(core.rsplit("、", 1)[-1]):
            keys.append("wh_last_clause")
    return keys


def _ending_of(text: str) -> tuple[str, str]:
    """``(core, closing kind)`` of a text: without its closing punctuation, and what that was."""
    text = nfkc(text).strip()
    match = _CLOSING.search(text)
    core = text[: match.start()] if match else text
    return core, _closing_kind(match.group(0) if match else "")


def cross_keys(sentence: str, context: str, place: str) -> list[str]:
    """The sentence's ending and its ``place`` in the reply (only / first / middle / last),
    each joined with the context's closing kind and last character (``-``: no context)."""
    core, _ = _ending_of(sentence)
    c_core, c_kind = _ending_of(context)
    ctx = f"{c_kind}|{c_core[-1:]}" if c_core else "-"
    return [f"x|{core[-2:]}|{ctx}", f"xp|{place}|{ctx}"]


def ending_columns(
    sentence: str, context: str, bits: int, scale: float, place: str | None = None
) -> dict[int, float]:
    """Column → value of the sentence's and its context's ending keys in a ``2**bits`` block
    (with ``place``, the sentence's position class, also :func:`cross_keys`)."""
    keys = ending_keys(sentence) + [f"ctx{k}" for k in ending_keys(context) if k[:4] != "sfx3"]
    if place is not None:
        keys += cross_keys(sentence, context, place)
    mask = (1 << bits) - 1
    value = scale / math.sqrt(len(keys))
    out: dict[int, float] = {}
    for key in keys:
        col = zlib.crc32(key.encode("utf-8")) & mask
        out[col] = out.get(col, 0.0) + value
    return out
