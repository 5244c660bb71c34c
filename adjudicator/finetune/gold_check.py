"""The check that no gold number is left in a rationale, independent of the filter's reading of
numbers (protocol 001 s.03: "chains of thought in training data must not contain gold numerical
labels").

The filter (:func:`adjudicator.finetune.rationales.filter_rationale`) reads every number in a text
and compares it with the gold values. This check works the other way round, so that it finds what
the filter misses: it writes out every rendering of every gold value and searches the text for
them, after Unicode NFKC normalisation (full-width and compatibility forms: ``０．４４``, ``½``,
``⅔`` become ``0.44``, ``1⁄2``, ``2⁄3``; the fraction slash is read as ``/``). The renderings of a
gold value ``g`` (its magnitude: a difference of -3.33 is searched as 3.33):

- decimals: ``g`` rounded and truncated to 1 to :data:`MAX_DECIMALS` places, with and without the
  leading zero (4/9: ``0.4``, ``0.44``, ``.444``, ``0.4444`` ...; 2/3: ``0.67``, ``0.66``,
  ``0.667``); an integer also as ``8.0``, ``8.00`` ...;
- an integer below 1000 in digits; below 100 as a Chinese numeral (八, 十二, 两) next to a score or
  vote word (before 分, 票, 比 or 点, after 比 or 之); up to ten as an English word next to one
  ("eight points", "scored seven", "four out of");
- Chinese decimals (零点四四, 八点三三) to three places;
- a value in (0, 1] as every fraction a/b with b up to :data:`MAX_DENOMINATOR` (4/9 as ``4/9``,
  ``8/18`` is beyond; 2/3 as ``2/3``, ``4/6``, ``6/9``, ``8/12``): ``a/b``, ``a out of b``,
  ``b分之a`` (digits or Chinese numerals), "two thirds", "a third", "four-ninths"; never inside a
  path or date (no slash before or after it: ``2020/9/9`` holds no 9/9).

A per cent is one of the gold values (:func:`adjudicator.finetune.rationales.gold_numbers` holds
each share also in per cent), so ``44.4 %``, ``44 percent`` and 百分之四十四 are renderings of the
per cent value. The numerals that name a debater or a place (一辩, Speaker 3, 第三环节, s03) are
exempt here as in the filter (:func:`adjudicator.finetune.rationales.exempt`).
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata

from adjudicator.errors import InputError
from adjudicator.finetune.rationales import EN_AFTER, EN_BEFORE, EN_FRACTIONS, ZH_AFTER, ZH_BEFORE, ZH_NUMERALS, exempt, gold_in_text

#: Decimal places a gold value is written out to.
MAX_DECIMALS = 6
#: Largest denominator of a fraction a gold share is written as.
MAX_DENOMINATOR = 12

_EN = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_ZH = "零一二三四五六七八九"
_SINGULAR = {d: [w for w, n in EN_FRACTIONS.items() if n == d] for d in set(EN_FRACTIONS.values())}


def zh_integer(n: int) -> list[str]:
    """The Chinese numerals of ``n`` (0-99): 0 零 〇, 2 二 两, 10 十 一十, 12 十二, 30 三十, 47 四十七."""
    if n < 10:
        return {0: ["零", "〇"], 2: ["二", "两"]}.get(n, [_ZH[n]])
    tens, ones = divmod(n, 10)
    tail = _ZH[ones] if ones else ""
    return [f"十{tail}", f"一十{tail}"] if tens == 1 else [f"{_ZH[tens]}十{tail}"]


def _decimals(a: float) -> set[str]:
    """``a`` rounded and truncated to 1..MAX_DECIMALS places, with and without a leading zero."""
    out = set()
    for d in range(1, MAX_DECIMALS + 1):
        q = 10**d
        for text in (f"{a:.{d}f}", f"{math.floor(a * q + 1e-9) / q:.{d}f}"):
            out |= {text, text[1:]} if text.startswith("0.") else {text}
    return out


def _fractions(a: float) -> list[tuple[int, int]]:
    """Every (numerator, denominator) with denominator 2..MAX_DENOMINATOR equal to ``a`` in (0, 1]."""
    if not 0.0 < a <= 1.0:
        return []
    return [(round(a * b), b) for b in range(2, MAX_DENOMINATOR + 1) if abs(round(a * b) / b - a) < 1e-9]


def _alt(forms: set[str] | list[str], escape: bool = True) -> str:
    return "|".join(sorted((re.escape(f) if escape else f for f in forms), key=lambda s: (-len(s), s)))


@functools.lru_cache(maxsize=512)
def _patterns(gold: frozenset[float]) -> tuple[re.Pattern[str], ...]:
    """The search patterns of every rendering of ``gold`` (module docstring)."""
    digits, decimals, zh_ints, zh_decimals, words, fractions = set(), set(), set(), set(), set(), set()
    for g in gold:
        a = abs(g)
        if not math.isfinite(a):
            continue
        decimals |= _decimals(a)
        if a.is_integer() and a < 1000:
            digits.add(str(int(a)))
            if a < 100:
                zh_ints |= set(zh_integer(int(a)))
            if a <= 10:
                words.add(_EN[int(a)])
        if a < 100:
            whole = int(a)
            for d in (1, 2, 3):
                whole_part, _, frac = f"{a:.{d}f}".partition(".")
                if whole_part == str(whole):
                    zh_decimals |= {f"{w}点{''.join(_ZH[int(c)] for c in frac)}" for w in zh_integer(whole)}
        for num, den in _fractions(a):
            nums = [str(num), *([_EN[num]] if num <= 10 else [])]
            dens = [str(den), *([_EN[den]] if den <= 10 else [])]
            fractions |= {rf"{re.escape(n)}\s*(?:/|\s+out\s+of\s+)\s*{re.escape(d)}" for n in nums for d in dens}
            zh_nums = [str(num), *zh_integer(num)]
            zh_dens = [str(den), *zh_integer(den)]
            fractions |= {rf"{re.escape(d)}\s*分之\s*{re.escape(n)}" for n in zh_nums for d in zh_dens}
            if den in _SINGULAR:
                lead = [_EN[num], *(["a", "an"] if num == 1 else [])] if num <= 10 else []
                fractions |= {rf"\b{n}[\s-]+{w}s?\b" for n in lead for w in _SINGULAR[den]}
    num_chars = f"{ZH_NUMERALS}点"
    after_en = "|".join(rf"(?<=\b{re.escape(x)})" for x in EN_AFTER)
    out = []
    if digits:
        out.append(re.compile(rf"(?<![A-Za-z0-9_.])(?:{_alt(digits)})(?![0-9]|\.[0-9])"))
    if decimals:
        out.append(re.compile(rf"(?<![A-Za-z0-9_.])(?:{_alt(decimals)})(?![0-9])"))
    if zh_ints:
        z = _alt(zh_ints)
        before = f"[{ZH_BEFORE.replace('点', '')}]|点(?![零〇一二三四五六七八九])"
        out.append(re.compile(rf"(?<![{num_chars}])(?:(?<=[{ZH_AFTER}])(?:{z})(?![{num_chars}])|(?:{z})(?=\s*(?:{before})))"))
    if zh_decimals:
        out.append(re.compile(rf"(?<![{num_chars}])(?:{_alt(zh_decimals)})(?![零〇一二三四五六七八九])"))
    if words:
        w = _alt(words)
        out.append(re.compile(rf"(?:{after_en})\b(?:{w})\b|\b(?:{w})\b(?=\s*{EN_BEFORE})", re.IGNORECASE))
    if fractions:
        out.append(re.compile(rf"(?<![A-Za-z0-9_./])(?:{_alt(fractions, escape=False)})(?![A-Za-z0-9/]|\.[0-9])", re.IGNORECASE))
    return tuple(out)


def normal_form(text: str) -> str:
    """The text the check searches: NFKC, the fraction slash as ``/``."""
    return unicodedata.normalize("NFKC", text).replace("\u2044", "/")


def gold_renderings_in(text: str, gold: frozenset[float]) -> list[str]:
    """The renderings of a gold value of ``gold`` found in ``text`` (module docstring), in order
    of position; [] when none is left."""
    norm = normal_form(text)
    found = [(m.start(), m.group(0)) for rx in _patterns(frozenset(gold)) for m in rx.finditer(norm) if not exempt(norm, m.start(), m.end())]
    return [t for _, t in sorted(found)]


def check_rationale(text: str, gold: frozenset[float], where: str) -> None:
    """Raise InputError naming ``where`` (e.g. ``"synthetic_2v2_01 task2 s03|negative"``) and the
    first gold number when ``text`` still contains one; the export's last word before it writes a
    rationale. Two searches, so that one finds what the other misses: the filter's own reading
    (:func:`gold_in_text`, numbers read from the text and compared with the gold values) and
    :func:`gold_renderings_in` (every rendering of every gold value
    written out and searched for in the NFKC form of the text)."""
    hits = [m.text for m in gold_in_text(text, gold)] or gold_renderings_in(text, gold)
    if hits:
        raise InputError(
            f"rationale of {where}: contains the gold number {hits[0]!r} ({len(hits)} gold number(s) in all); "
            "chains of thought in training data must not contain gold labels (protocol 001 s.03)",
            "export with --rationales filter (removes them), or --rationales omit, or clean the rationale in the match file",
        )
