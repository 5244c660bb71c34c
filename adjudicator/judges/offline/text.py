"""Text features of debate speech for the offline judge: content terms, questions, answers, markers.

Everything here is a pure function of strings (no state, no model, no network), so it is safe to call
from several threads at once. Two languages are supported, chosen by the match's ``language``:

- ``"zh"``: content terms are character bigrams of runs of CJK characters, minus bigrams that contain
  a function character (的, 了, 是, ...) or that belong to a small stop list of pronouns, connectives
  and debate-procedure words (我们, 因为, 对方, 辩友, ...).
- ``"en"``: content terms are lower-cased word tokens minus stopwords and debate-procedure words
  (pro, con, opponent, round, ...), lightly stemmed (plural, -ing, -ed, -ly suffixes).

The marker lists (questions, rebuttal, concession, forfeit, evidence) are our own short,
documented choices; they are deliberately coarse. No list or constant here was fitted to labels.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------
# Stop lists

_EN_STOPWORDS = frozenset(
    """a about above after again against all also am an and any are aren't as at be because been before
    being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
    down during each either else even ever every few for from further get gets got had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how how's however
    i i'd i'll i'm i've if in into is isn't it it's its itself just let's like make makes many may me might
    more most much must mustn't my myself neither no nor not now of off on once one only or other ought our
    ours ourselves out over own per quite rather really same say said says shall shan't she she'd she'll
    she's should shouldn't since so some such than that that's the their theirs them themselves then there
    there's therefore these they they'd they'll they're they've thing things this those though through thus
    to too under until up upon us very was wasn't way we we'd we'll we're we've well were weren't what what's
    when when's where where's whether which while who who's whom whose why why's will with within without
    won't would wouldn't yes yet you you'd you'll you're you've your yours yourself yourselves also
    already always another anyone anything around back come comes could done going gone go goes good know
    knows mean means never new put see seem seems take takes tell think thinks two use used want way
    www http https com org html need needs something anything everything nothing someone""".split()
)

#: Words about the debate itself rather than its subject (they are not clashes).
_EN_DEBATE_WORDS = frozenset(
    """pro con opponent opponents debate debates round rounds argument arguments argue argued argues point
    points claim claims claimed case rebuttal rebuttals rebut refute refuted resolution motion side sides
    affirmative negative instigator contender voter voters vote votes judge judges thank thanks please
    speech speaker""".split()
)

#: Chinese characters that mark a bigram as function-word material.
ZH_STOPCHARS = frozenset("的了是在和与及或吗呢吧啊呀嘛么着过这那就也都而把被让给从对向于以之其所为得地很还又再并且即们否")

#: Chinese bigrams that are pronouns, connectives or debate-procedure words.
ZH_STOPBIGRAMS = frozenset(
    """我们 你们 他们 她们 它们 我方 你方 对方 辩友 同学 主席 评委 各位 大家 今天 这个 那个 这些 那些 一个
    一种 没有 什么 怎么 因为 所以 如果 但是 可是 然而 虽然 而且 不过 只是 就是 还是 可以 能够 已经 我们 自己 时候
    问题 觉得 认为 请问 谢谢 正方 反方 一辩 二辩 三辩 四辩 辩题 立论 质询 陈词 总结 不是 如何 为什 您方 需要 可能
    应该 必须 知道 现在""".split()
)

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RUN = re.compile(f"[{_CJK}]+")
_EN_WORD = re.compile(r"[a-z][a-z']+")
URL = re.compile(r"https?://\S+|www\.\S+")

# ---------------------------------------------------------------------------------------------
# Marker lists (lower-case English; Chinese as written)

_EN_QUESTION_START = re.compile(
    r"^(why|how|what|which|who|whom|whose|where|when|do you|does|did you|is it|are you|can you|could you|"
    r"would you|will you|should|isn't it|don't you|have you)\b"
)
_ZH_QUESTION_WORDS = ("吗", "为什么", "怎么", "是否", "难道", "请问", "如何", "哪", "何以", "是不是", "有没有", "能不能")

_EN_REBUTTAL = (
    "however", "but ", "my opponent", "opponent's", "pro claims", "con claims", "pro says", "con says",
    "pro argues", "con argues", "you claim", "you say", "you said", "you argue", "refute", "rebut",
    "not true", "is false", "is wrong", "incorrect", "fails to", "failed to", "does not follow",
    "doesn't follow", "no evidence", "dropped", "ignores", "ignored", "on the contrary", "contrary to",
    "yet ", "whereas", "nevertheless", "misrepresent", "straw man", "strawman",
)
_ZH_REBUTTAL = (
    "但是", "然而", "可是", "你方", "对方", "对方辩友", "反驳", "并不", "并非", "不成立", "错误", "恰恰",
    "忽略", "偷换", "混淆", "请问", "难道", "不代表", "不等于",
)
_EN_CONCESSION = (
    "i concede", "i'll concede", "i will concede", "i agree with my opponent", "i agree with pro",
    "i agree with con", "you're right", "you are right", "fair point", "i admit", "granted,",
    "i was wrong", "i accept that",
)
_ZH_CONCESSION = ("我方承认", "我们承认", "我承认", "我方同意", "我们同意", "的确如此", "确实如此", "您说得对", "你说得对")

_EN_FORFEIT = re.compile(
    r"^\W*(i\s+)?(forfeit|forfeited|concede the debate|pass|extend(ed)?( all)?( my)?( arguments?)?|"
    r"no (response|round|argument)s?|waive|skip)\W*$"
)
_ZH_FORFEIT = re.compile(r"^\W*(弃权|放弃|跳过|略过|无|不回应|没有补充)\W*$")

_EN_DODGE = ("no comment", "next question", "pass", "i don't know", "not going to answer", "irrelevant question")
_ZH_DODGE = ("不回答", "跳过", "不知道", "无可奉告", "下一个问题", "不予回应")

#: Weighing / synthesis markers: the words a summary or closing uses to compare the two cases and say
#: which clash matters more (paper Appendix A.2: closings give the final comparison).
_EN_WEIGHING = (
    "outweigh", "therefore", "in sum", "in summary", "to sum up", "to summarize", "in conclusion", "overall",
    "more important", "most important", "matters more", " weigh", "compare", "comparison", "on balance",
    "the key", "key question", "ultimately", "crucial", "bottom line", "even if", "which means", "thus",
    "this debate comes down", "comes down to", "the real question", "more likely", "bigger", "greater",
)
_ZH_WEIGHING = (
    "更重要", "最重要", "因此", "综上", "比较", "所以", "关键", "回顾", "归根", "真正的", "最终", "核心", "分歧",
    "权衡", "远大于", "大于", "即使", "就算", "换言之", "也就是说", "总而言之", "可见", "说明", "显然", "始终",
)

#: Phrases that attribute the sentence's content to the opponent (the sentence reports the other side's
#: words, so it is not a statement of the speaker's own position).
_EN_ATTRIBUTION = (
    "my opponent", "opponent's", "you claim", "you say", "you said", "you argue", "pro claims", "con claims",
    "pro says", "con says", "pro argues", "con argues", "pro said", "con said", "they claim", "they say",
    "admitted", "conceded", "according to pro", "according to con",
)
_ZH_ATTRIBUTION = (
    "对方说", "对方认为", "对方所说", "对方辩友说", "你方说", "您方说", "你说", "您说", "对方今天", "对方的", "对方一直",
    "对方承认", "对方辩友", "对方一辩", "对方二辩", "对方三辩", "对方四辩", "您方", "你方", "您已经", "你已经", "你刚才",
    "您刚才", "承认", "我记下",
)

_EN_EVIDENCE = re.compile(r"https?://|\[\d+\]|\(\d+\)|according to|study|studies|survey|data|percent|%|\bsource")
_ZH_EVIDENCE = re.compile(r"数据|研究|调查|报告|统计|根据|显示|百分之|%|案例|例如|比如")

#: Minimum content terms for a turn or speech to count as substantive (below: a dodge / very short).
MIN_SUBSTANTIVE_TERMS = {"en": 6, "zh": 8}


# ---------------------------------------------------------------------------------------------
# Tokenising


def _stem(word: str) -> str:
    """Light English stemming: strip a possessive and one of -ies/-sses/-s/-ing/-ed/-ly (longer words only)."""
    w = word.strip("'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if w.endswith("sses"):
        return w[:-2]
    if len(w) > 5 and w.endswith("ing"):
        return w[:-3]
    if len(w) > 4 and w.endswith("ed"):
        return w[:-2]
    if len(w) > 4 and w.endswith("ly"):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def content_terms(text: str, language: str) -> list[str]:
    """The content terms of ``text`` in document order (with repeats).

    ``language`` "zh": CJK character bigrams minus stop bigrams and bigrams holding a function
    character; "en" (or anything else): stemmed lower-case words of 3+ letters minus stopwords and
    debate-procedure words. URLs are removed first. Returns [] for empty text.
    """
    text = URL.sub(" ", text or "")
    if language == "zh":
        out: list[str] = []
        for run in CJK_RUN.findall(text):
            for i in range(len(run) - 1):
                bg = run[i : i + 2]
                if bg in ZH_STOPBIGRAMS or bg[0] in ZH_STOPCHARS or bg[1] in ZH_STOPCHARS:
                    continue
                out.append(bg)
        return out
    out = []
    for w in _EN_WORD.findall(text.lower()):
        w = w.strip("'")
        if len(w) < 3 or w in _EN_STOPWORDS or w in _EN_DEBATE_WORDS:
            continue
        s = _stem(w)
        if len(s) < 3 or s in _EN_DEBATE_WORDS or s in _EN_STOPWORDS:
            continue
        out.append(s)
    return out


def surface_forms(text: str, language: str) -> dict[str, str]:
    """Term -> its most frequent written form in ``text`` (for readable clash titles).

    Chinese bigrams are their own surface form; English stems map to the commonest lower-case word."""
    if language == "zh":
        return {t: t for t in content_terms(text, language)}
    counts: dict[str, Counter] = {}
    for w in _EN_WORD.findall(URL.sub(" ", text or "").lower()):
        w = w.strip("'")
        if len(w) < 3:
            continue
        counts.setdefault(_stem(w), Counter())[w] += 1
    return {s: c.most_common(1)[0][0] for s, c in counts.items()}


_SENT_SPLIT = re.compile(r"(?<=[.!?。！？；;])\s*|\n+")


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences on . ! ? 。！？ ; and newlines; drops empty pieces."""
    return [s.strip() for s in _SENT_SPLIT.split(text or "") if s and s.strip()]


# ---------------------------------------------------------------------------------------------
# Markers


def is_question(sentence: str, language: str) -> bool:
    """True if ``sentence`` is a question: ends with ? or ？, or (en) starts with a question word /
    auxiliary, or (zh) contains a question particle or word (吗, 为什么, 是否, 难道, 请问, ...)."""
    s = sentence.strip()
    if not s:
        return False
    if s.endswith(("?", "？")):
        return True
    if language == "zh":
        return any(w in s for w in _ZH_QUESTION_WORDS)
    return bool(_EN_QUESTION_START.match(s.lower().lstrip("> *_\"'")))


def count_questions(text: str, language: str) -> int:
    """Number of question sentences in ``text`` (quoted lines starting with '>' are not counted:
    they quote the opponent)."""
    return sum(1 for s in sentences(_unquote(text)) if is_question(s, language))


def _unquote(text: str) -> str:
    return "\n".join(line for line in (text or "").splitlines() if not line.lstrip().startswith(">"))


def _count_markers(text: str, markers: tuple[str, ...]) -> int:
    low = text.lower()
    return sum(low.count(m) for m in markers)


def rebuttal_markers(text: str, language: str) -> int:
    """Count of rebuttal markers ("however", "my opponent", "you claim"...; 但是, 对方, 你方, 并非...),
    plus (any language) quoted lines starting with '>' (the online convention for quoting an opponent)."""
    quotes = sum(1 for line in (text or "").splitlines() if line.lstrip().startswith(">"))
    markers = _ZH_REBUTTAL if language == "zh" else _EN_REBUTTAL
    return _count_markers(_unquote(text), markers) + quotes


def concession_markers(text: str, language: str) -> int:
    """Count of first-person concession markers ("I concede", "fair point"; 我方承认, 确实如此)."""
    markers = _ZH_CONCESSION if language == "zh" else _EN_CONCESSION
    return _count_markers(_unquote(text), markers)


def has_concession(sentence: str, language: str) -> bool:
    """True if ``sentence`` carries a first-person concession marker."""
    return concession_markers(sentence, language) > 0


def has_rebuttal(sentence: str, language: str) -> bool:
    """True if ``sentence`` carries a rebuttal marker."""
    return rebuttal_markers(sentence, language) > 0


def weighing_markers(text: str, language: str) -> int:
    """Count of weighing / synthesis markers ("outweigh", "therefore", "in sum", "more important";
    更重要, 因此, 综上, 比较, 关键, 回顾): the words of a final comparison (paper Appendix A.2)."""
    markers = _ZH_WEIGHING if language == "zh" else _EN_WEIGHING
    return _count_markers(_unquote(text), markers)


def is_attributed(sentence: str, language: str) -> bool:
    """True if ``sentence`` reports or quotes the opponent rather than stating the speaker's own view:
    a quoted line ('>'), a sentence opening with a quotation mark or in italics-quotes, or one carrying
    an attribution phrase ("my opponent", "you said"; 对方说, 您方说, 对方认为)."""
    raw = (sentence or "").strip()
    s = raw.lstrip("-*_~ \t")
    if raw.startswith(">") or s.startswith(('"', "\u201c", "\u300c", "'")):
        return True
    low = s.lower()
    markers = _ZH_ATTRIBUTION if language == "zh" else _EN_ATTRIBUTION
    return any(m in low for m in markers)


def own_sentences(text: str) -> list[str]:
    """The sentences of ``text`` outside quoted lines (lines starting with '>' quote the opponent)."""
    return sentences(_unquote(text))


def evidence_markers(text: str, language: str) -> int:
    """Count of evidence markers: links, numbered citations, "according to", "study", percentages
    (en); 数据, 研究, 调查, 根据, 例如 (zh)."""
    pattern = _ZH_EVIDENCE if language == "zh" else _EN_EVIDENCE
    return len(pattern.findall((text or "").lower()))


def is_forfeit(text: str, language: str) -> bool:
    """True if ``text`` is a forfeit or a non-speech: empty, a bare "forfeit"/"extend"/"pass"
    (弃权/放弃/跳过), or fewer than 3 content terms."""
    t = (text or "").strip().lower()
    if not t:
        return True
    pattern = _ZH_FORFEIT if language == "zh" else _EN_FORFEIT
    if pattern.match(t):
        return True
    if language != "zh" and ("forfeit" in t) and len(content_terms(t, language)) < 12:
        return True
    return len(content_terms(t, language)) < 3


def is_substantive(text: str, language: str) -> bool:
    """True if a turn is a real contribution: not a forfeit, not a dodge ("no comment", 不回答), and at
    least ``MIN_SUBSTANTIVE_TERMS[language]`` content terms (6 en, 8 zh)."""
    if is_forfeit(text, language):
        return False
    n = len(content_terms(text, language))
    low = (text or "").lower()
    dodges = _ZH_DODGE if language == "zh" else _EN_DODGE
    if n < 2 * MIN_SUBSTANTIVE_TERMS.get(language, 6) and any(d in low for d in dodges):
        return False
    return n >= MIN_SUBSTANTIVE_TERMS.get(language, 6)


# ---------------------------------------------------------------------------------------------
# Set measures


def coverage(terms: list[str] | set[str], reference: list[str], top: int = 30, exclude: set[str] | frozenset[str] = frozenset()) -> float:
    """Share in [0, 1] of the ``top`` most frequent terms of ``reference`` (ignoring terms in
    ``exclude``; ties in frequency broken by first occurrence) that appear in ``terms``.

    Used as engagement: how many of the opponent's main terms this side takes up, excluding terms the
    side had already used itself (repeating one's own case is not engaging the opponent's). 0.0 when
    no reference term is left."""
    return coverage_of_counts(terms, Counter(t for t in reference if t not in exclude), top)


def coverage_of_counts(terms: list[str] | set[str], counts: Counter[str], top: int = 30) -> float:
    """:func:`coverage` against reference terms already counted: share in [0, 1] of the ``top``
    most frequent terms of ``counts`` (ties: the Counter's order, i.e. first occurrence) that appear in
    ``terms``; 0.0 when ``counts`` is empty."""
    ref = [t for t, _ in counts.most_common(top)]
    if not ref:
        return 0.0
    have = set(terms)
    return sum(1 for t in ref if t in have) / len(ref)


def novelty(terms: list[str], earlier: set[str]) -> float:
    """Share in [0, 1] of the distinct ``terms`` not in ``earlier`` (1.0 when ``earlier`` is empty;
    0.0 when ``terms`` is empty)."""
    distinct = set(terms)
    if not distinct:
        return 0.0
    return sum(1 for t in distinct if t not in earlier) / len(distinct)


@dataclass(frozen=True)
class TextStats:
    """Per-text counts: content terms (with repeats), questions, rebuttal, concession and evidence
    markers, whether it is a forfeit. Built by :func:`text_stats`."""

    terms: tuple[str, ...]
    questions: int
    rebuttals: int
    concessions: int
    evidence: int
    forfeit: bool

    @property
    def n_terms(self) -> int:
        """Number of content terms (with repeats)."""
        return len(self.terms)


def text_stats(text: str, language: str) -> TextStats:
    """All per-text features of ``text`` at once."""
    return TextStats(
        terms=tuple(content_terms(text, language)),
        questions=count_questions(text, language),
        rebuttals=rebuttal_markers(text, language),
        concessions=concession_markers(text, language),
        evidence=evidence_markers(text, language),
        forfeit=is_forfeit(text, language),
    )
