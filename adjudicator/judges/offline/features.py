"""What one side did in one stage, as numbers: :class:`SideFeatures` and :func:`side_features`.

For each evaluated side of the stage the offline judge computes text features
(:mod:`adjudicator.judges.offline.text`) from the side's utterances, the opponent's utterances in the stage and the
opponent's last two stages, and the side's own earlier stages (one function per feature below):

- substance: an absolute-length factor (short speeches score low; forfeits and empty speeches 0)
  times a capped factor for length relative to the opponent's comparable speech (same stage for
  interactive stages, the opponent's latest speech of the same type or monologue otherwise), which can
  take at most 40% off;
- engagement: share of the opponent's 30 most frequent content terms (this stage and its last two) that
  the side takes up; in case-building stages (constructive, supplementary) only terms new to the side
  count, elsewhere returning to shared ground is the job, so the side's own earlier terms count too;
- topicality: share of the motion's terms (those the debate actually uses) that the side uses;
- novelty: share of the side's distinct terms it had not used in its earlier stages (rewarded only in
  case-building stages);
- synthesis: share of the ledger's open clashes the side takes up; weighing: comparison markers
  ("outweigh", "therefore", "in sum"; 更重要, 因此, 综上, 比较); broad engagement: coverage of the
  opponent's main terms over the whole debate (the three carry summaries and closings, whose job is
  to revisit and weigh, paper Appendix A.2);
- questions asked, and questions answered (a respondent turn after a question that is substantive);
- rebuttal, concession and evidence markers.

:mod:`adjudicator.judges.offline.rating` turns them into rubric levels.

Three inputs cover the whole debate so far: the terms anyone has spoken (for topicality), the side's
own earlier terms (novelty, engagement) and the opponent's terms in every stage
(:func:`_broad_engagement`). They come from a
:class:`~adjudicator.judges.offline.reading.DebateReading`, which keeps them as running counts, so one
side's features cost time in proportion to the stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.input.formats import Side, other_side
from adjudicator.input.match import MatchView, Stage
from adjudicator.judges.offline.ledger import clash_units, mentions_unit
from adjudicator.judges.offline.reading import DebateReading, read_through
from adjudicator.judges.offline.text import content_terms, coverage, coverage_of_counts, novelty, text_stats, weighing_markers
from adjudicator.judges.offline.transcript import comparable_opponent_terms, opponent_history, questions_answered, side_text
from adjudicator.verdict.battlefield import Clash

# ---------------------------------------------------------------------------------------------
# Constants (coarse, documented; not fitted)

#: Content terms below which a side's text counts as short, by interaction (a monologue: about 100
#: English words / 160 Chinese characters; one side's share of an interactive stage: about 40 words /
#: 60 characters). Absolute substance is min(1, terms / target).
ABS_TARGET_TERMS = {("en", "monologue"): 40, ("zh", "monologue"): 80, ("en", "interactive"): 15, ("zh", "interactive"): 30}
#: A side speaking at least this fraction of its opponent's comparable amount gets full relative
#: substance; relative substance can take at most ``REL_SHARE`` off the absolute one.
REL_TARGET = 0.5
REL_SHARE = 0.4
#: Linear maps (lo, hi) of raw measures onto [0, 1] (lo -> 0, hi -> 1, clipped). Chosen from the spread
#: of values over all DebateArt speeches (about their 10th and 90th percentiles; no labels used).
ENGAGEMENT_RANGE = (0.05, 0.6)  # coverage of the opponent's top-30 terms new to the side (case-building stages)
ENGAGEMENT_FULL_RANGE = (0.1, 0.6)  # coverage of the opponent's top-30 terms, own earlier terms included
TOPICALITY_RANGE = (0.0, 0.6)  # share of the motion's terms that occur in the debate and the side uses
NOVELTY_RANGE = (0.3, 0.95)  # share of distinct terms the side had not used before
REBUTTAL_RANGE = (0.0, 8.0)  # rebuttal markers per 100 content terms
EVIDENCE_RANGE = (0.0, 6.0)  # evidence markers in the speech
WEIGHING_RANGE = (0.0, 2.5)  # weighing / synthesis markers per 100 content terms
SYNTHESIS_RANGE = (0.0, 0.75)  # share of the ledger's open clashes the side takes up
#: Open clashes (most events first) a side is expected to take up in a synthesis stage.
SYNTHESIS_TOP = 6
#: Questions at which the question score saturates (asymmetric questioner, others).
QUESTION_TARGET = {"questioner": 3, "other": 2}
#: Stage types that build a case: engagement there counts only the opponent's terms new to the side.
CASE_STAGES = frozenset({"constructive", "supplementary"})


@dataclass(frozen=True)
class SideFeatures:
    """Features of one evaluated side in one stage. Scores are in [0, 1]; counts are integers."""

    n_terms: int
    forfeit: bool
    substance: float
    engagement: float
    topicality: float
    novelty: float
    questions: int
    question_score: float
    asked: int
    answered: int
    answer_score: float
    rebuttal_score: float
    concessions: int
    evidence_score: float
    synthesis: float = 0.0  # share of the ledger's open clashes taken up (scaled by SYNTHESIS_RANGE)
    weighing_score: float = 0.0  # weighing / comparison markers (scaled by WEIGHING_RANGE)
    broad_engagement: float = 0.0  # coverage of the opponent's main terms over the whole debate so far


def _linear(x: float, rng: tuple[float, float]) -> float:
    """``x`` mapped linearly from ``rng`` = (lo, hi) onto [0, 1] (lo -> 0, hi -> 1, clipped)."""
    lo, hi = rng
    return min(1.0, max(0.0, (x - lo) / (hi - lo)))


def side_features(
    match: MatchView,
    stage: Stage,
    previous: list[Stage],
    side: Side,
    clashes: dict[str, Clash] | None = None,
    reading: DebateReading | None = None,
) -> SideFeatures:
    """Compute :class:`SideFeatures` for ``side`` in ``stage`` given the stages before it and the
    clash ledger ``clashes`` (None or {}: no ledger yet). ``reading`` holds ``previous`` and
    ``stage`` read (:meth:`~adjudicator.judges.offline.reading.DebateReading.advance`); None reads
    them here.

    Reads only ``stage``, ``previous``, ``clashes`` and the match header (motion, positions, language).
    Engagement depends on the stage type: in case-building stages (constructive, supplementary) it is
    coverage of the opponent's main terms *new to the side* (repeating one's own case is not
    engagement); elsewhere the side is supposed to return to shared ground, so its own earlier terms
    count too."""
    lang = match.language
    reading = reading if reading is not None else read_through(match, previous, stage)
    text = side_text(stage, side)
    stats = text_stats(text, lang)
    terms = list(stats.terms)
    n = stats.n_terms
    substance = _substance(stage, previous, side, lang, n, stats.forfeit)
    topicality = _topicality(match, reading.spoken_terms, set(terms))
    earlier = reading.terms_before(side)
    asked, answered = questions_answered(stage, side, lang)
    q_target = QUESTION_TARGET["questioner" if stage.role_of(side) == "questioner" else "other"]
    return SideFeatures(
        n_terms=n,
        forfeit=stats.forfeit,
        substance=round(substance, 4),
        engagement=round(_engagement(stage, previous, side, lang, terms, earlier, topicality), 4),
        topicality=round(topicality, 4),
        novelty=round(_linear(novelty(terms, earlier), NOVELTY_RANGE), 4),  # against the side's own earlier stages
        questions=stats.questions,
        question_score=round(min(1.0, stats.questions / q_target), 4),
        asked=asked,
        answered=answered,
        answer_score=round((answered / asked) if asked else substance, 4),
        rebuttal_score=round(_per_100_terms(stats.rebuttals, n, REBUTTAL_RANGE), 4),
        concessions=stats.concessions,
        evidence_score=round(_linear(stats.evidence, EVIDENCE_RANGE), 4),
        synthesis=round(_synthesis(text, set(terms), clashes, lang, topicality), 4),
        weighing_score=round(_per_100_terms(weighing_markers(text, lang), n, WEIGHING_RANGE), 4),
        broad_engagement=round(_broad_engagement(reading, side, terms, topicality), 4),
    )


def _per_100_terms(count: int, n_terms: int, rng: tuple[float, float]) -> float:
    """``count`` markers per 100 of the side's ``n_terms`` content terms, mapped by ``rng`` (0.0 for no terms)."""
    return _linear(100.0 * count / n_terms, rng) if n_terms else 0.0


def _substance(stage: Stage, previous: list[Stage], side: Side, lang: str, n: int, forfeit: bool) -> float:
    """Substance in [0, 1] of a side that said ``n`` content terms: min(1, n / ``ABS_TARGET_TERMS``)
    times 1 - ``REL_SHARE`` + ``REL_SHARE`` x min(1, n / (``REL_TARGET`` x the opponent's comparable
    speech)) when there is one; 0.0 for a forfeit."""
    kind = "monologue" if stage.interaction == "monologue" else "interactive"
    s_abs = min(1.0, n / ABS_TARGET_TERMS.get((lang, kind), ABS_TARGET_TERMS[("en", kind)]))
    ref = comparable_opponent_terms(stage, previous, side, lang)
    if ref:
        s_rel = min(1.0, n / (REL_TARGET * ref))
        substance = s_abs * (1.0 - REL_SHARE + REL_SHARE * s_rel)
    else:
        substance = s_abs
    if forfeit:
        substance = 0.0
    return substance


def _topicality(match: MatchView, spoken: set[str], term_set: set[str]) -> float:
    """Share of the motion's terms (motion and both positions) that the side uses (``term_set``),
    mapped by ``TOPICALITY_RANGE``; 0.0 when the motion has no such term. Only the motion's terms
    that the debate actually uses (``spoken``: every content term said so far, this stage included)
    count (drops cross-word fragments of the motion such as 市中 in 城市中心 that nobody says)."""
    lang = match.language
    topic_terms = set(content_terms(" ".join([match.motion, match.affirmative_position, match.negative_position]), lang)) & spoken
    return _linear(sum(1 for t in topic_terms if t in term_set) / len(topic_terms), TOPICALITY_RANGE) if topic_terms else 0.0


def _engagement(stage: Stage, previous: list[Stage], side: Side, lang: str, terms: list[str], earlier: set[str], topicality: float) -> float:
    """Coverage by the side's ``terms`` of the opponent's 30 most frequent terms in this stage and its
    last two: in case-building stages (``CASE_STAGES``) of those new to the side (not in ``earlier``),
    mapped by ``ENGAGEMENT_RANGE``; elsewhere of all of them, mapped by ``ENGAGEMENT_FULL_RANGE``.
    When the opponent has said nothing yet, ``topicality``."""
    opp = other_side(side)
    opp_terms = content_terms(side_text(stage, opp), lang)
    for st in opponent_history(previous, side):
        opp_terms += content_terms(side_text(st, opp), lang)
    if not opp_terms:
        return topicality  # nothing to engage with yet: being on the motion is what counts
    if stage.type in CASE_STAGES:
        return _linear(coverage(terms, opp_terms, exclude=earlier), ENGAGEMENT_RANGE)
    return _linear(coverage(terms, opp_terms), ENGAGEMENT_FULL_RANGE)


def _broad_engagement(reading: DebateReading, side: Side, terms: list[str], topicality: float) -> float:
    """Coverage by the side's ``terms`` of the opponent's 30 most frequent terms over the whole debate
    so far (this stage included), mapped by ``ENGAGEMENT_FULL_RANGE``; ``topicality`` when the
    opponent has said nothing."""
    opp_counts = reading.side_terms(other_side(side))
    return _linear(coverage_of_counts(terms, opp_counts), ENGAGEMENT_FULL_RANGE) if opp_counts else topicality


def _synthesis(text: str, term_set: set[str], clashes: dict[str, Clash] | None, lang: str, topicality: float) -> float:
    """Share of the ledger's open clashes (the ``SYNTHESIS_TOP`` with most events; ties: id) that the
    side's ``text`` takes up, mapped by ``SYNTHESIS_RANGE``; ``topicality`` when there is no ledger yet."""
    ledger = sorted((clashes or {}).values(), key=lambda c: (-len(c.events), c.clash_id))[:SYNTHESIS_TOP]
    if not ledger:
        return topicality
    taken = sum(1 for c in ledger if any(mentions_unit(text, term_set, u, lang) for u in clash_units(c, lang)))
    return _linear(taken / len(ledger), SYNTHESIS_RANGE)
