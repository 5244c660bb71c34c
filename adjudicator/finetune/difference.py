"""Task 2's paired variant: the affirmative-minus-negative score difference on a stage scored for
both sides (protocol 001 s.03: "for Task 2, predicting the affirmative-minus-negative difference on
paired stages may also be explored").

The zero-shot protocol has no such task, so it has its own template
(``prompts/task2_stage_difference.<lang>.j2``), built from the same parts as Task 2's request
(:func:`adjudicator.single_call.tasks.task2_request`): the match header, the rubric, the stages
before the compared one as context, and the stage itself; the rule line names each side's role.
The answer is ``{"basis": str, "difference": number in [-9, 9]}``. Pure: builds requests, sends
nothing.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from adjudicator.input.match import MatchView
from adjudicator.input.rubric import rubric_rows
from adjudicator.model.chat import ChatRequest
from adjudicator.model.prompts import PromptStore, prompt_language
from adjudicator.model.schema import OutputModel, output_model, response_schema
from adjudicator.single_call.tasks import match_variables, stage_rule, transcript_stages

NODE = "task2_difference"
TEMPLATE = "task2_stage_difference"

#: The paired variant's answer: the reasons, then the affirmative's score minus the negative's.
StageDifferenceAnswer: type[OutputModel] = output_model("StageDifferenceAnswer", basis=str, difference=Annotated[float, Field(ge=-9.0, le=9.0)])


def template_name(language: str) -> str:
    """The template file, e.g. ``task2_stage_difference.zh.j2``."""
    return f"{TEMPLATE}.{language}.j2"


def paired_stages(view: MatchView) -> list[int]:
    """0-based indices of the stages scored for both sides (questioning, exchanges, free debate)."""
    return [i for i, st in enumerate(view.stages) if len(st.evaluated_sides()) == 2]


def difference_request(view: MatchView, stage_index: int, store: PromptStore) -> ChatRequest:
    """The paired variant's request for stage ``stage_index`` (0-based). Raises ValueError for a
    stage not scored for both sides."""
    stage = view.stages[stage_index]
    if len(stage.evaluated_sides()) != 2:
        raise ValueError(f"stage {stage.stage_id} is not scored for both sides")
    lang = prompt_language(view.format)
    variables: dict[str, Any] = {
        **match_variables(view),
        "rubric": rubric_rows(lang),
        "stage_number": stage_index + 1,
        "stage_name": stage.name,
        "stage_type": stage.type,
        "affirmative_rule": stage_rule(stage, "affirmative"),
        "negative_rule": stage_rule(stage, "negative"),
        "preceding": transcript_stages(view.stages[:stage_index]),
        "scored": transcript_stages([stage], first_number=stage_index + 1),
    }
    rendered = store.render(template_name(lang), variables)
    return ChatRequest(
        messages=rendered.messages(),
        node=NODE,
        key=stage.stage_id,
        template_hash=rendered.template_hash,
        schema=response_schema(StageDifferenceAnswer),
        schema_name="stage_difference",
    )
