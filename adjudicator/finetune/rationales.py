"""Rationales in training targets without gold numbers (protocol 001 s.03: "chains of thought in
training data must not contain gold numerical labels").

A rationale is a judge's written reason (``labels.rationales`` of a match: ``"winner"`` for Task 1,
``"best_debater"`` for Task 3, ``"<stage_id>|<side>"`` for a Task 2 unit). It becomes the ``basis``
of a training target only after :func:`filter_rationale` has removed every gold number of its match,
and the export writes it only after :func:`adjudicator.finetune.gold_check.check_rationale` finds none left.

What counts as a gold number (:func:`gold_numbers`, values at full precision): every value a label
of the match holds or that a metric reads off them -- each judge's stage scores (original and
appeal panel) and each judge's total and mean per side; each unit's mean over a panel and each
side's mean over its units; the affirmative-minus-negative differences of those means on paired
stages and of each judge's own scores (and their absolute values); each judge's and the summed
best-debater votes per debater (0 for a debater left without one) and those votes as shares (of
the judge's votes, of all votes); the winner split (how many judges voted for each side) and as
shares (the panel's p for each side); each judge's p (1 for a vote for the affirmative, 0 for the
negative); every share also in per cent (unrounded, rounded and truncated to an integer); the
Task 1 target p, the audience vote count and per-dimension human scores.

A number written in a text is a gold number when it equals one at the precision it is written with
(:func:`matches_gold`): rounded or truncated (4/9 as 0.4, 0.44, 0.444, 0.4444; 2/3 as 0.67, 0.66,
0.667), an integer only a gold integer, a fraction (4/9, 三分之二, "two thirds") exactly.

What counts as a number in a text (:func:`number_mentions`), full-width digits, point, colon and
slash read as their ASCII forms (one character for one, so the rest of the text is left as it is):

- digits, with an optional decimal part (``8``, ``6.33``, ``.44``, ``０.６７``), not glued to a
  letter or digit before them (``s03`` is a stage id, not a number);
- Chinese numerals (零〇一二两三四五六七八九十) next to a score or vote word: before 分, 票, 比 or 点
  (八分, 三票, 二比一, 六点五) or after 比 or 之 (百分之四十四); with a 点 decimal part anywhere
  (零点四四); bare 一, 二, 三 are parts of ordinary words (一定, 统一) and of position names;
- English number words zero to ten only before "point(s)", "vote(s)", "out of" or "/10", or after
  "scored", "score of", "gave it", "out of" (eight points, three votes, scored seven);
- fractions, each also one mention of their whole span: ``4/9``, ``4 out of 9``, "four out of
  nine", "two thirds", "a third", "four-ninths", 九分之四 (digits or Chinese numerals).

Exempt, because they name a debater or a place in the debate rather than a value: a numeral directly
before 辩 (一辩, 3辩) or 号, directly after 第 (第三环节), and after "Speaker", "speaker", "stage",
"Stage", "round" or "Round" (Speaker 3).

The export's check (:func:`adjudicator.finetune.gold_check.check_rationale`) does not trust this reading alone: it also searches the
text for every rendering of every gold value written out (:mod:`adjudicator.finetune.gold_check`),
so a form this module does not read (⅔, ½) is refused rather than written.

Limits (said in the manifest): a number spelled in a way not listed above (a Roman numeral, "a
perfect score") is not recognised; the filter removes the numeral, not the sentence around it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

#: What a removed number is replaced with.
REDACTED = "[…]"

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
#: English fraction words -> denominator ("two thirds", "a quarter", "four-ninths").
EN_FRACTIONS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5,
                "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10}  # fmt: skip

#: The contexts that make a Chinese or English numeral a value (shared with the independent check,
#: :mod:`adjudicator.finetune.gold_check`): a Chinese numeral before one of ``ZH_BEFORE`` or after
#: one of ``ZH_AFTER``; an English number word before ``EN_BEFORE`` or after ``EN_AFTER``.
ZH_NUMERALS = "零〇一二两三四五六七八九十"
ZH_BEFORE = "分票比点"
ZH_AFTER = "比之"
EN_BEFORE = r"(?:points?\b|votes?\b|out of\b|/\s*10\b)"
EN_AFTER = ("scored ", "score of ", "gave it ", "out of ")

_NUM_CHARS = f"[{ZH_NUMERALS}]"
_ZH_FRAC_DIGITS = "[零〇一二三四五六七八九]"
_ZH_NUM = f"{_NUM_CHARS}+(?:点{_ZH_FRAC_DIGITS}+)?"
_DIGITS = re.compile(r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?|\.\d+)(?![0-9])")
_ZH = re.compile(
    rf"(?<![{ZH_NUMERALS}点])(?:(?<=[{ZH_AFTER}])({_ZH_NUM})|({_ZH_NUM})(?=\s*[{ZH_BEFORE}])|({_NUM_CHARS}+点{_ZH_FRAC_DIGITS}+))(?![{ZH_NUMERALS}])"
)
_EN_WORD = "|".join(_EN_WORDS)
_EN = re.compile(
    "(?:" + "|".join(rf"(?<=\b{a})" for a in EN_AFTER) + rf")\b({_EN_WORD})\b|\b({_EN_WORD})\b(?=\s*{EN_BEFORE})",
    re.IGNORECASE,
)
#: A fraction written as one: ``4/9``, ``4 out of 9``, ``four out of nine``, ``two thirds``, ``九分之四``; not
#: a part of a path or date (``2020/9/9``: no slash before or after it).
_NUMBER = rf"(?:\d+|{_EN_WORD})"
_FRACTION = re.compile(rf"(?<![A-Za-z0-9_./])({_NUMBER})\s*(?:/|\s+out of\s+)\s*({_NUMBER})(?![A-Za-z0-9/]|\.[0-9])", re.IGNORECASE)
_FRACTION_WORDS = re.compile(rf"\b({_EN_WORD}|a|an)[\s-]+({'|'.join(EN_FRACTIONS)})\b", re.IGNORECASE)
_ZH_FRACTION = re.compile(rf"(\d+|{_NUM_CHARS}+)\s*分之\s*(\d+|{_NUM_CHARS}+)")
#: Text right before a numeral that makes it a name (Speaker 3, 第三) rather than a value.
_EXEMPT_BEFORE = re.compile(r"(?:第|[Ss]peaker|[Ss]tage|[Rr]ound)\s*$")
#: Text right after a numeral that makes it a name (一辩, 3号).
_EXEMPT_AFTER = re.compile(r"^[辩号]")


def exempt(text: str, start: int, end: int) -> bool:
    """True when the numeral at ``text[start:end]`` names a debater or a place (module docstring:
    Speaker 3, 第三, 一辩, 3号) rather than a value."""
    return bool(_EXEMPT_BEFORE.search(text[:start]) or _EXEMPT_AFTER.match(text[end:]))


@dataclass(frozen=True)
class Mention:
    """One number written in a text: its span, its text (digits in ASCII), the value, its
    precision (decimal places written; 0 for an integer or a word) and whether it is ``exact``
    (a fraction such as ``4/9`` or 三分之二: its value is compared without rounding)."""

    start: int
    end: int
    text: str
    value: float
    decimals: int
    exact: bool = False


def _zh_value(text: str) -> float | None:
    """The value of a Chinese numeral up to 99 with an optional 点 decimal part (二 2, 十二 12,
    三十 30, 六点五 6.5); None for a form it does not read (百 and larger)."""
    whole, _, frac = text.partition("点")
    if "十" in whole:
        tens, _, ones = whole.partition("十")
        if "十" in ones:
            return None
        t = _ZH_DIGITS.get(tens, None) if tens else 1
        o = _ZH_DIGITS.get(ones, None) if ones else 0
        if t is None or o is None:
            return None
        value = float(t * 10 + o)
    elif whole:
        if any(c not in _ZH_DIGITS for c in whole):
            return None
        value = float(int("".join(str(_ZH_DIGITS[c]) for c in whole)))
    else:
        return None
    if frac:
        value += float("0." + "".join(str(_ZH_DIGITS[c]) for c in frac))
    return value


def _count(text: str) -> float | None:
    """The value of a fraction's part: digits, an English number word (``a`` is one) or a Chinese numeral."""
    if text.isdigit():
        return float(text)
    word = text.lower()
    if word in _EN_WORDS:
        return float(_EN_WORDS[word])
    if word in ("a", "an"):
        return 1.0
    return _zh_value(text)


def _fractions(norm: str) -> list[Mention]:
    """The fractions written in ``norm`` (4/9, four out of nine, two thirds, 九分之四), each one
    exact mention spanning the whole fraction."""
    out = []
    for rx, num, den in ((_FRACTION, 1, 2), (_FRACTION_WORDS, 1, 2), (_ZH_FRACTION, 2, 1)):
        for m in rx.finditer(norm):
            a = _count(m.group(num))
            b = float(EN_FRACTIONS[m.group(den).lower()]) if rx is _FRACTION_WORDS else _count(m.group(den))
            if a is not None and b:
                out.append(Mention(m.start(), m.end(), m.group(0), a / b, 0, exact=True))
    return out


def number_mentions(text: str) -> list[Mention]:
    """Every number written in ``text`` (module docstring) outside the exempt contexts, in order
    of position; a fraction is one exact mention and its parts are mentions of their own (the
    filter removes the union of the gold ones). Spans index ``text`` (:func:`normalise` keeps its
    length)."""
    norm = normalise(text)
    found: list[Mention] = []
    for m in _DIGITS.finditer(norm):
        s = m.group(1)
        found.append(Mention(m.start(1), m.end(1), s, float(s), len(s.partition(".")[2])))
    for m in _ZH.finditer(norm):
        g = next(i for i in (1, 2, 3) if m.group(i))
        v = _zh_value(m.group(g))
        if v is not None:
            found.append(Mention(m.start(g), m.end(g), m.group(g), v, len(m.group(g).partition("点")[2])))
    for m in _EN.finditer(norm):
        g = 1 if m.group(1) else 2
        found.append(Mention(m.start(g), m.end(g), m.group(g), float(_EN_WORDS[m.group(g).lower()]), 0))
    found += _fractions(norm)
    out = [x for x in found if not exempt(norm, x.start, x.end)]
    return sorted(out, key=lambda x: (x.start, -x.end))


#: Full-width digits, point and colon -> ASCII (one character each).
_FULL_WIDTH = str.maketrans({**{chr(0xFF10 + i): str(i) for i in range(10)}, "．": ".", "：": ":", "／": "/"})


def normalise(text: str) -> str:
    """``text`` with full-width digits, point, colon and slash as ASCII; same length, every other
    character unchanged."""
    return text.translate(_FULL_WIDTH)


def matches_gold(value: float, decimals: int, gold: Iterable[float], exact: bool = False) -> bool:
    """True when a number written as ``value`` with ``decimals`` decimal places is a gold number
    (sign ignored: a difference's magnitude is gold too): an integer matches a gold integer; a
    decimal matches a gold value rounded or truncated to its precision (``0.4``, ``0.44``,
    ``0.444`` and ``0.4444`` all match 4/9; ``0.66`` and ``0.67`` match 2/3); an ``exact`` value
    (a fraction) matches a gold value within 1e-9."""
    for g in gold:
        a = abs(g)
        if exact:
            if abs(value - a) < 1e-9:
                return True
        elif not decimals:
            if a.is_integer() and abs(value - a) < 1e-9:
                return True
        else:
            q = 10.0**decimals
            if abs(value - a) < 0.5 / q + 1e-9 or abs(value - math.floor(a * q + 1e-9) / q) < 1e-9:
                return True
    return False


def gold_in_text(text: str, gold: frozenset[float]) -> list[Mention]:
    """The mentions of ``text`` whose value is a gold number of ``gold`` (:func:`matches_gold`)."""
    return [m for m in number_mentions(text) if matches_gold(m.value, m.decimals, gold, m.exact)]


def filter_rationale(text: str, gold: frozenset[float]) -> tuple[str, int]:
    """``text`` with every gold number replaced by :data:`REDACTED` (full-width digits read as
    digits; every other character kept; overlapping gold mentions, a fraction and its parts, are
    removed as one), and how many were removed."""
    spans: list[list[int]] = []
    for m in gold_in_text(text, gold):
        if spans and m.start < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], m.end)
        else:
            spans.append([m.start, m.end])
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], REDACTED]
        last = end
    out.append(text[last:])
    return "".join(out), len(spans)


# ---------------------------------------------------------------------------------------------
# the gold numbers of a match


def _share_values(counts: Iterable[float]) -> set[float]:
    """Each of ``counts`` as a share of their sum, in [0, 1] and in per cent (unrounded, rounded
    and truncated to an integer: 4 of 9 gives 0.444..., 44.44..., 44)."""
    counts = list(counts)
    total = sum(counts)
    out: set[float] = set()
    if total:
        for c in counts:
            share = c / total
            out |= {share, 100.0 * share, float(round(100.0 * share)), float(math.floor(100.0 * share + 1e-9))}
    return out


def _panel_values(judges: Iterable[Any], units: list[str]) -> set[float]:
    """One panel's gold numbers: scores, unit means, each side's mean and each judge's total and
    mean over the units, paired differences (of the means and of each judge's scores), the
    best-debater votes (each judge's and as shares of the judge's votes), the winner split (counts,
    and as shares: the panel's p for each side) and each judge's own p (1 for a vote for the
    affirmative, 0 for the negative)."""
    judges = list(judges)
    out: set[float] = set()
    for j in judges:
        out |= {float(v) for v in j.stage_scores.values()}
        out |= {float(v) for v in j.best_debater_votes.values()}
        out |= _share_values(j.best_debater_votes.values())
        for side in ("affirmative", "negative"):
            own = [v for k, v in j.stage_scores.items() if k.endswith(f"|{side}")]
            if own:
                out |= {float(sum(own)), sum(own) / len(own)}
        if j.winner:
            out.add(1.0 if j.winner == "affirmative" else 0.0)
    means: dict[str, float] = {}
    for key in units:
        got = [j.stage_scores[key] for j in judges if key in j.stage_scores]
        if got:
            means[key] = sum(got) / len(got)
    out |= set(means.values())
    for side in ("affirmative", "negative"):
        own = [v for k, v in means.items() if k.endswith(f"|{side}")]
        if own:
            out |= {sum(own), sum(own) / len(own)}
    for key, aff in means.items():
        sid, _, side = key.partition("|")
        neg = means.get(f"{sid}|negative")
        if side == "affirmative" and neg is not None:
            out |= {aff - neg, abs(aff - neg)}
            for j in judges:
                a, n = j.stage_scores.get(key), j.stage_scores.get(f"{sid}|negative")
                if a is not None and n is not None:
                    out |= {float(a - n), float(abs(a - n))}
    winners = [j.winner for j in judges if j.winner]
    if winners:
        split = (float(winners.count("affirmative")), float(winners.count("negative")))
        out |= {*split, float(len(winners))} | _share_values(split)
    return out


def gold_numbers(match: Any, extra: Iterable[float] = ()) -> frozenset[float]:
    """Every gold number of ``match`` (a :class:`~adjudicator.match.Match`; module docstring), plus
    ``extra`` (the targets written for it, e.g. the Task 1 p, with its per cent). Empty for a
    match without labels. Values at full precision; a mention is compared at the precision it is
    written with (:func:`matches_gold`)."""
    labels = match.labels
    extra = [float(x) for x in extra]
    out: set[float] = set(extra) | {100.0 * x for x in extra if 0.0 <= x <= 1.0}
    if labels is None:
        return frozenset(out)
    units = [f"{sid}|{side}" for sid, side in match.scored_units()]
    for panel in (labels.judges, labels.appeal_judges):
        out |= _panel_values(panel, units)
    debaters = match.debater_labels()
    summed = {d: sum(j.best_debater_votes.get(d, 0) for j in labels.judges) for d in debaters}
    total = sum(summed.values())
    if total:
        out |= {float(v) for v in summed.values()} | {float(total)} | _share_values(summed.values())
    if labels.vote_count is not None:
        out.add(float(labels.vote_count))
    for sides in labels.dimension_scores.values():
        out |= {float(v) for v in sides.values()}
    return frozenset(x for x in out if math.isfinite(x))
