"""The offline judge on a dimensional rubric: one :class:`~adjudicator.verdict.dimensions.DimensionRating`
per (stage, evaluated side, dimension), from measurable text features only (:func:`rate_dimensions`).

A baseline, like the rest of the offline judge: it does not read the debate, it counts. Every rule is
ours, stated here, and none was fitted to labels. The side's text is its utterances in the stage;
lines starting with ``>`` quote the opponent and are left out of every feature except ``source``.
A stage in which the side posted nothing (a forfeit) gets the scale's minimum on every rating
dimension and nothing to check on the objective ones.

Per dimension key (preset dimensions; another key falls back to ``argument``'s rule):

- ``argument``: the CCDB suggested score (1-10) the offline tracker gave the side in this stage
  (engagement, substance and clash features through paper Table 5; :mod:`.rating`).
- ``source``: cited sources ``n = links + 0.5 x named sources`` (links: ``http(s)://`` URLs;
  named sources: "according to", "study", "survey", "report", "data from", "journal", numbered
  references ``[1]``), score ``1 + 9 x (1 - exp(-n / 2))``: 0 sources -> 1, 2 -> 6.7, 6 -> 9.6.
- ``language``: the misspelling rate ``r`` = share of the side's alphabetic words (2+ letters, outside
  links, code and markdown) that the English dictionary of the ``pyspellchecker`` package does not
  know, score ``10 - 9 x min(1, r / 0.10)`` (0 % -> 10, 5 % -> 5.5, 10 % or more -> 1). Chinese
  text: not assessed (no dictionary).
- ``emotional_appeal``: per 100 words, exclamation marks + rhetorical questions + second-person
  address + words of a short emotive list (:data:`EMOTIVE`), score ``1 + 9 x (1 - exp(-rate / 4))``.
- ``argument_clarity``: mean sentence length ``L`` in words, score ``10 - 9 x clip((L - 12) / 28)``
  (12 words or fewer -> 10, 40 or more -> 1).
- ``argument_arrangement``: signposts (first / second / finally / in conclusion / to summarise,
  headings, numbered and bulleted lines) per 100 words ``s`` and paragraphs ``P``, score
  ``1 + 9 x (0.6 x (1 - exp(-s / 1.5)) + 0.4 x min(1, (P - 1) / 4))``.
- ``topic_relevance``: share ``m`` of the motion's content terms the side uses and share ``o`` of
  its content terms shared with the opponent's latest speech, score ``1 + 9 x (0.6 m + 0.4 o)``.
- ``logical_validity`` (objective): an *argument* is a sentence with an inference marker
  (because, since, therefore, thus, hence, so, consequently, it follows); it counts as valid when
  both sides of the marker carry at least two content terms (a stated premise and a conclusion).
  A proxy for the model's premise-and-inference check; it cannot see a non sequitur.
- ``fact_authenticity`` (objective): claims are the side's own sentences (quotations removed) that
  contain a number or a capitalised name not at the sentence start; each is checked against the
  evidence source (:func:`adjudicator.input.evidence.support`). No source: not assessed.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from adjudicator.input.evidence import EvidenceSource, support
from adjudicator.input.formats import Side
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import Dimension, Rubric
from adjudicator.judges.offline.text import content_terms, is_forfeit, own_sentences, sentences
from adjudicator.verdict.dimensions import NO_EVIDENCE, DimensionRating

EMOTIVE = frozenset(
    """suffer suffering pain painful fear afraid tragic tragedy heartbreaking outrage outrageous shameful
    cruel cruelty innocent children families lives die dying death dead hope hopeless freedom justice unjust
    terrible horrible devastating danger dangerous love hate imagine think""".split()
)
_LINK = re.compile(r"https?://\S+")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_NAMED_SOURCE = re.compile(r"according to|\bstud(?:y|ies)\b|\bsurvey\b|\breport(?:ed|s)?\b|\bdata from\b|\bjournal\b|\[\d+\]|\bsource[sd]?:", re.I)
_SIGNPOST = re.compile(r"\b(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|finally|in conclusion|to conclude|to summari[sz]e|in summary|moreover|furthermore|next)\b", re.I)
_STRUCT_LINE = re.compile(r"^\s*(?:#{1,6}\s|\d+[.)]\s|[-*\u2022]\s|\*\*[^*]+\*\*\s*$)")
_INFERENCE = re.compile(r"\b(?:because|since|therefore|thus|hence|so|consequently|it follows(?: that)?)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)
_ALPHA = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_NUMBER = re.compile(r"\d")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]{2,}")
_QUOTE_SPAN = re.compile(r"[\"\u201c][^\"\u201d]*[\"\u201d]")


@lru_cache(maxsize=1)
def _spell():
    """The ``pyspellchecker`` English dictionary (loaded once; it ships with the package)."""
    from spellchecker import SpellChecker

    return SpellChecker(language="en")


def _side_text(stage: Stage, side: Side) -> str:
    return "\n\n".join(u.text for u in stage.utterances if u.side == side)


def _own(text: str) -> str:
    """The side's own words: quoted ('>') lines dropped."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))


def _words(text: str) -> list[str]:
    return _ALPHA.findall(_MD_LINK.sub(r"\1", _LINK.sub(" ", text)))


def _scaled(dim: Dimension, unit: float) -> float:
    """A unit value in [0, 1] placed on the dimension's scale, 2 decimals."""
    unit = min(1.0, max(0.0, unit))
    return round(dim.scale_min + (dim.scale_max - dim.scale_min) * unit, 2)


def misspelling_rate(text: str) -> tuple[float, int]:
    """(share of unknown words, words counted) of English ``text`` (see the module docstring)."""
    words = [w.lower() for w in _words(text) if len(w) >= 2]
    if not words:
        return 0.0, 0
    unknown = _spell().unknown(words)
    return sum(1 for w in words if w in unknown) / len(words), len(words)


def _source(text: str) -> tuple[float, str]:
    links = len(_LINK.findall(text))
    named = len(_NAMED_SOURCE.findall(_LINK.sub(" ", text)))
    n = links + 0.5 * named
    return 1 - math.exp(-n / 2), f"{links} link(s), {named} named source(s)"


def _emotional(text: str) -> tuple[float, str]:
    words = _words(text)
    if not words:
        return 0.0, "no words"
    qs = sum(1 for s in sentences(text) if s.endswith("?"))
    hits = text.count("!") + qs + len(_SECOND_PERSON.findall(text)) + sum(1 for w in words if w.lower() in EMOTIVE)
    rate = 100 * hits / len(words)
    return 1 - math.exp(-rate / 4), f"{rate:.1f} emotive marks per 100 words"


def _clarity(text: str) -> tuple[float, str]:
    sents = [s for s in sentences(text) if _words(s)]
    if not sents:
        return 0.0, "no sentences"
    mean_len = sum(len(_words(s)) for s in sents) / len(sents)
    return 1 - min(1.0, max(0.0, (mean_len - 12) / 28)), f"mean sentence {mean_len:.1f} words"


def _arrangement(text: str) -> tuple[float, str]:
    words = _words(text)
    if not words:
        return 0.0, "no words"
    posts = len(_SIGNPOST.findall(text)) + sum(1 for line in text.splitlines() if _STRUCT_LINE.match(line))
    paras = len([p for p in re.split(r"\n\s*\n", text) if p.strip()])
    s = 100 * posts / len(words)
    return 0.6 * (1 - math.exp(-s / 1.5)) + 0.4 * min(1.0, (paras - 1) / 4), f"{s:.1f} signposts per 100 words, {paras} paragraph(s)"


def _relevance(text: str, match: MatchView, opponent: str, lang: str) -> tuple[float, str]:
    mine = set(content_terms(text, lang))
    motion = set(content_terms(match.motion, lang))
    m = len(mine & motion) / len(motion) if motion else 0.0
    theirs = set(content_terms(opponent, lang))
    o = len(mine & theirs) / len(mine) if mine and theirs else 0.0
    return 0.6 * m + 0.4 * o, f"motion terms used {m:.2f}, shared with opponent {o:.2f}"


def _validity(text: str, lang: str) -> tuple[int, int, str]:
    checked = passed = 0
    for s in own_sentences(text):
        mk = _INFERENCE.search(s)
        if not mk:
            continue
        checked += 1
        before, after = s[: mk.start()], s[mk.end() :]
        if len(content_terms(before, lang)) >= 2 and len(content_terms(after, lang)) >= 2:
            passed += 1
    return checked, passed, f"{passed} of {checked} inference sentence(s) state premise and conclusion"


def factual_claims(text: str) -> list[str]:
    """The side's own sentences (quotations removed) that state a checkable fact: a number, or a
    capitalised name not at the sentence start; questions are not claims."""
    out = []
    for s in own_sentences(text):
        s = _QUOTE_SPAN.sub(" ", s).strip()
        if not s or s.endswith("?") or len(s.split()) < 4:
            continue
        rest = s.split(" ", 1)[1]
        if _NUMBER.search(s) or _NAME.search(" " + rest):
            out.append(s)
    return out


def _facts(text: str, evidence: EvidenceSource) -> tuple[int, int, str]:
    claims = factual_claims(_LINK.sub(" ", text))
    passed = 0
    for c in claims:
        ok, _ = support(c, evidence.retrieve(c))
        passed += ok
    return len(claims), passed, f"{passed} of {len(claims)} factual claim(s) supported by {evidence.name}"


def rate_dimensions(
    rubric: Rubric,
    match: MatchView,
    stage: Stage,
    previous: list[Stage],
    side: Side,
    suggested_score: int,
    evidence: EvidenceSource | None,
) -> list[DimensionRating]:
    """The side's :class:`DimensionRating` on every dimension of ``rubric`` in ``stage`` (module
    docstring). ``suggested_score`` is the side's CCDB suggested score in the stage (1-10);
    ``evidence`` the match's evidence source or None. [] for a non-dimensional rubric."""
    if not rubric.dimensional:
        return []
    lang = match.language
    raw = _side_text(stage, side)
    own = _own(raw)
    forfeit = is_forfeit(own, lang)
    other = "affirmative" if side == "negative" else "negative"
    opponent = next((_side_text(s, other) for s in reversed(previous) if other in s.evaluated_sides()), "")
    out: list[DimensionRating] = []
    for dim in rubric.dimensions:
        key = dim.key
        if dim.check == "fact_authenticity":
            if evidence is None:
                out.append(DimensionRating(dimension=key, note=NO_EVIDENCE))
            elif forfeit:
                out.append(DimensionRating(dimension=key, note="no speech: nothing to check"))
            else:
                checked, passed, note = _facts(own, evidence)
                out.append(DimensionRating(dimension=key, score=round(passed / checked, 4) if checked else None, checked=checked, passed=passed, note=note))
            continue
        if dim.check == "logical_validity":
            checked, passed, note = (0, 0, "no speech: nothing to check") if forfeit else _validity(own, lang)
            out.append(DimensionRating(dimension=key, score=round(passed / checked, 4) if checked else None, checked=checked, passed=passed, note=note))
            continue
        if forfeit:
            out.append(DimensionRating(dimension=key, score=dim.scale_min, note="no speech (forfeit): scale minimum"))
            continue
        if key == "language":
            if lang != "en":
                out.append(DimensionRating(dimension=key, note=f"not assessed: the offline misspelling rate needs an English dictionary (language {lang})"))
                continue
            rate, n = misspelling_rate(own)
            out.append(DimensionRating(dimension=key, score=_scaled(dim, 1 - min(1.0, rate / 0.10)), note=f"misspelling rate {rate:.3f} of {n} words (pyspellchecker en)"))
            continue
        if key == "source":
            unit, note = _source(raw)
        elif key == "emotional_appeal":
            unit, note = _emotional(own)
        elif key == "argument_clarity":
            unit, note = _clarity(own)
        elif key == "argument_arrangement":
            unit, note = _arrangement(own)
        elif key == "topic_relevance":
            unit, note = _relevance(own, match, opponent, lang)
        else:
            unit, note = (suggested_score - 1) / 9, f"CCDB suggested score {suggested_score}"
        out.append(DimensionRating(dimension=key, score=_scaled(dim, unit), note=note))
    return out
