"""The LLM judge's answers as pydantic models: the tracker's stage analysis and a judge's ballot.

Each request's answer model is built for that request's shape (:func:`stage_answer`, :func:`ballot_answer`,
one class per distinct shape):
the tracker's ``side`` is one of the stage's evaluated sides and a contribution's ``debater`` one of
the debater labels; a judge's ``stage_id`` is one of its units' stages and ``best_debater_votes`` has
one integer per debater label. :func:`stage_schema` and :func:`judge_schema` are the models'
response schemas (:func:`~adjudicator.model.schema.response_schema`), sent for structured output.
Reasoning fields come before the ratings, so a model writes its reasons first.

The parser does not depend on these models: :mod:`adjudicator.judges.llm.recovery` validates what
comes back, more leniently (level aliases, a mapping instead of a list, field-level recovery).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from adjudicator.battlefield import ClashEventKind
from adjudicator.formats import Side
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.dimensions import answer_spec, ballot_answer_fields, side_answer_fields
from adjudicator.judges.llm.variables import judge_units
from adjudicator.model.schema import OutputModel, list_of, one_of, output_model, response_schema, votes_model
from adjudicator.rubric import Advancement, BattlefieldJudgement, TaskPerformance


class ClashUpdateAnswer(OutputModel):
    """What the tracker says one stage did to one clash (read into a
    :class:`~adjudicator.battlefield.ClashUpdate`); positions are "" unless they change."""

    clash_id: str
    title: str
    side: Side
    kind: ClashEventKind
    note: str
    debater: str | None
    affirmative_position: str
    negative_position: str


@lru_cache(maxsize=256)
def stage_answer(sides: tuple[str, ...], labels: tuple[str, ...], dims: tuple[tuple[str, ...], bool, bool] | None = None) -> type[OutputModel]:
    """The tracker's answer for a stage whose evaluated sides are ``sides``: its reasoning, one
    rating per side (rationale, the three rubric levels, an optional score override 1-10 and the
    debaters' shares of the work, ``debater`` one of ``labels``; under a dimensional rubric, ``dims``
    from :func:`adjudicator.judges.llm.dimensions.answer_spec`, also its dimension scores, arguments
    and claims), the clash updates and a summary."""
    contribution = output_model("Contribution", debater=one_of(labels), share=float)
    side = output_model(
        "SideAnswer",
        side=one_of(sides),
        rationale=str,
        task_performance=TaskPerformance,
        battlefield_judgement=BattlefieldJudgement,
        advancement=Advancement,
        score=int | None,
        contributions=list_of(contribution),
        **side_answer_fields(dims),
    )
    return output_model("StageAnswer", reasoning=str, sides=list_of(side), clash_updates=list[ClashUpdateAnswer], summary=str)


@lru_cache(maxsize=256)
def ballot_answer(stage_ids: tuple[str, ...], labels: tuple[str, ...], dims: tuple[tuple[str, ...], bool, bool] | None = None) -> type[OutputModel]:
    """A judge's ballot: its reasoning, a score per unit (``stage_id`` one of ``stage_ids``), the
    winner, p, and the best-debater votes as an object with one integer per label of ``labels``;
    under a dimensional rubric (``dims``) also a vote per subjective dimension."""
    score = output_model("StageScoreAnswer", stage_id=one_of(stage_ids), side=Side, score=int)
    return output_model(
        "BallotAnswer",
        reasoning=str,
        stage_scores=list_of(score),
        winner=Side,
        p=float,
        best_debater_votes=votes_model(labels, "BestDebaterVotes"),
        **ballot_answer_fields(dims),
    )


def stage_schema(request: StageRequest) -> dict[str, Any]:
    """JSON Schema of the tracker's answer for this stage (:func:`stage_answer`)."""
    return response_schema(stage_answer(tuple(request.stage.evaluated_sides()), tuple(request.match.speaker_labels()), answer_spec(request.rubric, request.evidence)))


def judge_schema(request: JudgeRequest) -> dict[str, Any]:
    """JSON Schema of a judge's ballot (:func:`ballot_answer`) over the units of :func:`judge_units`."""
    stage_ids = tuple(dict.fromkeys(sid for sid, _ in judge_units(request)))
    return response_schema(ballot_answer(stage_ids, tuple(request.match.debater_labels()), answer_spec(request.rubric)))
