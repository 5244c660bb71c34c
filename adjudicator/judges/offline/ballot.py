"""A judge's ballot from the analyses: :func:`judge_ballot` and :func:`best_debater_votes`, behind the
``judge`` node.

Three perspectives (``JUDGE_PERSPECTIVES``) weight the three rubric dimensions (0.6 on
their own), the clash momentum and the stages differently. Each unit gets a value mixing the
suggested score and the perspective-weighted levels, shrunk halfway toward the middle of the "well
completed" band (7) unless the stage was not completed (forfeit, empty: stays at the floor); the
ballot's integer score is that value rounded; ``p`` is a logistic of the stage-weighted difference in
mean unit value plus clash momentum. Best-debater votes: debater weight = contribution share x unit
score above 3 x stage weight (third speakers' cross-examinations, closings, free debate count most),
sharpened by a perspective exponent and apportioned by highest averages, so a judge may give 2 or 3
votes to one debater; the "battlefield" judge also credits clash work, the "advancement" judge later
stages.
"""

from __future__ import annotations

import hashlib
import math

from adjudicator.input.formats import Side
from adjudicator.input.match import MatchView
from adjudicator.input.rubric import ADVANCEMENT_LEVELS, BATTLEFIELD_LEVELS, TASK_LEVELS
from adjudicator.judges.base import JudgeRequest
from adjudicator.judges.offline.feedback import debater_feedback
from adjudicator.judges.offline.ledger import ledger_before
from adjudicator.judges.offline.reasons import ballot_reasons
from adjudicator.judges.offline.tracker import analyse
from adjudicator.verdict.ballots import BALLOT_VOTES, Ballot, BallotScore
from adjudicator.verdict.battlefield import Clash, SideAnalysis
from adjudicator.verdict.dimensions import DimensionRating, DimensionVote, votes_from_ratings
from adjudicator.verdict.feedback import asks_feedback

#: The model name the offline judge's ballots and call records carry.
MODEL_NAME = "offline"

# ---------------------------------------------------------------------------------------------
# Constants (coarse, documented; not fitted)

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


def judge_ballot(request: JudgeRequest) -> Ballot:
    """The offline ballot (pure function of the request).

    - Every scored unit of ``request.match`` gets ``round(unit_value)`` clamped to 1-10; a unit with
      no analysis (its tracker node failed) is analysed here from the transcript.
    - D = stage-weighted mean unit value of the affirmative minus that of the negative (``STAGE_WEIGHT``;
      the "advancement" perspective also weights later stages up to 1.5x), plus
      ``MOMENTUM_WEIGHT[perspective]`` x the event-weighted mean clash momentum.
    - p = 1 / (1 + exp(-D / P_TEMPERATURE)) rounded to 2 decimals; a p that rounds to 0.5 becomes
      0.51 or 0.49 by the sign of D (exact tie: a coin keyed by match and judge id).
    - Best-debater votes: :func:`best_debater_votes`.
    - Feedback per debater: :func:`~adjudicator.judges.offline.feedback.debater_feedback`.
    - The reasoning: sentences from these numbers, the transcript and the clash map
      (:func:`~adjudicator.judges.offline.reasons.ballot_reasons`), in the match's language.
    """
    match = request.match
    perspective = request.perspective
    by_unit = _analyses_by_unit(request)
    units = match.scored_units()
    values = [unit_value(by_unit[u], perspective) for u in units]
    scores = [BallotScore(stage_id=sid, side=side, score=min(10, max(1, _round_half_up(v)))) for (sid, side), v in zip(units, values)]
    mean = _weighted_means(match, units, values, perspective)
    momentum = _momentum(request.clashes)
    d = mean["affirmative"] - mean["negative"] + MOMENTUM_WEIGHT.get(perspective, 0.5) * momentum
    p = _probability(d, match.match_id, request.judge_id)
    winner: Side = "affirmative" if p > 0.5 else "negative"

    votes = best_debater_votes(request, by_unit, dict(zip(units, values)), winner)
    reasoning = ballot_reasons(match, perspective, request.clashes, dict(zip(units, values)), {(s.stage_id, s.side): s.score for s in scores}, mean, momentum, p, winner)
    return Ballot(
        judge_id=request.judge_id,
        perspective=perspective,
        model=MODEL_NAME,
        winner=winner,
        p=p,
        stage_scores=scores,
        best_debater_votes=votes,
        reasoning=reasoning,
        dimensions=dimension_votes(request, by_unit),
        feedback=debater_feedback(request, by_unit, dict(zip(units, values))) if asks_feedback(request) else [],
    )


def dimension_votes(request: JudgeRequest, by_unit: dict[tuple[str, Side], SideAnalysis]) -> list[DimensionVote]:
    """The ballot's per-dimension votes under a dimensional ``request.rubric`` ([] otherwise): the
    tracker's stage ratings of each side combined by :func:`adjudicator.verdict.dimensions.votes_from_ratings`
    (the same for every perspective: the offline judge's perspectives weigh the CCDB levels only)."""
    if request.rubric is None or not request.rubric.dimensional:
        return []
    ratings: dict[Side, list[DimensionRating]] = {"affirmative": [], "negative": []}
    for (_, side), a in sorted(by_unit.items()):
        ratings[side].extend(a.dimensions)
    return votes_from_ratings(request.rubric, ratings)


def _analyses_by_unit(request: JudgeRequest) -> dict[tuple[str, Side], SideAnalysis]:
    """(stage id, side) -> its analysis, from ``request.analyses`` (a later one replaces an earlier).
    A scored unit with no analysis (its tracker node failed) is analysed here from the transcript,
    in stage order, against the clash map as it stood before its stage (:func:`ledger_before`)."""
    match = request.match
    by_unit: dict[tuple[str, Side], SideAnalysis] = {}
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
    return by_unit


def _weighted_means(match: MatchView, units: list[tuple[str, Side]], values: list[float], perspective: str) -> dict[str, float]:
    """Side -> stage-weighted mean of its units' ``values`` (5.5 for a side with no unit). A unit of
    stage type t weighs ``STAGE_WEIGHT[t]`` (1.0 if absent); the "advancement" perspective also
    multiplies by 1 + 0.5 x the stage's position in [0, 1] (later stages up to 1.5x)."""
    stage_index = {s.stage_id: i for i, s in enumerate(match.stages)}
    n_stages = max(1, len(match.stages) - 1)
    sums = {"affirmative": 0.0, "negative": 0.0}
    weights = {"affirmative": 0.0, "negative": 0.0}
    for (sid, side), v in zip(units, values):
        stage = match.stages[stage_index[sid]]
        w = STAGE_WEIGHT.get(stage.type, 1.0)
        if perspective == "advancement":
            w *= 1.0 + 0.5 * stage_index[sid] / n_stages
        sums[side] += w * v
        weights[side] += w
    return {s: (sums[s] / weights[s] if weights[s] else 5.5) for s in sums}


def _momentum(clashes: dict[str, Clash]) -> float:
    """Event-weighted mean momentum of the map's clashes in [-1, 1] (sum of momentum x events over
    the number of events; 0.0 when no clash has an event)."""
    n_events = sum(len(c.events) for c in clashes.values())
    return sum(c.momentum() * len(c.events) for c in clashes.values()) / n_events if n_events else 0.0


def _probability(d: float, match_id: str, judge_id: str) -> float:
    """p = 1 / (1 + exp(-d / ``P_TEMPERATURE``)) rounded to 2 decimals; a p that rounds to 0.5
    becomes 0.51 or 0.49 by the sign of ``d`` (exact tie: :func:`_tiebreak` of match and judge id)."""
    p = round(1.0 / (1.0 + math.exp(-d / P_TEMPERATURE)), 2)
    if p == 0.5:
        aff = d > 0 or (d == 0 and _tiebreak(match_id, judge_id))
        p = 0.51 if aff else 0.49
    return p


def debater_weights(request: JudgeRequest, by_unit: dict[tuple[str, Side], SideAnalysis], values: dict[tuple[str, Side], float]) -> dict[str, float]:
    """Debater label -> weight before the winning-side factor and the concentration exponent: sum
    over scored units of contribution share x ``VOTE_STAGE_WEIGHT[(type, role)]`` x max(0, unit value
    - ``VOTE_SCORE_FLOOR``) x (1 + late-stage boost x stage position in [0, 1]), plus the
    perspective's credit per clash the debater opened or advanced (``VOTE_STYLE``). May hold labels
    the match does not know (a tracker's slip); callers filter."""
    match = request.match
    _, _, clash_credit, late = VOTE_STYLE.get(request.perspective, (1.25, 2.0, 0.0, 0.0))
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
    return weight


def best_debater_votes(request: JudgeRequest, by_unit: dict[tuple[str, Side], SideAnalysis], values: dict[tuple[str, Side], float], winner: Side) -> dict[str, int]:
    """A judge's 3 best-debater votes (pure function).

    Debater weights from :func:`debater_weights`; the ballot's winning side is multiplied by the
    perspective's winning-side factor (``VOTE_STYLE``). The weights are raised to the
    perspective's concentration exponent gamma and 3 votes apportioned by highest averages (D'Hondt),
    so the top debater takes a 2nd vote when its weight exceeds the runner-up's by 2^(1/gamma) and a
    3rd when by 3^(1/gamma) over the next. Falls back to the winning side's debaters equally when
    no weight is positive."""
    match = request.match
    factor, gamma, _, _ = VOTE_STYLE.get(request.perspective, (1.25, 2.0, 0.0, 0.0))
    weight = debater_weights(request, by_unit, values)
    labels = match.debater_labels()
    known = set(labels)
    weight = {k: (w * factor if k.lower().startswith(winner) else w) ** gamma for k, w in weight.items() if k in known and w > 0}
    votes = _highest_averages(weight, BALLOT_VOTES)
    if not votes:
        team = [lab for lab in labels if lab.lower().startswith(winner)] or labels
        votes = _apportion({lab: 1.0 for lab in team}, BALLOT_VOTES)
    return votes
