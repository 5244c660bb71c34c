"""A clash's title as the question in dispute (:func:`clash_title`), for the offline tracker.

The tracker finds a clash as 2-3 units (Chinese phrases, English stems) that recur in both sides'
speech (:mod:`adjudicator.judges.offline.clashes`); those units are what it counts, and the clash keeps
them (``Clash.terms``). The title is for people. In order of preference:

1. **A question a debater asked** in the stage, naming at least two of the clash's units (all of them
   when there are two): the shortest run of its final clauses that does, without a lead-in (那么,
   请问, "So"), e.g. ``课间算不算特定时段？`` from ``对方辩友，您方说特定时段允许使用，课间算不算特定时段？``;
2. **A claim turned into the question it raises**: a side's own statement naming those units, cut
   the same way and asked (zh: ``…吗？``; en: ``Whether …``), e.g. ``MSG is generally safe and is not
   a problem.`` -> ``Whether MSG is generally safe and is not a problem``;
3. **The units as words**, joined the language's way (``成本与执行``; ``cost and enforcement``),
   each Chinese unit grown to the whole word it is cut from in the stage (数人 -> 多数人), or cut
   back where it swallowed the start of a function word (需求正 from 需求正在 -> 需求; :func:`whole_word`).

A title is taken only within :data:`TITLE_CHARS` and never from a link or a quotation of the other
side; its text has its markup removed (:func:`~adjudicator.verdict.markup.strip_markup`). A clash
titled by its units (3.) is retitled by a later stage that offers a question (1. or 2.); a question
title is kept. Titles are text only: no number of the offline judge depends on them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher
from typing import Protocol

from adjudicator.verdict.markup import strip_markup

#: (shortest, longest) title in characters, per language; a claim turned into a question is shorter.
TITLE_CHARS = {"zh": (6, 40), "en": (15, 100)}
CLAIM_CHARS = {"zh": 24, "en": 90}
#: Character match (difflib ratio) at which a claim restates the motion or a position.
RESTATES = 0.75

_CLAUSE = re.compile(r"(?<=[，,；;：:])")
_LINKISH = re.compile(r"https?:|www\.|\w/\w|[<>\[\]|]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
#: Words a clause starts with when it continues the one before (a tail starting so is no question).
_ZH_CONTINUES = ("还是", "而是", "而", "但", "并且", "并", "或者", "或", "比", "还", "也", "就", "才", "又", "则", "却", "以及", "和", "与", "是在", "是")
_EN_CONTINUES = ("or ", "and ", "but ", "than ", "which ", "that ", "because ", "while ", "whereas ", "nor ", "so that ", "as ", "to ")
#: Lead-ins dropped from a title's start (longest first).
_ZH_LEADS = ("再问一个问题", "我想请问", "那请问", "请问", "试问", "那么", "那", "所以", "因此", "因而", "可见", "其实", "事实上", "总之", "综上",
             "我方认为", "我们认为", "我认为", "我方坚持", "我方", "对方辩友", "对方", "首先", "其次", "最后", "第一", "第二", "第三")
_EN_LEADS = ("so ", "then ", "and ", "but ", "well ", "however ", "now ", "therefore ", "thus ", "in fact ", "clearly ", "first ", "second ", "finally ",
             "we believe that ", "we believe ", "i believe that ", "i believe ", "i think that ", "i think ")
#: A claim opening with one of these names its speaker, not the dispute ("I", "we", "you"): no title.
_EN_PERSONAL = ("i ", "i'", "we ", "we'", "you ", "you'", "my ", "our ", "your ", "me ", "us ", "it ", "it'", "its ", "this ", "that ", "these ",
                "those ", "they ", "they'", "their ", "he ", "he'", "his ", "she ", "she'", "her ", "him ", "rather ", "also ", "even ", "just ",
                "since ", "because ", "if ", "although ", "though ", "when ", "while ", "as ", "unless ")
#: First characters of a Chinese clause that has lost its subject (能把校园还给… from 统一收存，能把…).
_ZH_NO_SUBJECT = ("能", "会", "可以", "要", "应", "让", "使", "把", "被", "才", "就", "也", "都", "还")
#: First words of a claim that "Whether" lower-cases (any other keeps its case: a name, an acronym).
_EN_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9 '’-]*$")
_CLAUSE_MARK = re.compile(r"[，,；;：:]")
_ZH_PERSONAL = ("我", "你", "您", "咱")
_ZH_END = "。！？；…!?;.，,、 "
#: Characters a phrase is never grown by (function characters: 规则 does not become 规则的).
_ZH_NO_GROW = frozenset("的了是在和与及或吗呢吧啊呀嘛么着过这那就也都而把被让给从对向于以之其所为得地很还又再并且即们否要会能说有不我你您他她它里")


class Sentence(Protocol):
    """What :func:`clash_title` reads of a sentence: its text, the clash units it names, whether it is a
    question, whether it reports the other side."""

    @property
    def text(self) -> str: ...
    @property
    def units(self) -> frozenset[str]: ...
    @property
    def question(self) -> bool: ...
    @property
    def attributed(self) -> bool: ...


def is_question_title(title: str) -> bool:
    """True for a title that is a question (1. or 2. of the module docstring): it ends with a question
    mark or opens with "Whether"."""
    t = title.strip()
    return t.endswith(("?", "？")) or t.startswith("Whether ")


def clash_title(units: Sequence[str], sents: Sequence[Sentence], lang: str, surface: dict[str, str] | None = None, motion: Sequence[str] = ()) -> str:
    """The title of a clash about ``units`` from the stage's sentences ``sents`` (module docstring);
    ``surface`` maps an English stem to the word written most often (the stem itself when absent)."""
    return question_title(units, sents, lang, motion) or terms_title(units, sents, lang, surface or {})


def question_title(units: Sequence[str], sents: Sequence[Sentence], lang: str, motion: Sequence[str] = ()) -> str:
    """A question title (1. or 2. of the module docstring), or "" when the sentences offer none. A
    claim that restates the motion or a side's position (``motion``: those texts) is not a clash:
    every clash is about the motion (:func:`_restates`)."""
    need = min(2, len(units))
    names = _proper_names(sents) if lang != "zh" else set()
    avoid = [k for k in (_key(m) for m in motion) if k]
    asked: list[tuple[tuple[int, int, int], str]] = []
    claims: list[tuple[tuple[int, int, int], str]] = []
    for i, x in enumerate(sents):
        named = len(x.units & set(units))
        if named < need or (x.attributed and not x.question):
            continue
        text = strip_markup(x.text).replace("\n", " ")
        if _LINKISH.search(text):
            continue
        if x.question:
            if text.rstrip().endswith(("?", "？")):
                q = _tail(text, x.units & set(units), need, lang)
                if q:
                    asked.append(((-named, len(q), i), q))
        else:
            c = _claim(text, x.units & set(units), need, lang, names)
            if c and not _restates(c, avoid):
                target = 24 if lang == "zh" else 60
                claims.append(((-named, abs(len(c) - target), i), c))
    for found in (asked, claims):
        if found:
            return min(found)[1]
    return ""


def _names(text: str, units: Iterable[str], lang: str) -> int:
    """How many of ``units`` the text names (zh: as substrings; en: as stems of its content terms)."""
    if lang == "zh":
        return sum(1 for u in units if u in text)
    from adjudicator.judges.offline.text import content_terms

    terms = set(content_terms(text, lang))
    return sum(1 for u in units if u in terms)


def _tail(text: str, units: Iterable[str], need: int, lang: str, hi: int | None = None) -> str:
    """The shortest run of ``text``'s final clauses that names ``need`` of ``units``, does not start
    by continuing the clause before and reports nothing the other side said, its lead-in dropped; ""
    when none fits :data:`TITLE_CHARS` (or ``hi`` characters)."""
    from adjudicator.judges.offline.text import is_attributed

    clauses = [c for c in _CLAUSE.split(text.strip()) if c.strip()]
    lo, top = TITLE_CHARS.get(lang, TITLE_CHARS["en"])
    hi = top if hi is None else hi
    for start in range(len(clauses) - 1, -1, -1):
        tail = _drop_lead("".join(clauses[start:]).strip(), lang)
        if _names(tail, units, lang) < need:
            continue
        if _continues(tail, lang) or is_attributed(tail, lang):
            continue
        if lo <= len(tail) <= hi:
            return tail[:1].upper() + tail[1:] if lang != "zh" else tail
        return ""
    return ""


def _claim(text: str, units: Iterable[str], need: int, lang: str, names: set[str]) -> str:
    """A statement as the question it raises (zh ``…吗？``, en ``Whether …``), or "": only a single
    clause (no comma inside, at most :data:`CLAIM_CHARS`) in plain words that opens with the subject
    of the dispute, not with a speaker ("we", "I", "it"; 我, 你) nor without its subject (能把…; a
    piece of a sentence cut at a decimal point, ending in a digit). Its first English word is
    lower-cased unless it is a name (``names``: written capitalised inside a sentence) or an acronym."""
    body = _tail(text.rstrip(_ZH_END), units, need, lang, CLAIM_CHARS.get(lang, CLAIM_CHARS["en"])).rstrip(_ZH_END)
    if not body or _CLAUSE_MARK.search(body):
        return ""
    if lang == "zh":
        if body.startswith(_ZH_PERSONAL + _ZH_NO_SUBJECT) or any(w in body for w in ("吗", "呢", "吧")):
            return ""
        return body + "吗？"
    low = body.lower()
    if low.startswith(_EN_PERSONAL) or not _EN_PLAIN.match(body) or len(body.split()) < 4 or body[-1].isdigit():
        return ""
    first = body.split(" ", 1)[0]
    keep = first in names or (len(first) > 1 and first.isupper())
    return "Whether " + (body if keep else body[:1].lower() + body[1:])


def _proper_names(sents: Sequence[Sentence]) -> set[str]:
    """Words written capitalised inside a sentence (not as its first word): names, sides, acronyms."""
    out: set[str] = set()
    for x in sents:
        words = strip_markup(x.text).split()
        out.update(w.strip(".,;:!?\"'()") for w in words[1:] if w[:1].isupper())
    return out


def _restates(claim: str, avoid: list[str]) -> bool:
    """True when ``claim`` (as a question) is one of the ``avoid`` texts (keyed by :func:`_key`) said
    again: one holds the other, or they match in at least :data:`RESTATES` of their characters
    (difflib's ratio; 不应当 against 应当 is the same dispute)."""
    key = _key(claim.removeprefix("Whether ").rstrip("吗？?"))
    return any(key in a or a in key or SequenceMatcher(None, key, a).ratio() >= RESTATES for a in avoid)


def _key(text: str) -> str:
    """Letters, digits and CJK only, lower-cased (to compare a claim with the motion)."""
    return re.sub(r"[\W_]+", "", text.lower())


def _continues(tail: str, lang: str) -> bool:
    if lang == "zh":
        return tail.startswith(_ZH_CONTINUES)
    low = tail.lower()
    return low.startswith(_EN_CONTINUES) or not tail[:1].isalpha()


def _drop_lead(text: str, lang: str) -> str:
    """``text`` without the lead-ins of :data:`_ZH_LEADS` / :data:`_EN_LEADS` (repeatedly, with the
    punctuation after them)."""
    leads = _ZH_LEADS if lang == "zh" else _EN_LEADS
    out = text.strip()
    changed = True
    while changed and out:
        changed = False
        low = out.lower()
        for lead in leads:
            if low.startswith(lead) and len(out) > len(lead) + 2:
                out = out[len(lead):].lstrip(_ZH_END + ":：—-")
                changed = True
                break
    return out


def terms_title(units: Sequence[str], sents: Sequence[Sentence], lang: str, surface: dict[str, str]) -> str:
    """The units as words (3. of the module docstring): zh ``成本与执行`` / ``训练、作业与允许``, each
    phrase grown to its whole word in ``sents`` (:func:`whole_word`); en ``cost and enforcement``."""
    if lang == "zh":
        text = "\n".join(x.text for x in sents)
        words = list(dict.fromkeys(whole_word(u, text) for u in units))
        return words[0] if len(words) == 1 else "、".join(words[:-1]) + "与" + words[-1]
    words = list(dict.fromkeys(surface.get(u, u) for u in units))
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def whole_word(phrase: str, text: str, max_len: int = 5) -> str:
    """``phrase`` grown, one character at a time, by the character written beside it in at least
    half of its occurrences in ``text`` and at least twice (left first), up to ``max_len`` characters:
    数人 in a stage that says 多数人 twice and 少数人 once reads 多数人. Only Chinese characters
    that are not function characters are added (:data:`_ZH_NO_GROW`); the phrase itself when no
    side qualifies."""
    word = phrase
    while len(word) < max_len:
        spots = [m.start() for m in re.finditer(re.escape(word), text)]
        if not spots:
            break
        left = Counter(text[i - 1] for i in spots if i > 0 and _grows(text[i - 1]))
        right = Counter(text[i + len(word)] for i in spots if i + len(word) < len(text) and _grows(text[i + len(word)]))
        grown = None
        for counts, side in ((left, "left"), (right, "right")):
            if counts:
                ch, k = counts.most_common(1)[0]
                if k >= 2 and 2 * k >= len(spots):
                    grown = ch + word if side == "left" else word + ch
                    break
        if grown is None:
            break
        word = grown
    return _trim_tail(word, text)


#: Two-character function words whose first character a mined phrase often swallows (需求正在增长
#: mined as 需求正): a phrase ending in the first character, followed by the second in at least half
#: of its occurrences, is shown without it (需求正 -> 需求). Display only: the units counted stay as mined.
_ZH_SPLIT_WORDS = frozenset({"正在", "已经", "可以", "没有", "不是", "就是", "还是", "都是", "也是", "是否", "能够", "应该", "应当", "必须", "正是", "只是", "才是", "更是"})


def _trim_tail(word: str, text: str) -> str:
    """``word`` without a last character that begins a function word of :data:`_ZH_SPLIT_WORDS` where
    it is written (at least half of ``word``'s occurrences in ``text``), repeatedly, down to 2 characters."""
    while len(word) > 2:
        after = [text[m.end()] for m in re.finditer(re.escape(word), text) if m.end() < len(text)]
        cut = sum(1 for ch in after if word[-1] + ch in _ZH_SPLIT_WORDS)
        if not after or 2 * cut < len(after):
            break
        word = word[:-1]
    return word


def _grows(ch: str) -> bool:
    return bool(_CJK.match(ch)) and ch not in _ZH_NO_GROW
