"""The LLM judge's answers as pydantic models: the tracker's stage analysis and a judge's ballot.

Each request's answer model is built for that request's units (:func:`stage_answer`,
:func:`ballot_answer`, one class per distinct shape), so the schema is exact
(:mod:`adjudicator.model.schema`): the tracker's ``sides`` is an object with one required key per
evaluated side of the stage, or, in a match whose every stage rates one side and whose requests ask
for strict ``json_schema``, ``rating`` is that one side's entry, the same schema for every stage
(:func:`~adjudicator.judges.llm.variables.rates_one_side`; issue 39); a judge's ``stage_scores`` an object with one required key per unit it
must score (``"<stage_id>|<side>"``, :func:`~adjudicator.judges.llm.variables.unit_key`), each an
integer 1-10; p a number in [0, 1]; ``best_debater_votes`` exactly three position labels, one per
vote; ``feedback`` (nullable: only the chair writes it) one required key per debater, each with its three points tied to a stage id and a
clash id of the ledger (or ""; plain strings, checked by the reader). :func:`stage_schema` and :func:`judge_schema` are the models' response schemas
(:func:`~adjudicator.model.schema.response_schema`), sent for structured output. Reasoning fields come
before the ratings, so a model writes its reasons first: a side's ``rationale`` before its levels, a
ballot's ``reasoning`` before its scores. A clash update names its ``debater`` unless every side of
the match has one debater (its side names it; issue 39). The tracker's answer has no top-level reasoning (issue 39):
nothing read it (a :class:`~adjudicator.verdict.battlefield.StageAnalysis` has none; the judges read
each side's rationale and the summary), and it was about a sixth of the agentic arm's completion tokens.

The parser does not depend on these models: :mod:`adjudicator.judges.llm.recovery` validates what
comes back, more leniently (level aliases, a list instead of an object, a vote mapping, field-level
recovery).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Annotated, Any

from pydantic import Field, create_model

from adjudicator.input.formats import Side
from adjudicator.input.rubric import Advancement, BattlefieldJudgement, TaskPerformance
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.dimensions import answer_spec, ballot_answer_fields, side_answer_fields
from adjudicator.judges.llm.variables import asks_contributions, asks_update_debater, judge_units, unit_key
from adjudicator.model.schema import OutputModel, ballots_of, keyed_model, list_of, one_of, output_model, probability, response_schema, score
from adjudicator.verdict.ballots import BALLOT_VOTES
from adjudicator.verdict.battlefield import ClashEventKind
from adjudicator.verdict.feedback import FEEDBACK_KINDS, asks_feedback


class ClashUpdateAnswer(OutputModel):
    """What the tracker says one stage did to one clash (read into a
    :class:`~adjudicator.verdict.battlefield.ClashUpdate`); positions are "" unless they change."""

    clash_id: str
    title: str
    side: Side
    kind: ClashEventKind
    note: str
    debater: str | None
    affirmative_position: str
    negative_position: str


#: :class:`ClashUpdateAnswer` without ``debater``, its other keys in the same order: the update of a
#: match where every side has one debater (:func:`~adjudicator.judges.llm.variables.asks_update_debater`),
#: whose ``side`` names the debater (the reader fills it in; issue 39: ~22 completion tokens a stage).
SideClashUpdateAnswer = output_model("SideClashUpdateAnswer", **{k: f.annotation for k, f in ClashUpdateAnswer.model_fields.items() if k != "debater"})


@lru_cache(maxsize=256)
def stage_answer(
    sides: tuple[str, ...],
    labels: tuple[str, ...],
    dims: tuple[tuple[str, ...], bool, bool] | None = None,
    contributions: bool = True,
    update_debater: bool = True,
    one_rating: bool = False,
) -> type[OutputModel]:
    """The tracker's answer for a stage whose evaluated sides are ``sides``: one
    rating per side under that side's key (rationale, the three rubric levels, an optional score
    override 1-10 and, with ``contributions``, the debaters' shares of the work, each in [0, 1],
    ``debater`` one of ``labels``; under a dimensional rubric, ``dims`` from
    :func:`adjudicator.judges.llm.dimensions.answer_spec`, also its dimension scores, arguments and
    claims), the clash updates and a summary. ``contributions`` is False when every evaluated side
    has a single debater in the stage (:func:`~adjudicator.judges.llm.variables.asks_contributions`):
    that debater's share is 1 without asking. ``update_debater`` is False when every side of the match
    has one debater (:func:`~adjudicator.judges.llm.variables.asks_update_debater`): a clash update then
    has no ``debater`` (:data:`SideClashUpdateAnswer`). With ``one_rating`` (a stage of one evaluated
    side, :func:`~adjudicator.judges.llm.variables.rates_one_side`) the one rating is ``"rating"``,
    with no side key, so every stage of the match has this same schema."""
    shares: dict[str, Any] = {}
    if contributions:
        contribution = output_model("Contribution", debater=one_of(labels), share=Annotated[float, Field(ge=0.0, le=1.0)])
        shares["contributions"] = list_of(contribution)
    side = output_model(
        "SideAnswer",
        rationale=str,
        task_performance=TaskPerformance,
        battlefield_judgement=BattlefieldJudgement,
        advancement=Advancement,
        score=score() | None,
        **shares,
        **side_answer_fields(dims),
    )
    update = ClashUpdateAnswer if update_debater else SideClashUpdateAnswer
    if one_rating:
        return output_model("RatedStageAnswer", rating=side, clash_updates=list_of(update), summary=str)
    return output_model("StageAnswer", sides=keyed_model("SideAnswers", sides, side), clash_updates=list_of(update), summary=str)


@lru_cache(maxsize=256)
def feedback_answer(labels: tuple[str, ...]) -> type[OutputModel]:
    """The coach's feedback of a ballot: one required key per debater label of ``labels``, each with
    its three points (``worked``, ``missed``, ``work_on``), each point a text, a stage id and a clash id
    or ``""`` (:class:`~adjudicator.verdict.feedback.DebaterFeedback`). The ids are plain strings, not
    enums of the match's stages and the ledger's clashes: an enum written into each of the
    3 x debaters points repeated the id lists 3 x debaters times (on the 14-stage 4v4, about 1,900
    schema tokens per judge); the prompt shows every id once (analyses and ledger) and the reader
    (:func:`~adjudicator.judges.llm.ballot_recovery.read_feedback`) refuses an id that is not the match's
    or the ledger's, naming the valid ones, so a repair turn asks for that point again."""
    point = output_model("FeedbackPoint", text=str, stage_id=str, clash_id=str)
    debater = output_model("DebaterFeedback", **{kind: point for kind in FEEDBACK_KINDS})
    return keyed_model("Feedback", labels, debater)


@lru_cache(maxsize=256)
def ballot_answer(
    unit_keys: tuple[str, ...],
    sides: tuple[str, ...],
    labels: tuple[str, ...],
    dims: tuple[tuple[str, ...], bool, bool] | None = None,
    feedback: bool = False,
) -> type[OutputModel]:
    """A judge's ballot: its reasoning, an integer 1-10 under each of ``unit_keys``, the winner (one
    of ``sides``), p in [0, 1], and the best-debater votes as exactly :data:`BALLOT_VOTES` labels of
    ``labels``; with ``feedback`` the coach's feedback to each debater (:func:`feedback_answer`) or
    null (``"type": ["object", "null"]``: the wings answer null, the chair writes it; one schema for
    the three judges of a match, so their requests share a cached prefix); under a dimensional rubric
    (``dims``) also a vote per subjective dimension."""
    extra: dict[str, Any] = {"feedback": feedback_answer(labels) | None} if feedback else {}
    return output_model(
        "BallotAnswer",
        reasoning=str,
        stage_scores=keyed_model("StageScores", unit_keys, score()),
        winner=one_of(sides),
        p=probability(),
        best_debater_votes=ballots_of(labels, BALLOT_VOTES),
        **extra,
        **ballot_answer_fields(dims),
    )


@lru_cache(maxsize=256)
def window_answer(stages: tuple[tuple[str, tuple[str, ...], bool], ...], labels: tuple[str, ...], update_debater: bool = True) -> type[OutputModel]:
    """The tracker's answer for a window of consecutive stages (:mod:`adjudicator.workflow.windows`):
    ``stages`` holds one required key per stage id (in stage order, ``stages`` = ``((stage_id,
    evaluated sides, contributions asked), ...)``), each a :func:`stage_answer` for that stage's evaluated sides
    (its clash updates without ``debater`` when ``update_debater`` is False, as in :func:`stage_answer`)."""
    fields: dict[str, Any] = {
        f"key_{i}": (stage_answer(sides, labels, None, shares, update_debater), Field(alias=sid)) for i, (sid, sides, shares) in enumerate(stages)
    }
    return output_model("WindowAnswer", stages=create_model("WindowStages", __base__=OutputModel, **fields))


def window_schema(requests: Sequence[StageRequest]) -> dict[str, Any]:
    """JSON Schema of the tracker's answer for the window of ``requests`` (one per stage, in order;
    :func:`window_answer`)."""
    stages = tuple((r.stage.stage_id, tuple(r.stage.evaluated_sides()), asks_contributions(r.match, r.stage)) for r in requests)
    match = requests[0].match
    return response_schema(window_answer(stages, tuple(match.speaker_labels()), asks_update_debater(match)))


def stage_schema(request: StageRequest, one_rating: bool = False) -> dict[str, Any]:
    """JSON Schema of the tracker's answer for this stage (:func:`stage_answer`; ``one_rating``: the
    one schema of every stage, :func:`~adjudicator.judges.llm.variables.rates_one_side`)."""
    st = request.stage
    return response_schema(
        stage_answer(
            () if one_rating else tuple(st.evaluated_sides()),
            tuple(request.match.speaker_labels()),
            answer_spec(request.rubric, request.evidence),
            asks_contributions(request.match, st),
            asks_update_debater(request.match),
            one_rating,
        )
    )


def judge_schema(request: JudgeRequest) -> dict[str, Any]:
    """JSON Schema of a judge's ballot (:func:`ballot_answer`) over the units of :func:`judge_units`;
    the same for the three judges of a match (issue 39: a provider's cached prefix starts with the
    schema): where the panel gives feedback (:func:`~adjudicator.verdict.feedback.asks_feedback`)
    every judge's has a nullable ``feedback``, which only the chair writes
    (:func:`~adjudicator.verdict.feedback.writes_feedback`; the wings answer null)."""
    units = judge_units(request)
    sides = tuple(dict.fromkeys(side for _, side in request.match.scored_units()))
    keys = tuple(unit_key(sid, side) for sid, side in units)
    return response_schema(ballot_answer(keys, sides, tuple(request.match.debater_labels()), answer_spec(request.rubric), asks_feedback(request)))
