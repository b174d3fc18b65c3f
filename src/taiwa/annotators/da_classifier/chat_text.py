"""Casual-chat normalisation for the dialogue-act classifier's features (issue 26; the acts of
seed 002 §3.1 are read off wording, not off punctuation or spelling).

Spontaneous chat writes the same act many ways: with or without 。/？, laughter as 笑, (笑), w
or 草, lengthening as ー, ～ or a repeated letter, fillers (えー, あの, なんか) in front.
:func:`casual_form` maps these variants onto one core text (what the character n-grams and the
morphemes are read from) and a few shape flags (:data:`SHAPE_NAMES`), so a reply without its
question mark or with a laugh appended still shares its n-grams with the tidy training
examples:

- NFKC, lower case;
- laughter (笑 runs, (笑), 草 on its own, w runs, はは(は…)) → one 笑,
  flag ``laugh``;
- lengthening marks (ー, ～, 〜, ~ runs) → one ー; a letter repeated three or more times → two;
- punctuation and spaces removed, flags ``question`` (？ anywhere), ``exclaim`` (！),
  ``period`` (。 or .), ``ellipsis`` (… or ‥);
- fillers at the start (えー, えっと, あのー, あの, まあ, なんか, うーん) stripped while something
  is left, flag ``filler``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from taiwa.text.normalize import nfkc

SHAPE_NAMES = ("question", "exclaim", "period", "ellipsis", "laugh", "filler", "lengthened")
"""The shape flags :func:`casual_form` returns, in feature order."""

LAUGH = "笑"

_LAUGH = re.compile(
    r"[(（]笑[)）]|笑+|(?<![a-z])w{2,}|(?<=[^\x00-\x7f])w+(?=$|[^a-z])|^草$|[はハ]{3,}"
)
_LENGTH = re.compile(r"[ー～〜~]+")
_REPEAT = re.compile(r"(.)\1{2,}")
_LENGTHENED = re.compile(r"[ー～〜~]{2,}|[～〜~]$|(.)\1{2,}")
_QUESTION = re.compile(r"[?？]")
_EXCLAIM = re.compile(r"[!！]")
_PERIOD = re.compile(r"[。.]")
_ELLIPSIS = re.compile(r"[…‥]|\.\.\.|・・")
_PUNCT = re.compile(r"[\s。、．，.,!！?？…‥・「」『』()（）\[\]【】\"'“”‘’♪☆★♡❤]+")
_FILLER = re.compile(
    r"^(?:えー+(?:っ?と)?|えっと|あのー+|あの(?=[、,\s])|まあ(?=[、,\s]|ー)|なんか(?=[、,\s])"
    r"|うーん|んー+)[ー、,\s]*(?=.)"
)


@lru_cache(maxsize=1 << 16)
def casual_form(text: str) -> tuple[str, tuple[float, ...]]:
    """``(core text, shape flags)`` of one utterance (flags in :data:`SHAPE_NAMES` order)."""
    s = nfkc(text).lower().strip()
    stripped = _FILLER.sub("", s)
    filler, s = stripped != s, stripped
    laugh = bool(_LAUGH.search(s))
    s = _LAUGH.sub(LAUGH, s)
    flags = [
        bool(_QUESTION.search(s)),
        bool(_EXCLAIM.search(s)),
        bool(_PERIOD.search(s)),
        bool(_ELLIPSIS.search(s)),
        laugh,
    ]
    core = _PUNCT.sub("", s)
    lengthened = bool(_LENGTHENED.search(core))
    core = _REPEAT.sub(r"\1\1", _LENGTH.sub("ー", core))
    return core, tuple(float(f) for f in (*flags, filler, lengthened))


def strip_punctuation(text: str) -> str:
    """``text`` without punctuation or spaces (the unpunctuated copy a training example gets:
    the model must not lean on ？ alone, since chat often leaves it out)."""
    return _PUNCT.sub("", nfkc(text))
