"""The offline judge: a deterministic, non-LLM implementation of the :class:`~adjudicator.judges.base.Backend`
protocol, the project's default model when no LLM is configured (the design card, Models).

How it works, in two nodes:

``analyse_stage`` (the clash tracker). For each evaluated side of the stage it computes text features
(:mod:`adjudicator.judges.offline.text`) from the side's utterances, the opponent's utterances in the stage and the
opponent's last two stages, and the side's own earlier stages:

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

Those are mixed (weights in :func:`dimension_values`, per stage type and role) into three values in
[0, 1], one per rubric dimension of paper Table 5 (task performance, battlefield judgement, degree of
advancement), shifted by a structural prior (paper 2.5 "Stage bias": questioners outscore respondents
in questioning and cross-examination, the structure-aware baseline using 8 vs 6; the third speakers'
cross-examinations matter most; the answering side can hardly advance, so its advancement is capped)
and cut into rubric levels placed so that ordinary work reads as "well completed";
:func:`adjudicator.rubric.suggested_score` reads the score off the table.

Clashes (:func:`track_clashes`) are made of units: recurring word-like phrases for Chinese
(:func:`adjudicator.judges.offline.text.zh_phrases`) and stemmed words for English. A clash is titled by 2-3
co-occurring salient units; constructives open the clashes their main claims repeat (motion terms may
seed them), later stages those both sides take up; a side's position is its own declarative sentence
on the clash (never a question or a quotation of the opponent); a side "advances" a clash only when it
engages it substantively and clearly more than the other side, otherwise the clash is "contested".

``judge``. Three perspectives (``JUDGE_PERSPECTIVES``) weight the three rubric dimensions (0.6 on
their own), the clash momentum and the stages differently. Each unit gets a value mixing the
suggested score and the perspective-weighted levels, shrunk halfway toward the middle of the "well
completed" band (7) unless the stage was not completed (forfeit, empty: stays at the floor); the
ballot's integer score is that value rounded; ``p`` is a logistic of the stage-weighted difference in
mean unit value plus clash momentum. Best-debater votes: debater weight = contribution share x unit
score above 3 x stage weight (third speakers' cross-examinations, closings, free debate count most),
sharpened by a perspective exponent and apportioned by highest averages, so a judge may give 2 or 3
votes to one debater; the "battlefield" judge also credits clash work, the "advancement" judge later
stages.

All constants are coarse, documented choices. The feature ranges come from the spread of values over
the DebateArt speeches (no labels); the one change made after a first accuracy run was a softer
penalty for speeches shorter than the opponent's, because a short first speech is normal. The
second revision (stage-aware synthesis, shrinkage toward the "well completed" band, multi-term
clashes, concentrated votes) follows the rubric's and the paper's logic; the synthetic CCDB labels
were looked at only as a sanity check. Nothing was fitted or grid-searched against labels.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections import Counter
from dataclasses import dataclass

from adjudicator.battlefield import Clash, ClashUpdate, SideAnalysis, StageAnalysis
from adjudicator.formats import Side, other_side
from adjudicator.judges.base import JudgeRequest, NodeResult, StageRequest
from adjudicator.judges.offline import text as F
from adjudicator.match import MatchView, Stage
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.rubric import ADVANCEMENT_LEVELS, BATTLEFIELD_LEVELS, TASK_LEVELS
from adjudicator.verdict import BALLOT_VOTES, Ballot, BallotScore

MODEL_NAME = "offline"

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
#: Structural prior added to all three dimension values (paper 2.5; 8 vs 6 in the structure-aware baseline).
ROLE_PRIOR = {
    ("questioning", "questioner"): 0.08,
    ("questioning", "respondent"): -0.08,
    ("cross_examination", "questioner"): 0.12,  # third speakers' attacking stages matter most
    ("cross_examination", "respondent"): -0.08,
}
#: Level cut-offs on a dimension value in [0, 1], best level first (the rest falls to the last level).
#: Placed so that a speech of ordinary length doing its stage's job with middling features (values
#: about 0.45-0.65) reads as the rubric's "well completed" band (6-7), while the top and bottom levels
#: need values near the ends of the scale (Table 5 reserves 9-10 for perfect, decisive work and 1-3
#: for a stage not completed).
TASK_CUTS = (("perfect", 0.88), ("well", 0.42), ("approximate", 0.2))
BATTLEFIELD_CUTS = (("correct_important", 0.5), ("correct_secondary", 0.28), ("largely_irrelevant", 0.12))
ADVANCEMENT_CUTS = (("decisive", 0.92), ("major", 0.8), ("substantial", 0.64), ("effective", 0.45), ("attempt", 0.2))
#: How much each stage type counts in a judge's overall comparison (paper 2.5: third speakers'
#: attacking stages matter most; closings and free debate synthesise the match).
STAGE_WEIGHT = {
    "constructive": 1.0,
    "supplementary": 1.0,
    "questioning": 1.0,
    "cross_examination": 1.5,
    "summary": 1.0,
    "head_to_head": 1.0,
    "free_debate": 1.25,
    "closing": 1.25,
}
#: Perspective -> weights of (task, battlefield, advancement): each judge leans on its own dimension.
PERSPECTIVE_WEIGHTS: dict[str, tuple[float, float, float]] = {
    "task": (0.6, 0.2, 0.2),
    "battlefield": (0.2, 0.6, 0.2),
    "advancement": (0.2, 0.2, 0.6),
}
MOMENTUM_WEIGHT = {"task": 0.25, "battlefield": 0.75, "advancement": 0.5}
#: Shrinkage of a judge's unit value toward the rubric's "well completed" band (paper 2.5 bands; Table
#: 5's "well completed" rows score 6-8, middle 7). The text features are weak proxies of what a judge
#: sees, so a stage that was completed keeps only ``SHRINK`` of its distance from ``WELL_ANCHOR``;
#: a stage rated "not completed" (forfeits, empty or near-empty speeches: strong evidence) is not
#: shrunk and stays at the floor. Not fitted: 7 is the band's middle, 0.5 halves the feature signal.
WELL_ANCHOR = 7.0
SHRINK = 0.5
#: Logistic temperature of p, in score points of weighted mean difference.
P_TEMPERATURE = 0.75
#: Best-debater weighting of a (stage type, role): the third speakers' attacking stages, closings and
#: free debate show a debater best (paper 2.5; Appendix A.2); answering counts less than asking.
VOTE_STAGE_WEIGHT = {
    ("constructive", ""): 1.0,
    ("supplementary", ""): 1.0,
    ("questioning", "questioner"): 1.0,
    ("questioning", "respondent"): 0.6,
    ("cross_examination", "questioner"): 2.5,
    ("cross_examination", "respondent"): 0.6,
    ("summary", ""): 1.25,
    ("head_to_head", ""): 1.0,
    ("free_debate", ""): 1.5,
    ("closing", ""): 1.5,
}
#: A unit's score counts toward best-debater votes above this floor (score 3 = not completed).
VOTE_SCORE_FLOOR = 3.0
#: Per perspective: (winning-side factor, concentration exponent on debater weights, credit per clash a
#: debater opened or advanced, late-stage boost). A larger exponent concentrates a judge's 3 votes on
#: its top debater; the "battlefield" judge credits clash work, the "advancement" judge later stages.
VOTE_STYLE: dict[str, tuple[float, float, float, float]] = {
    "task": (1.15, 2.0, 0.0, 0.0),
    "battlefield": (1.3, 3.0, 1.0, 0.0),
    "advancement": (1.5, 4.0, 0.0, 0.75),
}
#: Clash tracking: at most this many clashes open in one stage, and in the whole map.
MAX_NEW_CLASHES = 2
MAX_CLASHES = 10
#: Terms in a clash title (at least 2: a clash is a relation between terms, not one frequent word).
MIN_TITLE_TERMS = 2
MAX_TITLE_TERMS = 3
#: A unit named in more than this share of the debate's sentences is background (the subject itself).
BACKGROUND_DF = 0.12


# ---------------------------------------------------------------------------------------------
# Features per side


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

    def describe(self) -> str:
        """One compact line for a rationale."""
        return (
            f"substance {self.substance:.2f}, engagement {self.engagement:.2f}, topicality {self.topicality:.2f}, "
            f"novelty {self.novelty:.2f}, synthesis {self.synthesis:.2f}, weighing {self.weighing_score:.2f}, "
            f"broad engagement {self.broad_engagement:.2f}, questions {self.questions}, answered {self.answered}/{self.asked}, "
            f"rebuttal {self.rebuttal_score:.2f}, concessions {self.concessions}, evidence {self.evidence_score:.2f}"
            + (", forfeit" if self.forfeit else "")
        )


def _side_text(stage: Stage, side: Side) -> str:
    return "\n".join(u.text for u in stage.utterances if u.side == side)


def _opponent_history(previous: list[Stage], side: Side, k: int = 2) -> list[Stage]:
    """The opponent's last ``k`` stages in which it spoke (most recent first)."""
    opp = other_side(side)
    out = [s for s in reversed(previous) if any(u.side == opp for u in s.utterances)]
    return out[:k]


def _comparable_opponent_terms(stage: Stage, previous: list[Stage], side: Side, lang: str) -> int | None:
    """Content-term count of the opponent's comparable speech: its turns in this stage when it speaks
    here; else its latest stage of the same type, else its latest monologue; None if none exists."""
    opp = other_side(side)
    if any(u.side == opp for u in stage.utterances):
        return len(F.content_terms(_side_text(stage, opp), lang))
    same = [s for s in reversed(previous) if s.type == stage.type and opp in s.sides and s.interaction == "monologue"]
    mono = [s for s in reversed(previous) if s.interaction == "monologue" and s.sides == [opp]]
    for cand in same[:1] or mono[:1]:
        return len(F.content_terms(_side_text(cand, opp), lang))
    return None


def _questions_answered(stage: Stage, side: Side, lang: str) -> tuple[int, int]:
    """(questions put to ``side`` by the opponent, how many got a substantive reply from ``side``).

    A question turn is an opponent utterance holding a question; its reply is ``side``'s next
    utterance before the opponent speaks again (none: unanswered)."""
    opp = other_side(side)
    asked = answered = 0
    utts = stage.utterances
    for i, u in enumerate(utts):
        if u.side != opp or F.count_questions(u.text, lang) == 0:
            continue
        asked += 1
        reply = []
        for v in utts[i + 1 :]:
            if v.side == opp:
                break
            reply.append(v.text)
        if reply and F.is_substantive(" ".join(reply), lang):
            answered += 1
    return asked, answered


def _linear(x: float, rng: tuple[float, float]) -> float:
    lo, hi = rng
    return min(1.0, max(0.0, (x - lo) / (hi - lo)))


#: Stage types that build a case: engagement there counts only the opponent's terms new to the side.
CASE_STAGES = frozenset({"constructive", "supplementary"})
#: Stage types whose job is to revisit and weigh earlier material (paper Appendix A.2): novelty is
#: not rewarded there; synthesis, weighing and engagement with the opponent's main points are.
SYNTHESIS_STAGES = frozenset({"summary", "closing"})


def clash_units(clash: Clash, lang: str) -> list[str]:
    """The terms a clash is about, read back from its title: the " / "-separated parts when they are
    short (our titles: Chinese phrases of <= 6 characters, English single words, stemmed), else the
    title's content terms (a free-text title written by another tracker)."""
    parts = [p.strip() for p in clash.title.split("/") if p.strip()]
    if parts and all((len(p) <= 6 if lang == "zh" else " " not in p) for p in parts):
        if lang == "zh":
            return parts
        return [t for p in parts for t in F.content_terms(p, lang)] or parts
    return list(dict.fromkeys(F.content_terms(clash.title, lang)))


def mentions_unit(text: str, terms: set[str] | frozenset[str], unit: str, lang: str) -> bool:
    """True if ``unit`` (a Chinese phrase or an English stem) occurs in a text whose content terms are
    ``terms``."""
    return unit in text if lang == "zh" else unit in terms


def side_features(match: MatchView, stage: Stage, previous: list[Stage], side: Side, clashes: dict[str, Clash] | None = None) -> SideFeatures:
    """Compute :class:`SideFeatures` for ``side`` in ``stage`` given the stages before it and the
    clash ledger ``clashes`` (None or {}: no ledger yet).

    Reads only ``stage``, ``previous``, ``clashes`` and the match header (motion, positions, language).
    Engagement depends on the stage type: in case-building stages (constructive, supplementary) it is
    coverage of the opponent's main terms *new to the side* (repeating one's own case is not
    engagement); elsewhere the side is supposed to return to shared ground, so its own earlier terms
    count too."""
    lang = match.language
    text = _side_text(stage, side)
    stats = F.text_stats(text, lang)
    terms = list(stats.terms)
    term_set = set(terms)
    n = stats.n_terms
    forfeit = stats.forfeit

    # substance
    kind = "monologue" if stage.interaction == "monologue" else "interactive"
    s_abs = min(1.0, n / ABS_TARGET_TERMS.get((lang, kind), ABS_TARGET_TERMS[("en", kind)]))
    ref = _comparable_opponent_terms(stage, previous, side, lang)
    if ref:
        s_rel = min(1.0, n / (REL_TARGET * ref))
        substance = s_abs * (1.0 - REL_SHARE + REL_SHARE * s_rel)
    else:
        substance = s_abs
    if forfeit:
        substance = 0.0

    # topicality: the motion's terms that the debate actually uses (drops cross-word fragments of the
    # motion such as 市中 in 城市中心 that nobody says)
    spoken: set[str] = set()
    for st in [*previous, stage]:
        for u in st.utterances:
            spoken.update(F.content_terms(u.text, lang))
    topic_terms = set(F.content_terms(" ".join([match.motion, match.affirmative_position, match.negative_position]), lang)) & spoken
    topicality = _linear(sum(1 for t in topic_terms if t in term_set) / len(topic_terms), TOPICALITY_RANGE) if topic_terms else 0.0

    # engagement
    earlier: set[str] = set()  # the side's own terms in its earlier stages
    for st in previous:
        earlier.update(F.content_terms(_side_text(st, side), lang))
    opp = other_side(side)
    opp_terms = F.content_terms(_side_text(stage, opp), lang)
    for st in _opponent_history(previous, side):
        opp_terms += F.content_terms(_side_text(st, opp), lang)
    if not opp_terms:
        engagement = topicality  # nothing to engage with yet: being on the motion is what counts
    elif stage.type in CASE_STAGES:
        engagement = _linear(F.coverage(terms, opp_terms, exclude=earlier), ENGAGEMENT_RANGE)
    else:
        engagement = _linear(F.coverage(terms, opp_terms), ENGAGEMENT_FULL_RANGE)
    all_opp = [t for st in [*previous, stage] for t in F.content_terms(_side_text(st, opp), lang)]
    broad = _linear(F.coverage(terms, all_opp), ENGAGEMENT_FULL_RANGE) if all_opp else topicality

    # novelty against the side's own earlier stages
    novelty = _linear(F.novelty(terms, earlier), NOVELTY_RANGE)

    # synthesis: the open clashes of the ledger (most events first) that the side takes up
    ledger = sorted((clashes or {}).values(), key=lambda c: (-len(c.events), c.clash_id))[:SYNTHESIS_TOP]
    if ledger:
        taken = sum(1 for c in ledger if any(mentions_unit(text, term_set, u, lang) for u in clash_units(c, lang)))
        synthesis = _linear(taken / len(ledger), SYNTHESIS_RANGE)
    else:
        synthesis = topicality
    weighing_score = _linear(100.0 * F.weighing_markers(text, lang) / n, WEIGHING_RANGE) if n else 0.0

    role = stage.role_of(side)
    q_target = QUESTION_TARGET["questioner" if role == "questioner" else "other"]
    question_score = min(1.0, stats.questions / q_target)
    asked, answered = _questions_answered(stage, side, lang)
    answer_score = (answered / asked) if asked else substance
    rebuttal_score = _linear(100.0 * stats.rebuttals / n, REBUTTAL_RANGE) if n else 0.0
    evidence_score = _linear(stats.evidence, EVIDENCE_RANGE)
    return SideFeatures(
        n_terms=n,
        forfeit=forfeit,
        substance=round(substance, 4),
        engagement=round(engagement, 4),
        topicality=round(topicality, 4),
        novelty=round(novelty, 4),
        questions=stats.questions,
        question_score=round(question_score, 4),
        asked=asked,
        answered=answered,
        answer_score=round(answer_score, 4),
        rebuttal_score=round(rebuttal_score, 4),
        concessions=stats.concessions,
        evidence_score=round(evidence_score, 4),
        synthesis=round(synthesis, 4),
        weighing_score=round(weighing_score, 4),
        broad_engagement=round(broad, 4),
    )


# ---------------------------------------------------------------------------------------------
# Features -> rubric levels


def dimension_values(stage_type: str, role: str | None, f: SideFeatures) -> tuple[float, float, float]:
    """(task, battlefield, advancement) values in [0, 1] before the structural prior.

    The role of each feature depends on the stage's job (paper Appendix A.2; weights sum to 1 per mix;
    s substance, t topicality, e engagement, be broad engagement, nv novelty, sy synthesis, w weighing,
    r rebuttal, ev evidence, q questions, a answers):

    ============================  ==================================  ==============================  ===============================
    stage (role)                  task                                battlefield                     advancement
    ============================  ==================================  ==============================  ===============================
    constructive                  .5 s + .2 t + .15 nv + .15 ev       .6 t + .4 e                     .4 nv + .3 ev + .3 t
    supplementary                 .35 s + .3 e + .2 r + .15 ev        .5 e + .3 sy + .2 t             .3 nv + .35 r + .35 e
    questioning/cross (asker)     .35 q + .25 e + .25 s + .15 r       .4 e + .3 sy + .3 q             .35 r + .3 q + .35 e
    questioning/cross (answerer)  .45 a + .3 s + .25 e                .4 e + .2 sy + .4 a             .35 a + .35 r + .3 e
    head-to-head / free debate    .25 s + .25 e + .15 q + .15 a + .2 r .5 e + .3 sy + .2 t            .35 r + .35 e + .3 sy
    summary / closing             .3 s + .25 sy + .25 w + .2 be       .5 sy + .3 be + .2 t            .3 sy + .25 w + .25 r + .2 be
    ============================  ==================================  ==============================  ===============================

    Novelty counts only where new material is the job (constructive, supplementary); a summary or
    closing is supposed to revisit the clashes, so it is rated on synthesis (the ledger's open
    clashes it takes up), weighing words and engagement with the opponent's main points instead.
    All three are then multiplied by sqrt(substance), so a forfeited or near-empty speech gets ~0, and
    advancement loses 0.15 per first-person concession.
    """
    s, e, t, nv = f.substance, f.engagement, f.topicality, f.novelty
    q, a, r, ev = f.question_score, f.answer_score, f.rebuttal_score, f.evidence_score
    sy, w, be = f.synthesis, f.weighing_score, f.broad_engagement
    if stage_type == "constructive":
        task, bf, adv = 0.5 * s + 0.2 * t + 0.15 * nv + 0.15 * ev, 0.6 * t + 0.4 * e, 0.4 * nv + 0.3 * ev + 0.3 * t
    elif stage_type == "supplementary":
        task, bf, adv = 0.35 * s + 0.3 * e + 0.2 * r + 0.15 * ev, 0.5 * e + 0.3 * sy + 0.2 * t, 0.3 * nv + 0.35 * r + 0.35 * e
    elif stage_type in SYNTHESIS_STAGES:
        task = 0.3 * s + 0.25 * sy + 0.25 * w + 0.2 * be
        bf = 0.5 * sy + 0.3 * be + 0.2 * t
        adv = 0.3 * sy + 0.25 * w + 0.25 * r + 0.2 * be
    elif role == "questioner":
        task, bf, adv = 0.35 * q + 0.25 * e + 0.25 * s + 0.15 * r, 0.4 * e + 0.3 * sy + 0.3 * q, 0.35 * r + 0.3 * q + 0.35 * e
    elif role == "respondent":  # answering the questions put is fighting on the questioner's battlefield
        task, bf, adv = 0.45 * a + 0.3 * s + 0.25 * e, 0.4 * e + 0.2 * sy + 0.4 * a, 0.35 * a + 0.35 * r + 0.3 * e
    else:  # head_to_head, free_debate
        task = 0.25 * s + 0.25 * e + 0.15 * q + 0.15 * a + 0.2 * r
        bf, adv = 0.5 * e + 0.3 * sy + 0.2 * t, 0.35 * r + 0.35 * e + 0.3 * sy
    gate = math.sqrt(s)
    adv = adv * gate - 0.15 * f.concessions
    return task * gate, bf * gate, adv


def _cut(value: float, cuts: tuple[tuple[str, float], ...], last: str) -> str:
    for level, threshold in cuts:
        if value >= threshold:
            return level
    return last


def rate(stage_type: str, role: str | None, f: SideFeatures) -> tuple[str, str, str, float]:
    """Rubric levels (task, battlefield, advancement) for a side's features, and the prior applied.

    The prior (``ROLE_PRIOR``) is added to all three values; a respondent's advancement is capped at
    "effective" (it may only answer, paper 2.5); a forfeit is not completed / incorrect /
    counterproductive (it hands the stage to the opponent)."""
    if f.forfeit:
        return "not_completed", "incorrect", "counterproductive", 0.0
    prior = ROLE_PRIOR.get((stage_type, role or ""), 0.0)
    raw = dimension_values(stage_type, role, f)
    task, bf, adv = (v + prior for v in raw)
    if role == "respondent":
        adv = min(adv, 0.64)
    return (
        _cut(task, TASK_CUTS, "not_completed"),
        _cut(bf, BATTLEFIELD_CUTS, "incorrect"),
        # only the side's own concessions (a negative raw value) make a stage counterproductive
        _cut(adv, ADVANCEMENT_CUTS, "none" if raw[2] >= 0.0 else "counterproductive"),
        prior,
    )


def contributions(stage: Stage, side: Side, lang: str) -> dict[str, float]:
    """Debater position label -> share in [0, 1] of the side's content terms in this stage (summing to
    1, rounded to 3 decimals); the stage's listed speakers of that side share equally when the side
    said nothing substantive; {} when there are none."""
    counts: Counter = Counter()
    for u in stage.utterances:
        if u.side == side:
            counts[u.speaker] += len(F.content_terms(u.text, lang))
    total = sum(counts.values())
    if total == 0:
        listed = [sp for sp in stage.speakers if sp.lower().startswith(side)] or list(dict.fromkeys(u.speaker for u in stage.utterances if u.side == side))
        return {sp: round(1.0 / len(listed), 3) for sp in listed} if listed else {}
    return {sp: round(c / total, 3) for sp, c in sorted(counts.items())}


# ---------------------------------------------------------------------------------------------
# Clash tracking


@dataclass(frozen=True)
class _Sent:
    """One sentence of a side in the stage under analysis."""

    speaker: str
    text: str
    units: frozenset  # clash units it mentions (Chinese phrases / English stems)
    question: bool
    attributed: bool  # reports or quotes the opponent
    rebuttal: bool
    weighing: bool
    evidence: bool
    concession: bool


def _norm(sentence: str) -> str:
    return " ".join(sentence.lower().split())


def _vocabulary(match: MatchView, stage: Stage, previous: list[Stage]) -> dict[str, int] | None:
    """Chinese: the recurring word-like phrases of the debate so far (:func:`features.zh_phrases`) with
    counts; English: None (units are content-term stems)."""
    if match.language != "zh":
        return None
    texts = [match.motion] + [u.text for st in [*previous, stage] for u in st.utterances]
    return F.zh_phrases(texts)


def _units(text: str, lang: str, vocab: dict[str, int] | None) -> Counter:
    """Clash units of ``text`` with counts: vocabulary phrases (zh) or content-term stems (en)."""
    if lang == "zh":
        return Counter({p: text.count(p) for p in (vocab or {}) if p in text})
    return Counter(F.content_terms(text, lang))


def _stage_sentences(stage: Stage, previous: list[Stage], side: str, lang: str, vocab: dict[str, int] | None) -> list[_Sent]:
    """``side``'s sentences in ``stage`` outside quoted lines, skipping sentences it had already said
    word for word in an earlier stage (repetition is not clash work)."""
    said = {_norm(x) for st in previous for u in st.utterances if u.side == side for x in F.sentences(u.text)}
    out = []
    for u in stage.utterances:
        if u.side != side:
            continue
        for sent in F.own_sentences(u.text):
            if _norm(sent) in said:
                continue
            out.append(_Sent(
                speaker=u.speaker, text=sent, units=frozenset(_units(sent, lang, vocab)),
                question=F.is_question(sent, lang), attributed=F.is_attributed(sent, lang),
                rebuttal=F.has_rebuttal(sent, lang), weighing=F.weighing_markers(sent, lang) > 0,
                evidence=F.evidence_markers(sent, lang) > 0, concession=F.has_concession(sent, lang),
            ))
    return out


def _overlaps(a: str, b: str, lang: str) -> bool:
    """Same unit, or (Chinese) two phrases sharing a character (多数 / 数人 are one word cut twice)."""
    return a == b or (lang == "zh" and bool(set(a) & set(b)))


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_LINKISH = re.compile(r"https?:|www\.|\w/\w|<|>")


def _squash(text: str) -> str:
    """Lower-case letters, digits and CJK only (to recognise a quoted sentence whatever its markup)."""
    return _NON_WORD.sub("", (text or "").lower())


def _position(sents: list[_Sent], units: list[str], opponent_text: str, lang: str) -> str:
    """The side's position on a clash: its own declarative sentence naming the most clash units; ties
    go to the sentence nearest 60 characters, then the earliest. Skipped: questions, sentences that
    report the opponent (:func:`features.is_attributed`), sentences found word for word in the
    opponent's speeches (a quotation without markup), links and fragments (fewer than 4 content
    terms). "" when there is none. ``opponent_text`` is :func:`_squash` of everything the opponent said."""
    best = None
    for i, x in enumerate(sents):
        k = sum(1 for u in units if u in x.units)
        if k == 0 or x.question or x.attributed or "http" in x.text or "www." in x.text:
            continue
        if len(F.content_terms(x.text, lang)) < 4:
            continue
        if _LINKISH.search(x.text):
            continue
        sq = _squash(x.text)
        if len(sq) >= 12 and (sq in opponent_text or sq[:40] in opponent_text):
            continue
        key = (-k, abs(len(x.text) - 60), i)
        if best is None or key < best[0]:
            best = (key, x.text)
    return best[1][:160] if best else ""


def _title(seed: str, cand: dict[str, float], covered: list[str], sents: list[_Sent], lang: str, surf: dict[str, str], topic: set[str]) -> tuple[str, list[str]] | None:
    """A clash title from ``seed`` plus 1-2 candidate units that co-occur with it in the stage's
    sentences (most shared sentences first, then salience), joined by " / ". None if no unit
    co-occurs with the seed (a single frequent word is not a clash) or if every unit is a motion
    term (the motion itself is not a clash)."""
    seed_sents = [x for x in sents if seed in x.units]
    co: dict[str, int] = {}
    for x in seed_sents:
        for u in x.units:
            if u in cand and not _overlaps(u, seed, lang) and not any(_overlaps(u, c, lang) for c in covered):
                co[u] = co.get(u, 0) + 1
    units = [seed]
    for u, k in sorted(co.items(), key=lambda kv: (-kv[1], -cand[kv[0]], kv[0])):
        if len(units) >= MAX_TITLE_TERMS:
            break
        if k >= max(1, 0.34 * len(seed_sents)) and not any(_overlaps(u, v, lang) for v in units):
            units.append(u)
    if len(units) < MIN_TITLE_TERMS or all(u in topic for u in units):
        return None
    return " / ".join(surf.get(u, u) for u in units), units


def track_clashes(match: MatchView, stage: Stage, previous: list[Stage], clashes: dict[str, Clash], sides_quality: dict[str, float]) -> list[ClashUpdate]:
    """Clash updates for one stage.

    Units are recurring word-like phrases for Chinese (:func:`features.zh_phrases`, which avoids
    cross-word fragments) and content-term stems for English.

    1. Candidates. When the opponent has spoken (this stage or its last two): units a side uses at
       least twice in this stage that the opponent also used, motion terms excluded; salience = own
       count + the opponent's. In a constructive speech before the opponent has spoken: the units
       its main claims repeat (at least twice), motion terms included (they may seed a clash).
    2. Existing clashes (units read back from their titles) are touched when the stage's sentences
       mention them at least twice; up to ``MAX_NEW_CLASHES`` new clashes open from the most salient
       candidates not already covered, each titled by 2-3 co-occurring units (``_title``; a candidate
       with no co-occurring unit opens nothing), ids ``c<n>`` continuing the map's numbering.
    3. Per touched clash and side, engagement = sum over the side's sentences naming it of 1 for a
       statement (0.5 for a question unless the side is the questioner), +0.5 each for a rebuttal,
       weighing or evidence marker. "conceded" when concession sentences on it are at least as many
       as rebuttal ones; a side engages *substantively* when its engagement is at least 2 with at least
       one statement of its own (not a question, not a report of the opponent). Among substantive,
       non-conceding sides the one with at least 1.5x the other's engagement (ties: stage quality)
       "advanced"; every other active side "contested". A new clash's first update is "opened" by
       the side that engages it most.
    4. Positions: a side's position on a clash is set once, the first time the side states one (see
       ``_position``): its own declarative sentence naming the clash units.
    """
    lang = match.language
    vocab = _vocabulary(match, stage, previous)
    evaluated = stage.evaluated_sides()
    sents = {side: _stage_sentences(stage, previous, side, lang, vocab) for side in ("affirmative", "negative")}
    counts: dict[str, Counter] = {}  # occurrences of each unit in the side's own (unquoted) text
    for side in sents:
        counts[side] = _units("\n".join(x.text for x in sents[side]), lang, vocab) if lang == "zh" else Counter(F.content_terms("\n".join(x.text for x in sents[side]), lang))
    opp_counts: dict[str, Counter] = {}
    for side in ("affirmative", "negative"):
        opp = other_side(side)  # type: ignore[arg-type]
        oc = Counter(counts[opp])
        for st in _opponent_history(previous, side):  # type: ignore[arg-type]
            oc.update(_units(_side_text(st, opp), lang, vocab))
        opp_counts[side] = oc
    topic_text = " ".join([match.motion, match.affirmative_position, match.negative_position])
    topic = {p for p in (vocab or {}) if p in topic_text} if lang == "zh" else set(F.content_terms(topic_text, lang))
    speaking = [s for s in evaluated if counts[s]]
    # background units: named in more than BACKGROUND_DF of all sentences so far (the debate's subject
    # itself, e.g. 学生 in a debate about students); their salience is scaled down by BACKGROUND_DF / df
    doc = [frozenset(_units(x, lang, vocab)) for st in [*previous, stage] for u in st.utterances for x in F.own_sentences(u.text)]
    df = Counter(t for d in doc for t in d)

    def damp(t: str) -> float:
        share = df.get(t, 0) / len(doc) if doc else 0.0
        return min(1.0, BACKGROUND_DF / share) if share > 0 else 1.0

    cand: dict[str, float] = {}
    for side in speaking:
        opp_spoke = bool(opp_counts[side])
        for t, c in counts[side].items():
            oc = opp_counts[side].get(t, 0)
            if opp_spoke:
                if c >= 2 and oc >= 1 and t not in topic:
                    cand[t] = max(cand.get(t, 0.0), (c + oc) * damp(t))
            elif stage.type == "constructive" and (c >= 2 or (t in topic and c >= 1)):
                cand[t] = max(cand.get(t, 0.0), c * damp(t))
    # partners of a title may be any unit a side repeats in this stage
    partners = dict(cand)
    for side in speaking:
        for t, c in counts[side].items():
            if c >= 2 and t not in partners:
                partners[t] = 0.5 * c * damp(t)

    touched: list[tuple[str, str, list[str], bool]] = []  # (clash_id, title, units, is_new)
    covered: list[str] = []
    all_sents = [x for side in ("affirmative", "negative") for x in sents[side]]
    for cid, clash in clashes.items():
        units = clash_units(clash, lang)
        covered += units
        n = sum(1 for x in all_sents for u in units if u in x.units)
        if units and n >= 2:
            touched.append((cid, clash.title, units, False))

    n_existing = len(clashes)
    new = 0
    surf = F.surface_forms("\n".join(x.text for x in all_sents), lang) if lang != "zh" else {}
    for seed, _ in sorted(cand.items(), key=lambda kv: (-kv[1], kv[0])):
        if new >= MAX_NEW_CLASHES or n_existing + new >= MAX_CLASHES:
            break
        if any(_overlaps(seed, c, lang) for c in covered):
            continue
        made = _title(seed, partners, covered, all_sents, lang, surf, topic)
        if made is None:
            continue
        title, units = made
        covered += units
        new += 1
        touched.append((f"c{n_existing + new}", title, units, True))

    opp_said = {side: _squash(" ".join(u.text for st in [*previous, stage] for u in st.utterances if u.side != side)) for side in evaluated}
    updates: list[ClashUpdate] = []
    for cid, title, units, is_new in touched:
        uset = set(units)
        info = {}
        for side in evaluated:
            mine = [x for x in sents[side] if x.units & uset]
            asker = stage.role_of(side) == "questioner"
            eng = sum((1.0 if (not x.question or asker) else 0.5) + 0.5 * (x.rebuttal + x.weighing + x.evidence) for x in mine)
            reb = sum(1 for x in mine if x.rebuttal)
            con = sum(1 for x in mine if x.concession)
            stated = any(not x.question and not x.attributed for x in mine)
            speaker = Counter(x.speaker for x in mine).most_common(1)[0][0] if mine else None
            old = clashes.get(cid)
            have = bool(old and getattr(old, f"{side}_position"))
            position = "" if have else _position(mine, units, opp_said[side], lang)
            info[side] = (eng, reb, con, stated, speaker, position, len(mine))
        active = [s for s in evaluated if info[s][6] > 0]
        if not active:
            continue
        conceding = [s for s in active if info[s][2] > 0 and info[s][2] >= info[s][1]]
        substantive = [s for s in active if s not in conceding and info[s][0] >= 2 and info[s][3]]
        leader = None
        if len(substantive) == 1:
            leader = substantive[0]
        elif len(substantive) == 2:
            x, y = sorted(substantive, key=lambda s: (-info[s][0], -sides_quality.get(s, 0.0), s != evaluated[0]))
            if info[x][0] >= 1.5 * info[y][0]:
                leader = x
        order = sorted(active, key=lambda s: (-info[s][0], s != evaluated[0])) if is_new else active
        first = True
        for side in order:
            eng, reb, con, stated, speaker, position, _ = info[side]
            pos_kw = {f"{side}_position": position} if position else {}
            if is_new and first:
                updates.append(ClashUpdate(clash_id=cid, title=title, side=side, kind="opened", note=f"opened in {stage.stage_id}", debater=speaker, **pos_kw))
            first = False
            if side in conceding:
                kind, note = "conceded", f"{con} concession sentence{'' if con == 1 else 's'} on it"
            elif side == leader:
                kind, note = "advanced", f"engagement {eng:.1f}, {reb} rebuttal sentence{'' if reb == 1 else 's'}"
            else:
                kind, note = "contested", f"engagement {eng:.1f}"
            updates.append(ClashUpdate(clash_id=cid, title=title if is_new else "", side=side, kind=kind, note=note, debater=speaker, **pos_kw))
    return updates


# ---------------------------------------------------------------------------------------------
# Judging


_TASK_VAL = {k: 1 - i / (len(TASK_LEVELS) - 1) for i, k in enumerate(TASK_LEVELS)}
_BF_VAL = {k: 1 - i / (len(BATTLEFIELD_LEVELS) - 1) for i, k in enumerate(BATTLEFIELD_LEVELS)}
_ADV_VAL = {k: 1 - i / (len(ADVANCEMENT_LEVELS) - 1) for i, k in enumerate(ADVANCEMENT_LEVELS)}


def unit_value(a: SideAnalysis, perspective: str) -> float:
    """A judge's real-valued score 1-10 for one analysed unit.

    raw = 0.5 x suggested score + 0.5 x (1 + 9 x perspective-weighted mean of the three level values),
    level values spread evenly over [0, 1] from worst to best level. A unit whose task performance is
    not "not_completed" is then shrunk toward the "well completed" band:
    ``WELL_ANCHOR + SHRINK * (raw - WELL_ANCHOR)`` (so a 10 needs raw 10 -> 8.5 -> rounds to 9, and a
    completed stage never falls below 4); a stage not completed keeps its raw value (floor)."""
    wt, wb, wa = PERSPECTIVE_WEIGHTS.get(perspective, (1 / 3, 1 / 3, 1 / 3))
    mix = wt * _TASK_VAL[a.task_performance] + wb * _BF_VAL[a.battlefield_judgement] + wa * _ADV_VAL[a.advancement]
    raw = 0.5 * a.suggested_score + 0.5 * (1.0 + 9.0 * mix)
    if a.task_performance == "not_completed":
        return raw
    return WELL_ANCHOR + SHRINK * (raw - WELL_ANCHOR)


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def _apportion(weights: dict[str, float], n: int) -> dict[str, int]:
    """Largest-remainder apportionment of ``n`` votes by ``weights`` (ties: larger weight, then label)."""
    total = sum(weights.values())
    if total <= 0:
        return {}
    quotas = {k: n * w / total for k, w in weights.items()}
    out = {k: int(math.floor(q)) for k, q in quotas.items()}
    left = n - sum(out.values())
    for k in sorted(quotas, key=lambda k: (-(quotas[k] - out[k]), -weights[k], k))[:left]:
        out[k] += 1
    return {k: v for k, v in out.items() if v > 0}


def _highest_averages(weights: dict[str, float], n: int) -> dict[str, int]:
    """D'Hondt (highest averages) apportionment of ``n`` votes: each vote in turn goes to the largest
    weight / (votes already given + 1); ties: larger weight, then label. A debater whose weight is more
    than twice the runner-up's takes a second vote before the runner-up gets one."""
    out: dict[str, int] = {}
    cands = {k: w for k, w in weights.items() if w > 0}
    for _ in range(n if cands else 0):
        k = min(cands, key=lambda k: (-cands[k] / (out.get(k, 0) + 1), -cands[k], k))
        out[k] = out.get(k, 0) + 1
    return out


def _tiebreak(match_id: str, judge_id: str) -> bool:
    """Deterministic coin keyed by match and judge (True = affirmative), used only for an exact tie."""
    return hashlib.sha256(f"{match_id}|{judge_id}".encode()).digest()[0] % 2 == 0


class OfflineBackend:
    """The offline judge: a deterministic baseline built from structural priors and text features.
    It is NOT an LLM and does not read the debate the way a judge does; it counts content terms,
    questions, answers, rebuttal / concession / evidence markers and speech lengths, applies the
    paper's structural stage priors, and maps the result onto the CCDB rubric (Table 5).

    Stateless: every method is a pure function of its request, so one instance can serve the tracker
    and all three judges from several threads at once. Same request, same result."""

    name: str = MODEL_NAME
    is_llm: bool = False

    # ---- tracker

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]:
        """Analyse one stage (see the module docstring). Returns the analysis and one CallRecord
        (node "track_stage", key = stage id, parse "native"); an unexpected error becomes a NodeFailure."""
        t0 = time.perf_counter()
        try:
            value = analyse(request.match, request.stage, request.index, request.previous, request.clashes)
        except Exception as exc:  # a bug, recorded rather than crashing the graph
            return _failed("track_stage", request.stage.stage_id, exc, t0)
        rec = CallRecord(node="track_stage", key=request.stage.stage_id, model=MODEL_NAME, parse="native", latency_s=round(time.perf_counter() - t0, 6))
        return NodeResult(value=value, calls=[rec])

    # ---- judge

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]:
        """One ballot from the analyses and the clash map, weighted by ``request.perspective``.
        CallRecord node "judge", key = judge id."""
        t0 = time.perf_counter()
        try:
            ballot = judge_ballot(request)
        except Exception as exc:
            return _failed("judge", request.judge_id, exc, t0)
        rec = CallRecord(node="judge", key=request.judge_id, model=MODEL_NAME, parse="native", latency_s=round(time.perf_counter() - t0, 6))
        return NodeResult(value=ballot, calls=[rec])

    def prompt_hashes(self) -> dict[str, str]:
        """The offline judge uses no prompts."""
        return {}


def _failed(node: str, key: str, exc: Exception, t0: float) -> NodeResult:
    reason = f"offline judge error: {type(exc).__name__}: {exc}"
    rec = CallRecord(node=node, key=key, model=MODEL_NAME, parse="failed", error=reason, latency_s=round(time.perf_counter() - t0, 6))
    return NodeResult(value=None, calls=[rec], failure=NodeFailure(node=node, key=key, kind=FailureKind.ERROR, reason=reason))


def analyse(match: MatchView, stage: Stage, index: int, previous: list[Stage], clashes: dict[str, Clash]) -> StageAnalysis:
    """The offline :class:`StageAnalysis` of ``stage`` (pure function; see the module docstring)."""
    lang = match.language
    sides: list[SideAnalysis] = []
    quality: dict[str, float] = {}
    for side in stage.evaluated_sides():
        role = stage.role_of(side)
        f = side_features(match, stage, previous, side, clashes)
        task, bf, adv, prior = rate(stage.type, role, f)
        rationale = f"offline features: {f.describe()}" + (f"; structural prior {prior:+.2f} ({role})" if prior else "")
        sa = SideAnalysis.rated(stage.stage_id, side, role, task, bf, adv, rationale=rationale, contributions=contributions(stage, side, lang))
        sides.append(sa)
        quality[side] = sa.suggested_score + f.substance
    updates = track_clashes(match, stage, previous, clashes, quality)
    parts = [f"{sa.side} {sa.suggested_score}" for sa in sides]
    opened = [u.clash_id + " '" + u.title + "'" for u in updates if u.kind == "opened"]
    adv = sorted({f"{u.clash_id} by {u.side}" for u in updates if u.kind == "advanced"})
    con = sorted({f"{u.clash_id} by {u.side}" for u in updates if u.kind == "conceded"})
    summary = f"{stage.name}: " + ", ".join(parts)
    if opened:
        summary += "; opened " + ", ".join(opened)
    if adv:
        summary += "; advanced " + ", ".join(adv)
    if con:
        summary += "; conceded " + ", ".join(con)
    return StageAnalysis(stage_id=stage.stage_id, stage_index=index, sides=sides, clash_updates=updates, summary=summary)


def ledger_before(clashes: dict[str, Clash], earlier: set[str]) -> dict[str, Clash]:
    """The clash map as it stood before a stage: clashes opened in one of the ``earlier`` stage ids,
    keeping only their events from those stages (titles and positions as recorded)."""
    out = {}
    for cid, c in clashes.items():
        if c.opened_in in earlier:
            out[cid] = c.model_copy(update={"events": [e for e in c.events if e.stage_id in earlier]})
    return out


def judge_ballot(request: JudgeRequest) -> Ballot:
    """The offline ballot (pure function of the request).

    - Every scored unit of ``request.match`` gets ``round(unit_value)`` clamped to 1-10; a unit with
      no analysis (its tracker node failed) is analysed here from the transcript.
    - D = stage-weighted mean unit value of the affirmative minus that of the negative (``STAGE_WEIGHT``;
      the "advancement" perspective also weights later stages up to 1.5x), plus
      ``MOMENTUM_WEIGHT[perspective]`` x the event-weighted mean clash momentum.
    - p = 1 / (1 + exp(-D / P_TEMPERATURE)) rounded to 2 decimals; a p that rounds to 0.5 becomes
      0.51 or 0.49 by the sign of D (exact tie: a coin keyed by match and judge id).
    - Best-debater votes: 3 votes apportioned (largest remainder) by sum over units of contribution
      share x stage weight x (unit value - 1), the winning side's debaters weighted x1.25.
    """
    match = request.match
    perspective = request.perspective
    by_unit: dict[tuple[str, str], SideAnalysis] = {}
    for a in request.analyses:
        for sa in a.sides:
            by_unit[(sa.stage_id, sa.side)] = sa
    stage_index = {s.stage_id: i for i, s in enumerate(match.stages)}
    missing = {sid for sid, side in match.scored_units() if (sid, side) not in by_unit}
    for sid in sorted(missing, key=lambda x: stage_index[x]):
        i = stage_index[sid]
        a = analyse(match, match.stages[i], i, match.stages[:i], ledger_before(request.clashes, {s.stage_id for s in match.stages[:i]}))
        for sa in a.sides:
            by_unit.setdefault((sa.stage_id, sa.side), sa)

    n_stages = max(1, len(match.stages) - 1)
    scores: list[BallotScore] = []
    sums = {"affirmative": 0.0, "negative": 0.0}
    weights = {"affirmative": 0.0, "negative": 0.0}
    values: dict[tuple[str, str], float] = {}
    for sid, side in match.scored_units():
        sa = by_unit[(sid, side)]
        v = unit_value(sa, perspective)
        values[(sid, side)] = v
        stage = match.stages[stage_index[sid]]
        w = STAGE_WEIGHT.get(stage.type, 1.0)
        if perspective == "advancement":
            w *= 1.0 + 0.5 * stage_index[sid] / n_stages
        sums[side] += w * v
        weights[side] += w
        scores.append(BallotScore(stage_id=sid, side=side, score=min(10, max(1, _round_half_up(v)))))
    mean = {s: (sums[s] / weights[s] if weights[s] else 5.5) for s in sums}
    n_events = sum(len(c.events) for c in request.clashes.values())
    momentum = sum(c.momentum() * len(c.events) for c in request.clashes.values()) / n_events if n_events else 0.0
    d = mean["affirmative"] - mean["negative"] + MOMENTUM_WEIGHT.get(perspective, 0.5) * momentum
    p = round(1.0 / (1.0 + math.exp(-d / P_TEMPERATURE)), 2)
    if p == 0.5:
        aff = d > 0 or (d == 0 and _tiebreak(match.match_id, request.judge_id))
        p = 0.51 if aff else 0.49
    winner: Side = "affirmative" if p > 0.5 else "negative"

    votes = best_debater_votes(request, by_unit, values, winner)
    reasoning = (
        f"offline baseline ({perspective}): weighted mean unit value affirmative {mean['affirmative']:.2f} vs "
        f"negative {mean['negative']:.2f}; clash momentum {momentum:+.2f}; D={d:+.2f} -> p={p:.2f}"
    )
    return Ballot(
        judge_id=request.judge_id,
        perspective=perspective,
        model=MODEL_NAME,
        winner=winner,
        p=p,
        stage_scores=scores,
        best_debater_votes=votes,
        reasoning=reasoning,
    )


def best_debater_votes(request: JudgeRequest, by_unit: dict[tuple[str, str], SideAnalysis], values: dict[tuple[str, str], float], winner: Side) -> dict[str, int]:
    """A judge's 3 best-debater votes (pure function).

    Debater weight = sum over scored units of contribution share x ``VOTE_STAGE_WEIGHT[(type, role)]``
    x max(0, unit value - ``VOTE_SCORE_FLOOR``) x (1 + late-stage boost x stage position in [0, 1]),
    plus the perspective's credit per clash the debater opened or advanced; the ballot's winning side is
    multiplied by the perspective's winning-side factor (``VOTE_STYLE``). The weights are raised to the
    perspective's concentration exponent gamma and 3 votes apportioned by highest averages (D'Hondt),
    so the top debater takes a 2nd vote when its weight exceeds the runner-up's by 2^(1/gamma) and a
    3rd when by 3^(1/gamma) over the next. Falls back to the winning side's debaters equally when
    no weight is positive."""
    match = request.match
    factor, gamma, clash_credit, late = VOTE_STYLE.get(request.perspective, (1.25, 2.0, 0.0, 0.0))
    stage_index = {s.stage_id: i for i, s in enumerate(match.stages)}
    n_stages = max(1, len(match.stages) - 1)
    weight: dict[str, float] = {}
    for (sid, side), v in values.items():
        sa = by_unit[(sid, side)]
        stage = match.stages[stage_index[sid]]
        role = stage.role_of(side) or ""
        sw = VOTE_STAGE_WEIGHT.get((stage.type, role), VOTE_STAGE_WEIGHT.get((stage.type, ""), 1.0))
        w = sw * max(0.0, v - VOTE_SCORE_FLOOR) * (1.0 + late * stage_index[sid] / n_stages)
        for label, share in sa.contributions.items():
            weight[label] = weight.get(label, 0.0) + share * w
    if clash_credit:
        for c in request.clashes.values():
            for e in c.events:
                if e.debater and e.kind in ("opened", "advanced", "defended"):
                    weight[e.debater] = weight.get(e.debater, 0.0) + clash_credit
    labels = match.debater_labels()
    known = set(labels)
    weight = {k: (w * factor if k.lower().startswith(winner) else w) ** gamma for k, w in weight.items() if k in known and w > 0}
    votes = _highest_averages(weight, BALLOT_VOTES)
    if not votes:
        team = [lab for lab in labels if lab.lower().startswith(winner)] or labels
        votes = _apportion({lab: 1.0 for lab in team}, BALLOT_VOTES)
    return votes


#: The name the rest of the package uses for the offline judge.
OfflineJudge = OfflineBackend
