"""Reading a model's answer to a multiple-choice question (seed 004 §3: the chosen option is
scored against the gold label).

:func:`parse_answer` maps a free-text answer to the index of one option, or ``None`` when it
names none or several (an unparseable answer: counted, and scored wrong). Accepted, after
NFKC normalisation and with punctuation, brackets and spaces ignored:

1. the text of one option exactly (「この部屋を気に入った。」);
2. a bare choice: a number 1..k or a letter a..(k-th), optionally framed as 「選択肢2です」,
   「答え：B」, 「(3)」, 「2番」;
3. otherwise, every option whose text the answer contains and every choice it names
   (「選択肢2」「2番」, or a number opening the answer: 「2. 夏は…」): exactly one distinct option
   among them, or the answer is unparseable.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_IGNORED = re.compile(r"[\s\W_]+", re.UNICODE)
_FRAME = r"(?:選択肢|答え|回答|正解|解答|answer|choice|option)?(?:は|:)?(?:no\.?|番号)?"
_BARE = re.compile(
    rf"^{_FRAME}\(?([0-9]{{1,2}}|[a-z])\)?(?:番目?)?(?:です|だ|である|でしょう|になります)?$"
)
_NAMED = re.compile(
    r"(?:選択肢|答え|回答|正解|option|choice)\s*[:：は]?\s*\(?([0-9]{1,2}|[a-z])(?![0-9a-z])"
)
_NUMBERED = re.compile(r"(?<![0-9])([0-9]{1,2})\s*番")
_OPENING = re.compile(r"^\s*\(?([0-9]{1,2}|[a-z])\s*[.)）:：]")


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _bare(text: str) -> str:
    """Normalised with punctuation, brackets and spaces removed."""
    return _IGNORED.sub("", _nfkc(text))


def _index(mark: str, n: int) -> int | None:
    """The option a number (1-based) or a letter names, if there is one."""
    k = int(mark) - 1 if mark.isdigit() else ord(mark) - ord("a")
    return k if 0 <= k < n else None


def parse_answer(text: str, options: Sequence[str]) -> int | None:
    """The index into ``options`` that ``text`` answers, or ``None`` (see the module
    docstring)."""
    n = len(options)
    bare = _bare(text)
    if not bare:
        return None
    keys = [_bare(o) for o in options]
    exact = [i for i, k in enumerate(keys) if k and k == bare]
    if len(exact) == 1:
        return exact[0]
    lone = _BARE.match(re.sub(r"[\s\"'「」『』。、.,!！?？]+", "", _nfkc(text)))
    if lone:
        return _index(lone.group(1), n)
    found = {i for i, k in enumerate(keys) if k and k in bare}
    # an option contained in a longer option that also matched is not a separate answer
    found = {i for i in found if not any(j != i and keys[i] in keys[j] for j in found)}
    nfkc = _nfkc(text)
    for pattern in (_NAMED, _NUMBERED, _OPENING):
        for mark in pattern.findall(nfkc):
            k = _index(mark, n)
            if k is not None:
                found.add(k)
    return found.pop() if len(found) == 1 else None
