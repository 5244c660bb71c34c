"""From features to rubric levels: :func:`dimension_values` and :func:`rate`.

A side's features (:class:`~adjudicator.judges.offline.features.SideFeatures`) are mixed (weights in
:func:`dimension_values`, per stage type and role) into three values in [0, 1], one per rubric dimension
of paper Table 5 (task performance, battlefield judgement, degree of advancement), shifted by a
structural prior (paper 2.5 "Stage bias": questioners outscore respondents in questioning and
cross-examination, the structure-aware baseline using 8 vs 6; the third speakers' cross-examinations
matter most; the answering side can hardly advance, so its advancement is capped) and cut into rubric
levels placed so that ordinary work reads as "well completed";
:func:`adjudicator.input.rubric.suggested_score` reads the score off the table.
"""

from __future__ import annotations

import math

from adjudicator.judges.offline.features import SideFeatures

# ---------------------------------------------------------------------------------------------
# Constants (coarse, documented; not fitted)

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
#: Stage types whose job is to revisit and weigh earlier material (paper Appendix A.2): novelty is
#: not rewarded there; synthesis, weighing and engagement with the opponent's main points are.
SYNTHESIS_STAGES = frozenset({"summary", "closing"})


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

