"""The offline judge: a deterministic, non-LLM implementation of the :class:`~adjudicator.backend.Backend`
protocol, the project's default model when no LLM is configured (DESIGN.md, Models).

How it works, in two nodes:

``analyse_stage`` (the clash tracker). For each evaluated side of the stage it computes text features
(:mod:`adjudicator.features`) from the side's utterances, the opponent's utterances in the stage and the
opponent's last two stages, and the side's own earlier stages:

- substance: an absolute-length factor (short speeches score low; forfeits and empty speeches 0)
  times a capped factor for length relative to the opponent's comparable speech (same stage for
  interactive stages, the opponent's latest speech of the same type or monologue otherwise), which can
  take at most 40% off;
- engagement: share of the opponent's 30 most frequent content terms (in this stage and its last two
  stages, leaving out terms this side had already used) that this side takes up;
- topicality: share of the motion's and positions' content terms the side uses;
- novelty: share of the side's distinct terms it had not used in its earlier stages;
- questions asked, and questions answered (a respondent turn after a question that is substantive);
- rebuttal, concession and evidence markers.

Those are mixed (weights below, per stage type and role) into three values in [0, 1], one per rubric
dimension of paper Table 5 (task performance, battlefield judgement, degree of advancement), shifted
by a structural prior (paper 2.5 "Stage bias": questioners outscore respondents in questioning and
cross-examination, the structure-aware baseline using 8 vs 6; the third speakers' cross-examinations
matter most; the answering side can hardly advance, so its advancement is capped) and cut into rubric
levels; :func:`adjudicator.rubric.suggested_score` reads the score off the table. Clashes are
recurring content terms that both sides use (motion words excluded), grouped into small clusters,
opened when first shared, and marked advanced / conceded / contested per side by how strongly the side
engages them (mentions, rebuttal or concession markers in the same sentences).

``judge``. Three perspectives (``JUDGE_PERSPECTIVES``) weight the three rubric dimensions and the clash
momentum differently. Each unit gets a value mixing the suggested score and the perspective-weighted
levels; the ballot's integer score is that value rounded; ``p`` is a logistic of the stage-weighted
difference in mean unit value plus clash momentum. Best-debater votes apportion 3 votes by
contribution share times score.

All constants are coarse, documented choices. The feature ranges come from the spread of values over
the DebateArt speeches (no labels); the one change made after a first accuracy run was a softer
penalty for speeches shorter than the opponent's, because a short first speech is normal. Nothing
was fitted or grid-searched against labels.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import Counter
from dataclasses import dataclass

from . import features as F
from .backend import JudgeRequest, NodeResult, StageRequest
from .battlefield import Clash, ClashUpdate, SideAnalysis, StageAnalysis
from .formats import Side, other_side
from .match import MatchView, Stage
from .records import CallRecord, NodeFailure
from .rubric import ADVANCEMENT_LEVELS, BATTLEFIELD_LEVELS, TASK_LEVELS
from .verdict import BALLOT_VOTES, Ballot, BallotScore

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
ENGAGEMENT_RANGE = (0.05, 0.6)  # coverage of the opponent's top-30 terms new to the side
NOVELTY_RANGE = (0.3, 0.95)  # share of distinct terms the side had not used before
REBUTTAL_RANGE = (0.0, 8.0)  # rebuttal markers per 100 content terms
EVIDENCE_RANGE = (0.0, 6.0)  # evidence markers in the speech
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
TASK_CUTS = (("perfect", 0.9), ("well", 0.55), ("approximate", 0.3))
BATTLEFIELD_CUTS = (("correct_important", 0.5), ("correct_secondary", 0.3), ("largely_irrelevant", 0.15))
ADVANCEMENT_CUTS = (("decisive", 0.92), ("major", 0.8), ("substantial", 0.65), ("effective", 0.5), ("attempt", 0.25))
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
#: Perspective -> weights of (task, battlefield, advancement) and of clash momentum (score points).
PERSPECTIVE_WEIGHTS: dict[str, tuple[float, float, float]] = {
    "task": (0.5, 0.25, 0.25),
    "battlefield": (0.25, 0.5, 0.25),
    "advancement": (0.25, 0.25, 0.5),
}
MOMENTUM_WEIGHT = {"task": 0.25, "battlefield": 0.75, "advancement": 0.5}
#: Logistic temperature of p, in score points of weighted mean difference.
P_TEMPERATURE = 0.75
#: Best-debater weight multiplier for the ballot's winning side (judges favour the winners' debaters).
WINNER_VOTE_FACTOR = 1.25
#: Clash tracking: at most this many clashes open in one stage, and in the whole map.
MAX_NEW_CLASHES = 2
MAX_CLASHES = 10


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

    def describe(self) -> str:
        """One compact line for a rationale."""
        return (
            f"substance {self.substance:.2f}, engagement {self.engagement:.2f}, topicality {self.topicality:.2f}, "
            f"novelty {self.novelty:.2f}, questions {self.questions}, answered {self.answered}/{self.asked}, "
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


def side_features(match: MatchView, stage: Stage, previous: list[Stage], side: Side) -> SideFeatures:
    """Compute :class:`SideFeatures` for ``side`` in ``stage`` given the stages before it.

    Reads only ``stage``, ``previous`` and the match header (motion, positions, language)."""
    lang = match.language
    text = _side_text(stage, side)
    stats = F.text_stats(text, lang)
    terms = list(stats.terms)
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

    # topicality and engagement
    topic_terms = set(F.content_terms(" ".join([match.motion, match.affirmative_position, match.negative_position]), lang))
    topicality = (sum(1 for t in topic_terms if t in set(terms)) / len(topic_terms)) if topic_terms else 0.0
    earlier: set[str] = set()  # the side's own terms in its earlier stages
    for s in previous:
        earlier.update(F.content_terms(_side_text(s, side), lang))
    opp = other_side(side)
    opp_terms = F.content_terms(_side_text(stage, opp), lang)
    for s in _opponent_history(previous, side):
        opp_terms += F.content_terms(_side_text(s, opp), lang)
    if opp_terms:
        engagement = _linear(F.coverage(terms, opp_terms, exclude=earlier), ENGAGEMENT_RANGE)
    else:
        engagement = topicality  # nothing to engage with yet: being on the motion is what counts

    # novelty against the side's own earlier stages
    novelty = _linear(F.novelty(terms, earlier), NOVELTY_RANGE)

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
    )


# ---------------------------------------------------------------------------------------------
# Features -> rubric levels


def dimension_values(stage_type: str, role: str | None, f: SideFeatures) -> tuple[float, float, float]:
    """(task, battlefield, advancement) values in [0, 1] before the structural prior.

    Mixes per stage type and role (weights sum to 1 in each mix):

    - task: constructive 0.5 substance + 0.2 topicality + 0.15 novelty + 0.15 evidence; supplementary
      0.4 substance + 0.25 engagement + 0.2 rebuttal + 0.15 evidence; questioner 0.35 questions +
      0.25 engagement + 0.25 substance + 0.15 rebuttal; respondent 0.45 answers + 0.3 substance +
      0.25 engagement; head-to-head / free debate 0.25 substance + 0.25 engagement + 0.15 questions +
      0.15 answers + 0.2 rebuttal; summary / closing 0.35 substance + 0.35 engagement + 0.3 rebuttal.
    - battlefield: 0.6 engagement + 0.4 topicality (constructive 0.3 / 0.7; respondent 0.4 engagement +
      0.2 topicality + 0.4 answers; questioner 0.5 engagement + 0.2 topicality + 0.3 questions).
    - advancement: constructive 0.5 novelty + 0.25 evidence + 0.25 topicality; summary / closing
      (they synthesise) 0.4 engagement + 0.4 rebuttal + 0.2 novelty; questioner 0.35 novelty +
      0.35 rebuttal + 0.3 questions; others 0.35 novelty + 0.35 rebuttal + 0.3 engagement.

    All three are then multiplied by sqrt(substance), so a forfeited or near-empty speech gets ~0, and
    advancement loses 0.15 per first-person concession.
    """
    s, e, t, nv = f.substance, f.engagement, f.topicality, f.novelty
    q, a, r, ev = f.question_score, f.answer_score, f.rebuttal_score, f.evidence_score
    if stage_type == "constructive":
        task = 0.5 * s + 0.2 * t + 0.15 * nv + 0.15 * ev
    elif stage_type == "supplementary":
        task = 0.4 * s + 0.25 * e + 0.2 * r + 0.15 * ev
    elif role == "questioner":
        task = 0.35 * q + 0.25 * e + 0.25 * s + 0.15 * r
    elif role == "respondent":
        task = 0.45 * a + 0.3 * s + 0.25 * e
    elif stage_type in ("head_to_head", "free_debate"):
        task = 0.25 * s + 0.25 * e + 0.15 * q + 0.15 * a + 0.2 * r
    else:  # summary, closing
        task = 0.35 * s + 0.35 * e + 0.3 * r
    if stage_type == "constructive":
        battlefield = 0.3 * e + 0.7 * t
    elif role == "respondent":  # answering the questions put is fighting on the questioner's battlefield
        battlefield = 0.4 * e + 0.2 * t + 0.4 * a
    elif role == "questioner":  # questions aimed at the opponent's case
        battlefield = 0.5 * e + 0.2 * t + 0.3 * q
    else:
        battlefield = 0.6 * e + 0.4 * t
    if stage_type == "constructive":
        adv = 0.5 * nv + 0.25 * ev + 0.25 * t
    elif stage_type in ("summary", "closing"):
        adv = 0.4 * e + 0.4 * r + 0.2 * nv
    elif role == "questioner":
        adv = 0.35 * nv + 0.35 * r + 0.3 * q
    else:
        adv = 0.35 * nv + 0.35 * r + 0.3 * e
    gate = math.sqrt(s)
    adv = adv * gate - 0.15 * f.concessions
    return task * gate, battlefield * gate, adv


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
class _Window:
    """Per-side term counts and sentences used by the clash tracker."""

    counts: dict[str, Counter]
    sentences: dict[str, list[tuple[str, str, frozenset]]]  # side -> [(speaker, sentence, terms)]
    opp_counts: dict[str, Counter]


def _norm(sentence: str) -> str:
    return " ".join(sentence.lower().split())


def _window(stage: Stage, previous: list[Stage], lang: str) -> _Window:
    """Term counts and sentences of each side in ``stage``, skipping sentences the side had already
    said word for word in an earlier stage (repetition is not clash work), plus the opponent's counts
    over this stage and its last two stages."""
    counts: dict[str, Counter] = {}
    sents: dict[str, list[tuple[str, str, frozenset]]] = {}
    opp_counts: dict[str, Counter] = {}
    for side in ("affirmative", "negative"):
        said = {_norm(x) for st in previous for u in st.utterances if u.side == side for x in F.sentences(u.text)}
        c: Counter = Counter()
        ss: list[tuple[str, str, frozenset]] = []
        for u in stage.utterances:
            if u.side != side:
                continue
            for sent in F.sentences(u.text):
                if _norm(sent) in said:
                    continue
                terms = F.content_terms(sent, lang)
                c.update(terms)
                ss.append((u.speaker, sent, frozenset(terms)))
        counts[side] = c
        sents[side] = ss
    for side in ("affirmative", "negative"):
        opp = other_side(side)  # type: ignore[arg-type]
        oc = Counter(counts[opp])
        for s in _opponent_history(previous, side):  # type: ignore[arg-type]
            oc.update(F.content_terms(_side_text(s, opp), lang))
        opp_counts[side] = oc
    return _Window(counts, sents, opp_counts)


def _zh_title(seed: str, shared: set[str], texts: list[str]) -> str:
    """Grow a Chinese bigram into the longest string (up to 4 characters, a typical word length) whose bigrams are all shared
    salient terms and which occurs at least twice in ``texts``."""
    joined = "\n".join(texts)
    s = seed
    for _ in range(2):
        grown = False
        for cand in sorted({s + ch for ch in _next_chars(joined, s)} | {ch + s for ch in _prev_chars(joined, s)}):
            new_bg = cand[-2:] if cand.startswith(s) else cand[:2]
            if new_bg in shared and joined.count(cand) >= 2:
                s = cand
                grown = True
                break
        if not grown or len(s) >= 4:
            break
    return s


def _next_chars(text: str, s: str) -> set[str]:
    out = set()
    i = text.find(s)
    while i != -1:
        if i + len(s) < len(text):
            out.add(text[i + len(s)])
        i = text.find(s, i + 1)
    return out


def _prev_chars(text: str, s: str) -> set[str]:
    out = set()
    i = text.find(s)
    while i != -1:
        if i > 0:
            out.add(text[i - 1])
        i = text.find(s, i + 1)
    return out


def _clash_terms(clash: Clash, lang: str) -> set[str]:
    return set(F.content_terms(clash.title, lang))


def track_clashes(match: MatchView, stage: Stage, previous: list[Stage], clashes: dict[str, Clash], sides_quality: dict[str, float]) -> list[ClashUpdate]:
    """Clash updates for one stage.

    1. Candidate terms: content terms a side uses at least twice in this stage (sentences it repeats
       word for word from its earlier stages do not count) that its opponent also
       used at least twice (in this stage or its last two stages), excluding motion/position terms;
       salience = the smaller of the two counts.
    2. Existing clashes (terms read back from their titles) are touched when the stage's speakers
       mention their terms at least twice; up to ``MAX_NEW_CLASHES`` new clashes open from the most
       salient candidates not already covered (English: the seed plus up to two candidates that share
       at least half of its sentences; Chinese: the seed bigram grown into the longest shared string),
       with ids ``c<n>`` continuing the map's numbering and titles made of the terms.
    3. Events per touched clash and side that mentions it: "conceded" when a concession marker shares
       a sentence with its terms (at least as often as rebuttal markers do); otherwise "advanced" for
       the side with the stronger engagement (mentions times (1 + rebuttal sentences), ties broken by
       the stage quality) when it mentions the clash at least twice, and "contested" for the rest.
       A new clash's first update is "opened" by the side that mentions it most.
    """
    lang = match.language
    win = _window(stage, previous, lang)
    topic = set(F.content_terms(" ".join([match.motion, match.affirmative_position, match.negative_position]), lang))
    evaluated = stage.evaluated_sides()
    speaking = [s for s in evaluated if win.counts[s]]

    cand: Counter = Counter()
    for side in speaking:
        for t, c in win.counts[side].items():
            oc = win.opp_counts[side].get(t, 0)
            if c >= 2 and oc >= 2 and t not in topic:
                cand[t] = max(cand[t], min(c, oc))
    shared = set(cand)

    def mentions(side: str, terms: set[str]) -> int:
        return sum(win.counts[side].get(t, 0) for t in terms)

    touched: list[tuple[str, str, set[str], bool]] = []  # (clash_id, title, terms, is_new)
    covered: set[str] = set()
    for cid, clash in clashes.items():
        terms = _clash_terms(clash, lang)
        covered |= terms
        if terms and sum(mentions(s, terms) for s in speaking) >= 2:
            touched.append((cid, clash.title, terms, False))

    n_existing = len(clashes)
    new = 0
    side_texts = [_side_text(stage, s) for s in ("affirmative", "negative")] + [
        _side_text(s, side) for s in previous[-2:] for side in ("affirmative", "negative")
    ]
    all_sents = [ss for side in ("affirmative", "negative") for ss in win.sentences[side]]
    for seed, _ in sorted(cand.items(), key=lambda kv: (-kv[1], kv[0])):
        if new >= MAX_NEW_CLASHES or n_existing + new >= MAX_CLASHES:
            break
        if seed in covered:
            continue
        if lang == "zh":
            title = _zh_title(seed, shared, side_texts)
            terms = set(F.content_terms(title, lang))
        else:
            seed_sents = [ts for _, _, ts in all_sents if seed in ts]
            terms = {seed}
            surf = F.surface_forms("\n".join(side_texts), lang)
            for t, _ in sorted(cand.items(), key=lambda kv: (-kv[1], kv[0])):
                if len(terms) >= 3 or t in terms or t in covered:
                    continue
                co = sum(1 for ts in seed_sents if t in ts)
                if seed_sents and co / len(seed_sents) >= 0.5:
                    terms.add(t)
            ordered = sorted(terms, key=lambda x: (-cand.get(x, 0), x))
            title = " / ".join(surf.get(t, t) for t in ordered)
            terms = set(F.content_terms(title, lang)) or terms
        if terms & covered:
            continue
        covered |= terms
        new += 1
        touched.append((f"c{n_existing + new}", title, terms, True))

    updates: list[ClashUpdate] = []
    for cid, title, terms, is_new in touched:
        info = {}
        for side in evaluated:
            ss = [(sp, sent) for sp, sent, ts in win.sentences[side] if ts & terms]
            strength = mentions(side, terms)
            reb = sum(1 for _, sent in ss if F.has_rebuttal(sent, lang))
            con = sum(1 for _, sent in ss if F.has_concession(sent, lang))
            speaker = Counter(sp for sp, _ in ss).most_common(1)[0][0] if ss else None
            position = min((sent for _, sent in ss), key=len)[:120] if ss else ""
            info[side] = (strength, reb, con, speaker, position)
        active = [s for s in evaluated if info[s][0] > 0]
        if not active:
            continue
        conceding = [s for s in active if info[s][2] > 0 and info[s][2] >= info[s][1]]
        fighting = [s for s in active if s not in conceding]
        leader = None
        if fighting:
            leader = max(fighting, key=lambda s: (info[s][0] * (1 + info[s][1]), sides_quality.get(s, 0.0), s == evaluated[0]))
            if info[leader][0] < 2:
                leader = None
        first = True
        order = sorted(active, key=lambda s: -info[s][0]) if is_new else active
        for side in order:
            strength, reb, con, speaker, position = info[side]
            pos_kw = {f"{side}_position": position} if position else {}
            if is_new and first:
                updates.append(ClashUpdate(clash_id=cid, title=title, side=side, kind="opened", note=f"first shared in {stage.stage_id}", debater=speaker, **pos_kw))
            first = False
            if side in conceding:
                kind, note = "conceded", f"{con} concession sentence(s) on it"
            elif side == leader:
                kind, note = "advanced", f"{strength} mentions, {reb} rebuttal sentence(s)"
            else:
                kind, note = "contested", f"{strength} mentions"
            updates.append(ClashUpdate(clash_id=cid, title=title if is_new else "", side=side, kind=kind, note=note, debater=speaker, **pos_kw))
    return updates


# ---------------------------------------------------------------------------------------------
# Judging


_TASK_VAL = {k: 1 - i / (len(TASK_LEVELS) - 1) for i, k in enumerate(TASK_LEVELS)}
_BF_VAL = {k: 1 - i / (len(BATTLEFIELD_LEVELS) - 1) for i, k in enumerate(BATTLEFIELD_LEVELS)}
_ADV_VAL = {k: 1 - i / (len(ADVANCEMENT_LEVELS) - 1) for i, k in enumerate(ADVANCEMENT_LEVELS)}


def unit_value(a: SideAnalysis, perspective: str) -> float:
    """A judge's real-valued score 1-10 for one analysed unit:
    0.5 x suggested score + 0.5 x (1 + 9 x perspective-weighted mean of the three level values),
    level values spread evenly over [0, 1] from worst to best level."""
    wt, wb, wa = PERSPECTIVE_WEIGHTS.get(perspective, (1 / 3, 1 / 3, 1 / 3))
    mix = wt * _TASK_VAL[a.task_performance] + wb * _BF_VAL[a.battlefield_judgement] + wa * _ADV_VAL[a.advancement]
    return 0.5 * a.suggested_score + 0.5 * (1.0 + 9.0 * mix)


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
    return NodeResult(value=None, calls=[rec], failure=NodeFailure(node=node, key=key, reason=reason))


def analyse(match: MatchView, stage: Stage, index: int, previous: list[Stage], clashes: dict[str, Clash]) -> StageAnalysis:
    """The offline :class:`StageAnalysis` of ``stage`` (pure function; see the module docstring)."""
    lang = match.language
    sides: list[SideAnalysis] = []
    quality: dict[str, float] = {}
    for side in stage.evaluated_sides():
        role = stage.role_of(side)
        f = side_features(match, stage, previous, side)
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
        a = analyse(match, match.stages[i], i, match.stages[:i], {})
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

    vote_w: dict[str, float] = {}
    for (sid, side), sa in by_unit.items():
        if (sid, side) not in values:
            continue
        stage = match.stages[stage_index[sid]]
        w = STAGE_WEIGHT.get(stage.type, 1.0) * max(0.0, values[(sid, side)] - 1.0) * (WINNER_VOTE_FACTOR if side == winner else 1.0)
        for label, share in sa.contributions.items():
            vote_w[label] = vote_w.get(label, 0.0) + share * w
    known = set(match.debater_labels())
    vote_w = {k: v for k, v in vote_w.items() if k in known}
    votes = _apportion(vote_w, BALLOT_VOTES)
    if not votes:
        team = [lab for lab in match.debater_labels() if lab.lower().startswith(winner)] or match.debater_labels()
        votes = _apportion({lab: 1.0 for lab in team}, BALLOT_VOTES)
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


#: The name the rest of the package uses for the offline judge.
OfflineJudge = OfflineBackend
