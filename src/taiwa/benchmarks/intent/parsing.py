"""Reading a model's answer to a multiple-choice question (seed 004 §3: the chosen option is
scored against the gold label; the question asks for the option's number, :mod:`.prompts`).

:func:`parse_answer` maps a free-text answer to the index of one option, or ``None`` when it
names none or several (an unparseable answer: counted, and scored wrong). The text is read
after NFKC normalisation (full-width digits, ①②③) with markdown emphasis removed:

1. the text of one option exactly (「この部屋を気に入った。」), or a bare choice: a number
   1..k or a letter a..(k-th), optionally framed as 「選択肢2です」「答え：B」「(3)」「2番」;
2. otherwise the answer is read sentence by sentence. A *mention* is an option's text (quoted
   or not), a number (「2」「2番」「選択肢２」「The answer is 2」「私は2を選びます」; not a count
   such as 「2つ」 or a range 「1〜4」), or a letter or kanji numeral after a label
   (「選択肢B」「答えは二」). A mention is *rejected* when what follows it, up to the next
   mention, says so (「選択肢3は文脈に合いません」「3ではなく」「not 3」), and coordinated
   mentions share that (「1や3は違います」). The first sentence with a mention that is not
   rejected decides: exactly one option among its mentions, or the answer is unparseable
   (「2か3」「2 or 3」「2と3」). A later sentence that states an answer (答え/正解/選びます/
   answer/choose) naming another option makes the answer unparseable too;
3. a mention followed only by 「の可能性もある」 (「2だと思いますが、1の可能性もあります」) is a
   possibility, not a choice: a clear choice beside it stands;
4. a hesitation among several options that ends in an explicit decision (「1と2で迷いましたが、
   2にします」「答えは2」「I will choose 2」) is read as that decision when the last clause
   deciding names one option. A committed answer that a later sentence contradicts
   (「2です。いや、答えは3です。」) stays unparseable: the decision rule settles a hesitation,
   not a contradiction.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

_IGNORED = re.compile(r"[\s\W_]+", re.UNICODE)
_FRAME = (
    r"(?:選択肢|答え|回答|正解|解答|answer|choice|option|番号)?(?:は|:|is)?(?:no\.?|番号|number)?"
)
_BARE = re.compile(
    rf"^{_FRAME}\(?([0-9]{{1,2}}|[a-z])\)?(?:番目?)?(?:です|だ|である|でしょう|になります)?$"
)
_MARKDOWN = re.compile(r"[*`#>|]+|(?<!\w)_+|_+(?!\w)")
_RANGE = re.compile(r"[0-9]{1,2}\s*(?:〜|~|-|–|から|to)\s*[0-9]{1,2}")
_SENTENCE = re.compile(r"[。!?！？\n]+|(?<![0-9])\.(?=\s|$)")
_KANJI = "一二三四五六七八九十"
_COUNTER = (
    r"(?:つ|個|人|回|時|分|秒|日|年|月|歳|才|度|%|倍|件|名|本|枚|杯|階|円|点|割|位|ヶ|か月|カ月"
    r"|週|行|文字|語|章|節|段|歩|キロ|km|kg|ページ|words?|times?|people|points?)"
)
_LABEL = r"(?:選択肢|答え|回答|正解|解答|option|choice|answer)"
_MENTION = re.compile(
    r"\x00(?P<opt>[0-9]+)\x00"
    rf"|(?<![0-9])(?<![0-9][.,])(?P<num>[0-9]{{1,2}})(?![0-9]|\.[0-9]|\s*{_COUNTER})"
    rf"|{_LABEL}\s*(?:は|is|:|=)?\s*(?:第)?[(「『\[]?\s*(?P<kan>[{_KANJI}])(?![{_KANJI}])"
    rf"|(?P<kan2>[二三四五六七八九十]|一(?=番目))番"
    rf"|{_LABEL}\s*(?:は|is|:|=)?\s*[(「『\[]?\s*(?P<let>[a-z])(?=\s*$|[)）\]:、,.」』]|です|だ|が|を)"
    r"|\((?P<let2>[a-z])\)"
)
_COORDINATOR = re.compile(
    r"^\s*(?:や|と|か|、|,|/|・|or|and|また(?:は)?|もしくは|および)?\s*(?:選択肢)?\s*$"
)
_PIVOT = re.compile(r"ですが|だが|けど|けれど|が、|が,|but|however|ほか|他の|それ以外|残り|others?")
_NEGATIVE = re.compile(
    r"合わない|合いません|合わず|(?:あ|当)てはまらな|(?:あ|当)てはまりません|ではな|ではありません"
    r"|じゃな|違う|違い|誤り|不適|不正解|間違|除外|外れ|ありえない|考えにくい|not|n't|incorrect|wrong"
)
_NOT_BEFORE = re.compile(r"(?:not|rather than|instead of|than)\s*(?:option|choice)?\s*$")
_POSSIBLE = re.compile(
    r"^(?:の|も)?\s*(?:可能性も|もありえ|も考えられ|もあり得)|could also be|might also be"
)
_DECISION = re.compile(
    r"にします|に決め|を選びます|を選択します|を選ぶ|を選んだ|答えは|正解は|回答は|final answer"
    r"|i(?:'ll| will)? (?:choose|go with|pick)|my answer is|the answer is"
)
_CLAUSE = re.compile(
    r"ですが[、,]?|だが[、,]?|けれど(?:も)?[、,]?|けど[、,]?|が[、,]|, but|but |however"
)
_STATED = re.compile(r"答え|回答|正解|解答|選び|選択し|選ぶ|answer|choose|pick|go with|select")
_QUOTED = re.compile(r"「[^」]*」|『[^』]*』|\([^)]*\)|\"[^\"]*\"")


@dataclass(frozen=True)
class _Mention:
    option: int | None
    """The option's index; ``None`` for a number or letter outside the options."""
    start: int
    end: int


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _bare(text: str) -> str:
    """Normalised with punctuation, brackets and spaces removed."""
    return _IGNORED.sub("", _nfkc(text))


def _index(mark: str, n: int) -> int | None:
    """The option a number (1-based), a kanji numeral or a letter names, if there is one."""
    if mark.isdigit():
        k = int(mark) - 1
    elif mark in _KANJI:
        k = _KANJI.index(mark)
    else:
        k = ord(mark) - ord("a")
    return k if 0 <= k < n else None


def _with_placeholders(text: str, keys: Sequence[str]) -> str:
    """``text`` with each option's text (longest first, punctuation between its characters
    allowed) replaced by ``\\x00index\\x00``, so the digits and negations inside an option
    never read as a mention."""
    for i in sorted(range(len(keys)), key=lambda j: -len(keys[j])):
        if keys[i]:
            pattern = r"[\s、,・]*".join(map(re.escape, keys[i]))
            text = re.sub(pattern, f"\x00{i}\x00", text)
    return text


def _mentions(sentence: str, n: int) -> list[_Mention]:
    out = []
    for m in _MENTION.finditer(sentence):
        if m["opt"] is not None:
            option: int | None = int(m["opt"])
        else:
            mark = next(m[g] for g in ("num", "kan", "kan2", "let", "let2") if m[g] is not None)
            option = _index(mark, n)
        out.append(_Mention(option, m.start(), m.end()))
    return out


_NO, _MAYBE, _YES = "no", "maybe", "yes"


def _rejected(sentence: str, mentions: Sequence[_Mention]) -> list[str]:
    """Whether each mention is rejected (:data:`_NO`) by what follows it (or by a 'not'
    before it), only named as a possibility (:data:`_MAYBE`: 「1の可能性もあります」), or
    chosen (:data:`_YES`); coordinated mentions (「1や3は」) take the verdict of the last."""
    verdict: list[str] = [_YES] * len(mentions)
    for k in range(len(mentions) - 1, -1, -1):
        m = mentions[k]
        end = mentions[k + 1].start if k + 1 < len(mentions) else len(sentence)
        after = sentence[m.end : end]
        if k + 1 < len(mentions) and _COORDINATOR.match(after):
            verdict[k] = verdict[k + 1]
            continue
        before = sentence[max(0, m.start - 16) : m.start]
        if re.match(r"\s*[:.)）]\s*\S", after):  # 「選択肢3: <the option's text>」 restates it
            verdict[k] = _NO if _NOT_BEFORE.search(before) else _YES
            continue
        if k + 1 < len(mentions):  # 「2, not 3」: the 'not' is the next mention's
            after = _NOT_BEFORE.sub("", after)
        pivot = _PIVOT.search(after)
        clause = _QUOTED.sub("", after[: pivot.start()] if pivot else after)
        if _NEGATIVE.search(clause) or _NOT_BEFORE.search(before):
            verdict[k] = _NO
        elif _POSSIBLE.search(clause.strip()):
            verdict[k] = _MAYBE
    return verdict


def _chosen(sentence: str, n: int) -> set[int | None]:
    """The options a sentence names and neither rejects nor names only as a possibility
    (``None``: one outside the options)."""
    mentions = _mentions(sentence, n)
    return {
        m.option for m, v in zip(mentions, _rejected(sentence, mentions), strict=True) if v == _YES
    }


def _decision(sentences: Sequence[str], n: int) -> int | None:
    """After a hesitation between options (「1と2で迷いましたが、」), the option a later
    clause decides on (「2にします」「答えは2です」), if that last decision names one option."""
    clauses = [c for s in sentences for c in _CLAUSE.split(s) if c.strip()]
    for clause in reversed(clauses[1:]):
        chosen = _chosen(clause, n)
        if chosen and _DECISION.search(clause):
            return next(iter(chosen)) if len(chosen) == 1 else None
    return None


def parse_answer(text: str, options: Sequence[str]) -> int | None:
    """The index into ``options`` that ``text`` answers, or ``None`` (see the module
    docstring)."""
    return read_answer(text, options)[0]


HOW = {
    "empty": "no text to read",
    "option text": "the text of one option",
    "bare choice": "a bare choice (a number or letter, perhaps framed: 「選択肢2です」)",
    "sentence": "the first sentence naming one option that it does not reject",
    "decision": "a hesitation settled by a later decision (「1と2で迷いましたが、2にします」)",
    "undecided": "a sentence naming several options, with no decision after it",
    "contradicted": "an answer that a later sentence contradicts",
    "outside": "a number or letter outside the options",
    "no option": "no option named",
}
"""How :func:`read_answer` read an answer (the item view says which rule decided)."""


def read_answer(text: str, options: Sequence[str]) -> tuple[int | None, str]:
    """:func:`parse_answer` and how it read the answer (a key of :data:`HOW`)."""
    n = len(options)
    clean = _MARKDOWN.sub(" ", _nfkc(text))
    bare = _IGNORED.sub("", clean)
    if not bare:
        return None, "empty"
    keys = [_bare(o) for o in options]
    exact = [i for i, k in enumerate(keys) if k and k == bare]
    if len(exact) == 1:
        return exact[0], "option text"
    lone = _BARE.match(re.sub(r"[\s\"'「」『』。、.,!！?？]+", "", clean))
    if lone:
        got = _index(lone.group(1), n)
        return got, "bare choice" if got is not None else "outside"
    text_ = _RANGE.sub(" ", _with_placeholders(clean, keys))
    sentences = [s for s in _SENTENCE.split(text_) if s.strip()]
    for k, sentence in enumerate(sentences):
        chosen = _chosen(sentence, n)
        if not chosen:
            continue
        if len(chosen) != 1 or None in chosen:
            decided = _decision(sentences[k:], n)
            if decided is not None:
                return decided, "decision"
            return None, "outside" if chosen == {None} else "undecided"
        answer = chosen.pop()
        for later in sentences[k + 1 :]:
            if _STATED.search(later) and _chosen(later, n) - {answer}:
                return None, "contradicted"
        return answer, "sentence"
    return None, "no option"
