"""Rationales in training targets without gold numbers (protocol 001 s.03: "chains of thought in
training data must not contain gold numerical labels").

A rationale is a judge's written reason (``labels.rationales`` of a match: ``"winner"`` for Task 1,
``"best_debater"`` for Task 3, ``"<stage_id>|<side>"`` for a Task 2 unit). It becomes the ``basis``
of a training target only after :func:`filter_rationale` has removed every gold number of its match,
and the export writes it only after :func:`check_rationale` finds none left.

What counts as a gold number (:func:`gold_numbers`): every value a label of the match holds or that
a metric reads off them -- each judge's stage scores (original and appeal panel), each unit's mean
over a panel (kept at full precision and compared at the precision a mention is written with), the
affirmative-minus-negative differences of those means on paired stages and of each judge's own
scores (and their absolute values), each judge's and the summed best-debater votes per debater
(0 for a debater left without one), those summed votes as a share of all votes in per cent, the
winner split (how many judges voted for each side), the Task 1 target p, the audience vote count
and per-dimension human scores.

What counts as a number in a text (:func:`number_mentions`), full-width digits, point and colon
read as their ASCII forms (one character for one, so the rest of the text is left as it is):

- digits, with an optional decimal part (``8``, ``6.33``, ``０.６７``), not glued to a letter or digit
  before them (``s03`` is a stage id, not a number);
- Chinese numerals (零〇一二两三四五六七八九十) only next to a score or vote word: before 分, 票,
  比 or 点 (八分, 三票, 二比一, 六点五) or after 比; bare 一, 二, 三 are parts of ordinary words
  (一定, 统一) and of position names;
- English number words zero to ten only before "point(s)", "vote(s)", "out of" or "/10", or after
  "scored", "score of", "gave it" (eight points, three votes, scored seven).

Exempt, because they name a debater or a place in the debate rather than a value: a numeral directly
before 辩 (一辩, 3辩) or 号, directly after 第 (第三环节), and after "Speaker", "speaker", "stage",
"Stage", "round" or "Round" (Speaker 3).

Limits (said in the manifest): a number spelled in a way not listed above (a Roman numeral, "a
perfect score") is not recognised; the filter removes the numeral, not the sentence around it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from adjudicator.errors import InputError

#: What a removed number is replaced with.
REDACTED = "[…]"

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}

_DIGITS = re.compile(r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?)(?![0-9])")
_ZH_NUM = "[零〇一二两三四五六七八九十]+(?:点[零〇一二三四五六七八九]+)?"
_ZH = re.compile(rf"(?:(?<=比)({_ZH_NUM}))|(?:({_ZH_NUM})(?=\s*[分票比点]))")
_EN_WORD = "|".join(_EN_WORDS)
_EN = re.compile(
    rf"(?:(?<=\bscored )|(?<=\bscore of )|(?<=\bgave it ))\b({_EN_WORD})\b|\b({_EN_WORD})\b(?=\s*(?:points?\b|votes?\b|out of\b|/\s*10\b))",
    re.IGNORECASE,
)
#: Text right before a numeral that makes it a name (Speaker 3, 第三) rather than a value.
_EXEMPT_BEFORE = re.compile(r"(?:第|[Ss]peaker|[Ss]tage|[Rr]ound)\s*$")
#: Text right after a numeral that makes it a name (一辩, 3号).
_EXEMPT_AFTER = re.compile(r"^[辩号]")


@dataclass(frozen=True)
class Mention:
    """One number written in a text: its span, its text (digits in ASCII), the value
    and its precision (decimal places written; 0 for an integer or a word)."""

    start: int
    end: int
    text: str
    value: float
    decimals: int


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


def number_mentions(text: str) -> list[Mention]:
    """Every number written in ``text`` (module docstring) outside the exempt contexts, in order.
    Spans index ``text`` (:func:`normalise` keeps its length)."""
    norm = normalise(text)
    found: list[Mention] = []
    for m in _DIGITS.finditer(norm):
        s = m.group(1)
        found.append(Mention(m.start(1), m.end(1), s, float(s), len(s.partition(".")[2])))
    for m in _ZH.finditer(norm):
        g = 1 if m.group(1) else 2
        v = _zh_value(m.group(g))
        if v is not None:
            found.append(Mention(m.start(g), m.end(g), m.group(g), v, len(m.group(g).partition("点")[2])))
    for m in _EN.finditer(norm):
        g = 1 if m.group(1) else 2
        found.append(Mention(m.start(g), m.end(g), m.group(g), float(_EN_WORDS[m.group(g).lower()]), 0))
    out = [x for x in found if not _EXEMPT_BEFORE.search(norm[: x.start]) and not _EXEMPT_AFTER.match(norm[x.end :])]
    return sorted(out, key=lambda x: x.start)


#: Full-width digits, point and colon -> ASCII (one character each).
_FULL_WIDTH = str.maketrans({**{chr(0xFF10 + i): str(i) for i in range(10)}, "．": ".", "：": ":"})


def normalise(text: str) -> str:
    """``text`` with full-width digits, point and colon as ASCII; same length, every other
    character unchanged."""
    return text.translate(_FULL_WIDTH)


def _is_gold(m: Mention, gold: frozenset[float]) -> bool:
    """True when mention ``m`` equals a gold value at the precision it is written with: an integer
    mention matches a gold integer; ``6.3`` or ``6.33`` matches a mean of 6.333..."""
    tol = 0.5 * 10.0 ** (-m.decimals) if m.decimals else 1e-9
    return any(abs(m.value - g) < tol + 1e-9 and (m.decimals or float(g).is_integer()) for g in gold)


def gold_in_text(text: str, gold: frozenset[float]) -> list[Mention]:
    """The mentions of ``text`` whose value is a gold number of ``gold``."""
    return [m for m in number_mentions(text) if _is_gold(m, gold)]


def filter_rationale(text: str, gold: frozenset[float]) -> tuple[str, int]:
    """``text`` with every gold number replaced by :data:`REDACTED` (full-width digits read as
    digits; every other character kept), and how many were removed."""
    hits = gold_in_text(text, gold)
    out, last = [], 0
    for m in hits:
        out += [text[last : m.start], REDACTED]
        last = m.end
    out.append(text[last:])
    return "".join(out), len(hits)


def check_rationale(text: str, gold: frozenset[float], where: str) -> None:
    """Raise InputError naming ``where`` (e.g. ``"synthetic_2v2_01 task2 s03|negative"``) and the
    first gold number when ``text`` still contains one; the export's last word before it writes a
    rationale."""
    hits = gold_in_text(text, gold)
    if hits:
        m = hits[0]
        raise InputError(
            f"rationale of {where}: contains the gold number {m.text!r} ({len(hits)} gold number(s) in all); "
            "chains of thought in training data must not contain gold labels (protocol 001 s.03)",
            "export with --rationales filter (removes them), or --rationales omit, or clean the rationale in the match file",
        )


# ---------------------------------------------------------------------------------------------
# the gold numbers of a match


def _panel_values(judges: Iterable[Any], units: list[str]) -> set[float]:
    """Scores, unit means, paired differences (of the means and of each judge's scores) and vote
    counts of one panel."""
    judges = list(judges)
    out: set[float] = set()
    for j in judges:
        out |= {float(v) for v in j.stage_scores.values()}
        out |= {float(v) for v in j.best_debater_votes.values()}
    means: dict[str, float] = {}
    for key in units:
        got = [j.stage_scores[key] for j in judges if key in j.stage_scores]
        if got:
            means[key] = sum(got) / len(got)
    out |= set(means.values())
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
        out |= {float(winners.count("affirmative")), float(winners.count("negative")), float(len(winners))}
    return out


def gold_numbers(match: Any, extra: Iterable[float] = ()) -> frozenset[float]:
    """Every gold number of ``match`` (a :class:`~adjudicator.match.Match`; module docstring), plus
    ``extra`` (the targets written for it, e.g. the Task 1 p). Empty for a match without labels."""
    labels = match.labels
    if labels is None:
        return frozenset(float(x) for x in extra)
    units = [f"{sid}|{side}" for sid, side in match.scored_units()]
    out: set[float] = set(float(x) for x in extra)
    for panel in (labels.judges, labels.appeal_judges):
        out |= _panel_values(panel, units)
    debaters = match.debater_labels()
    summed = {d: sum(j.best_debater_votes.get(d, 0) for j in labels.judges) for d in debaters}
    total = sum(summed.values())
    if total:
        out |= {float(v) for v in summed.values()} | {float(total)}
        out |= {round(100.0 * v / total) * 1.0 for v in summed.values()}
    if labels.vote_count is not None:
        out.add(float(labels.vote_count))
    for sides in labels.dimension_scores.values():
        out |= {float(v) for v in sides.values()}
    return frozenset(x for x in out if math.isfinite(x))
