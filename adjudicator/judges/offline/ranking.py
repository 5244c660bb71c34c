"""The offline judge's ballot for a ranking format (BP): :func:`ranking_ballot`, behind the ``judge``
node when the format ranks its units.

The tracker's analyses are the same as for two-sided formats (each speech is a monologue of its
bench, so every clash keeps a government and an opposition position). Per speech, a judge's value is
:func:`~adjudicator.judges.offline.ballot.unit_value` of its analysis (1-10, perspective-weighted),
plus two BP terms:

- a closing house is judged on its extension (seed 002 section 3.1, the WUDC manual): the extension
  speech (MG, MO) gains or loses up to ``EXTENSION_WEIGHT`` rubric points by the share of its content
  terms that no earlier speech used (0.5 = neutral);
- each house's clash record: ``CLASH_WEIGHT[perspective]`` x the house's net clash momentum in
  [-1, 1] (advanced and defended events minus conceded ones, over its counted events), added to both
  of its speeches.

The value becomes a WUDC speaker score ``SCORE_ANCHOR + SCORE_SLOPE x (value - 7)``, rounded and
clamped to the format's scale. A house's points are its two scores; the houses are ranked by points
(ties by summed value, then declaration order) and equal totals are separated by taking the needed
points off the lower-ranked house's weaker speech, so the ballot has no low-point win and no tied
totals. Speaker ranks order the speeches by score, then value, then speaking order.
"""

from __future__ import annotations

import math

from adjudicator.input.match import MatchView
from adjudicator.judges.base import JudgeRequest
from adjudicator.judges.offline.ballot import MODEL_NAME, WELL_ANCHOR, _analyses_by_unit, unit_value
from adjudicator.judges.offline.text import content_terms, novelty
from adjudicator.judges.offline.words import Words
from adjudicator.verdict.ballots import Ballot, SpeakerScore
from adjudicator.verdict.battlefield import Clash

#: Speaker score of a speech valued at the rubric's "well completed" middle (7): DebateBench (seed 002,
#: Table 1) reports a mean of 80.25 over elite BP rounds; 80 is that, rounded. Not fitted.
SCORE_ANCHOR = 80.0
#: Speaker points per rubric point: the shrunk unit values spread about +-2 around 7, which gives
#: scores of about 76-84, close to DebateBench's standard deviation of 2.69 points.
SCORE_SLOPE = 2.0
#: Rubric points an extension speech gains at novelty 1 (loses at 0) relative to novelty 0.5.
EXTENSION_WEIGHT = 2.0
#: Per perspective: rubric points per unit of a house's net clash momentum.
CLASH_WEIGHT = {"task": 0.25, "battlefield": 0.75, "advancement": 0.5}


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def extension_novelty(match: MatchView, stage_id: str) -> float:
    """Share in [0, 1] of the speech's distinct content terms that no earlier speech used
    (:func:`~adjudicator.judges.offline.text.novelty`)."""
    earlier: set[str] = set()
    for st in match.stages:
        if st.stage_id == stage_id:
            return novelty(content_terms(st.text(), match.language), earlier)
        earlier.update(content_terms(st.text(), match.language))
    raise KeyError(stage_id)


def house_momentum(match: MatchView, clashes: dict[str, Clash]) -> dict[str, float]:
    """Unit -> net clash momentum in [-1, 1]: (advanced + defended - conceded events the unit's
    speeches made) / those events; 0.0 for a unit with none. An event belongs to the unit of its
    stage's declared slot."""
    unit_of_stage = {sid: unit for sid, unit, _ in match.speeches()}
    net = {u: 0.0 for u in match.units()}
    n = {u: 0 for u in match.units()}
    for c in clashes.values():
        for e in c.events:
            u = unit_of_stage.get(e.stage_id)
            if u is None or e.kind not in ("advanced", "defended", "conceded"):
                continue
            net[u] += -1.0 if e.kind == "conceded" else 1.0
            n[u] += 1
    return {u: (net[u] / n[u] if n[u] else 0.0) for u in net}


def speech_values(request: JudgeRequest) -> dict[str, float]:
    """Stage id -> the judge's value of the speech (module docstring), in speaking order."""
    match = request.match
    by_unit = _analyses_by_unit(request)
    momentum = house_momentum(match, request.clashes)
    weight = CLASH_WEIGHT.get(request.perspective, 0.5)
    values: dict[str, float] = {}
    for sid, unit, _ in match.speeches():
        stage = match.stage(sid)
        v = unit_value(by_unit[(sid, stage.sides[0])], request.perspective)
        slot = match.slot_of(sid)
        if slot is not None and slot.speech_role == "extension":
            v += EXTENSION_WEIGHT * (extension_novelty(match, sid) - 0.5)
        values[sid] = v + weight * momentum[unit]
    return values


def ranking_ballot(request: JudgeRequest) -> Ballot:
    """The offline ranking ballot (pure function of the request; module docstring): speaker scores,
    speaker ranks and a house ranking that agrees with the team totals."""
    match = request.match
    lo, hi = match.spec().speaker_scale or (50, 100)
    values = speech_values(request)
    speeches = match.speeches()
    scores = {sid: min(hi, max(lo, _round_half_up(SCORE_ANCHOR + SCORE_SLOPE * (v - WELL_ANCHOR)))) for sid, v in values.items()}
    units = match.units()
    of_unit = {u: [sid for sid, unit, _ in speeches if unit == u] for u in units}
    value_sum = {u: sum(values[s] for s in of_unit[u]) for u in units}
    order = sorted(units, key=lambda u: (-sum(scores[s] for s in of_unit[u]), -value_sum[u], units.index(u)))
    for better, worse in zip(order, order[1:]):
        gap = sum(scores[s] for s in of_unit[worse]) - sum(scores[s] for s in of_unit[better])
        if gap >= 0:
            weakest = min(of_unit[worse], key=lambda s: (scores[s], values[s]))
            scores[weakest] -= gap + 1
    ranking = {u: r for r, u in enumerate(order, start=1)}
    index = {sid: k for k, (sid, _, _) in enumerate(speeches)}
    by_rank = sorted(scores, key=lambda s: (-scores[s], -values[s], index[s]))
    rank_of = {sid: r for r, sid in enumerate(by_rank, start=1)}
    speaker_scores = [SpeakerScore(stage_id=sid, unit=unit, speech=abbr, score=scores[sid], rank=rank_of[sid]) for sid, unit, abbr in speeches]
    totals = {u: sum(scores[s] for s in of_unit[u]) for u in units}
    w = Words(match.language)
    places = w.join([w.t("reason.ranking.place", house=w.side(u), ordinal=w.t(f"ordinal.{r}") if f"ordinal.{r}" in w.table else str(r)) for r, u in enumerate(order, start=1)])
    best = by_rank[0]
    abbr = {sid: a for sid, _, a in speeches}
    reasoning = w.t("reason.ranking", points=w.join([f"{u} {totals[u]}" for u in order]), order=places) + (" " if w.lang == "en" else "") + w.t(
        "reason.ranking.best", speech=abbr.get(best) or best, score=scores[best])
    return Ballot(
        judge_id=request.judge_id,
        perspective=request.perspective,
        model=MODEL_NAME,
        winner=None,
        p=None,
        stage_scores=[],
        best_debater_votes={},
        reasoning=reasoning,
        ranking=ranking,
        speaker_scores=speaker_scores,
    )
