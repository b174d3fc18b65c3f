"""A reply's last sentence, and whether it asks (seed 002 §3.1; issue 38: a question is a
question).

Seed 002's 質問 is 「相手に情報や考えを尋ねる」. A reply whose last sentence ends in ？ or in a
polite question form (〜ですか, 〜ますか, 〜でしょうか, 〜ませんか) asks its partner
something, whatever came before it (an agreement, an opinion, advice: the part that projects
the next turn wins, ``docs/chatstyle_labelling.md``), and whatever its style: a compound
assistant reply ending in a question, ELIZA's 「あなたはそれについてどう感じていますか？」.
The definitions name what else such a sentence can be, and only that:

- 命令・お願い: a request or a permission asked (〜てもらえますか？, 〜ていいですか？);
- 提案: an invitation or an option put (〜しませんか？, 〜はいかがでしょうか？);
- リアクション: surprise that asks for nothing new (えっ、本当ですか？);
- うなずき・おうむ返し: an echo that asks for nothing new (そうなんですか？, 十四歳？);
- あいさつ: a fixed formula (お元気ですか？);
- 意見: a rhetorical tag stating a view — only when the sentence ends in such a tag
  (〜よね？, 〜じゃないですか, 〜くない？, 〜でしょうか, 〜しません？, :data:`_TAG`);
- アドバイス・注意: advice put as a question — only when the sentence ends in a form that puts
  an action to the listener (〜てはいかがでしょうか？, 〜たら？, :data:`_PUT`; 提案 or advice
  by whether it claims the listener's good).

Never 身の回りに関する事実, 知識 or その他. A sentence that ends in a hedge (〜とか？, 〜かも？,
〜かな？) does not count as asking: it usually states something with a rising tone, and the
model decides. :func:`allowed_acts` says which acts
a reply may take; :class:`~taiwa.annotators.da_classifier.model.DAClassifier` picks its most
probable act among them when the model's ``question_rule`` is on (the shipped default's).

Measured on the training data only (real-chat train + system-style train; the held-out splits
unused): see ``docs/tagger.md``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from taiwa.text.normalize import nfkc

if TYPE_CHECKING:
    import numpy as np

QUESTION = "質問"
OPINION = "意見"
ADVICE = "アドバイス・注意"
ASKING_ACTS = ("質問", "命令・お願い", "提案", "リアクション", "うなずき・おうむ返し", "あいさつ")
"""The acts a sentence that asks may take, by seed 002's definitions (意見 only with a tag)."""

_SENTENCE_END = re.compile(r"(?<=[。！？!?\n])(?![。！？!?」』）)\s])")
_DECORATION = re.compile(
    r"(?:[\s。．.！!♪☆★♡❤ー～〜~…‥・wｗ笑^＾;；:：]|[(（][^()（）]{0,6}[)）]"
    r"|[\U0001F300-\U0001FAFF\u2600-\u27BF])+$"
)
"""What may follow a sentence's last word and still leave it asking: punctuation other than ？,
lengthening, laughter, emoticons in brackets, emoji."""
_POLITE = re.compile(r"(?:です|ます|でしょう|ません|ました|でした|ましょう|ません)か$")
_TAG = re.compile(
    r"(?:よね|よな|でしょう?か?|だろう?|じゃない(?:です)?か?|じゃん|くない|ないですか|ません(?:か)?|よ)$"
)
"""Endings of a rhetorical tag that states a view (the only 意見 a question may be): the model
may still take 質問 or 提案 there."""
_PUT = re.compile(r"(?:いかが|どう)(?:でしょう|です)?か?$|たら$|ば$")
"""Endings that put an action to the listener (advice may take them)."""
_HEDGE = re.compile(r"(?:とか|かも|かな|かしら|など|なんか)$")
"""Endings of a hedged statement said with a rising tone (not counted as asking)."""


def last_sentence(text: str) -> str:
    """The reply's last sentence with content (split after 。！？!? and at line breaks)."""
    pieces: list[str] = [p.strip() for p in _SENTENCE_END.split(nfkc(text).strip())]
    for piece in reversed(pieces):
        if _DECORATION.sub("", piece):
            return piece
    return pieces[-1] if pieces else ""


def _core(sentence: str) -> tuple[str, bool]:
    """``(the sentence without its trailing decoration and question marks, whether a ？
    was among them)``."""
    s = sentence.strip()
    marked = False
    while True:
        t = _DECORATION.sub("", s)
        if t.endswith(("?", "？")):
            marked, t = True, t.rstrip("?？")
        if t == s:
            return t, marked
        s = t


def asks(text: str) -> bool:
    """Whether the reply's last sentence ends in ？ or in a polite question form."""
    core, marked = _core(last_sentence(text))
    if not core or _HEDGE.search(core):
        return False
    return marked or bool(_POLITE.search(core))


def rhetorical(text: str) -> bool:
    """Whether the reply's last sentence ends in a tag that states a view (:data:`_TAG`)."""
    core, _ = _core(last_sentence(text))
    return bool(_TAG.search(core))


def allowed_acts(text: str, acts: Sequence[str]) -> list[bool]:
    """Per act of ``acts``: may the reply take it? All of them unless it :func:`asks`; then the
    acts of :data:`ASKING_ACTS`, 意見 when the sentence ends in a tag and アドバイス・注意 when it
    puts an action to the listener. A taxonomy without 質問 has no rule."""
    if QUESTION not in acts or not asks(text):
        return [True] * len(acts)
    core, _ = _core(last_sentence(text))
    extra = {OPINION} if _TAG.search(core) else set()
    if _PUT.search(core):
        extra.add(ADVICE)
    return [a in ASKING_ACTS or a in extra for a in acts]


def sentence_count(text: str) -> int:
    """How many sentences with content the reply has (split as :func:`last_sentence` splits)."""
    pieces = _SENTENCE_END.split(nfkc(text).strip())
    return sum(bool(_DECORATION.sub("", p.strip())) for p in pieces)


def allowed_mask(replies: Sequence[str], acts: Sequence[str]) -> np.ndarray:
    """``len(replies) × len(acts)`` booleans: :func:`allowed_acts` of each reply."""
    import numpy as np

    return np.array([allowed_acts(r, acts) for r in replies], dtype=bool).reshape(
        len(replies), len(acts)
    )
