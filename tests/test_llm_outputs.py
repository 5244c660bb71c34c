"""The response schemas are the output models' ``model_json_schema()``, reduced to the plain subset
(adjudicator/model/schema.py), exact (each unit a required key, integers and p with their ranges, vote
totals as the length of a list of labels), and equal -- key order included -- to the schemas written
out by hand here."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llm_helpers import ccdb_2v2_match

from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.llm.outputs import judge_schema, stage_schema
from adjudicator.model.cache import NullCache
from adjudicator.model.llm import LLMClient
from adjudicator.model.schema import OutputModel, output_model, response_schema
from adjudicator.verdict.battlefield import StageAnalysis

LABELS = ["Affirmative Speaker 1", "Affirmative Speaker 2", "Negative Speaker 1", "Negative Speaker 2"]
SIDES = ["affirmative", "negative"]
TASK = ["perfect", "well", "approximate", "not_completed"]
BATTLEFIELD = ["correct_important", "correct_secondary", "largely_irrelevant", "incorrect"]
ADVANCEMENT = ["decisive", "major", "substantial", "effective", "attempt", "none", "counterproductive"]
KINDS = ["opened", "advanced", "conceded", "defended", "contested"]


def obj(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def string(enum: list[str] | None = None) -> dict[str, Any]:
    return {"type": "string"} if enum is None else {"type": "string", "enum": enum}


def integer(lo: int, hi: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": lo, "maximum": hi}


def labels_list(n: int) -> dict[str, Any]:
    return {"type": "array", "items": string(LABELS), "minItems": n, "maxItems": n}


def expected_stage_schema(sides: list[str], contributions: bool = False) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "rationale": string(),
        "task_performance": string(TASK),
        "battlefield_judgement": string(BATTLEFIELD),
        "advancement": string(ADVANCEMENT),
        "score": {"type": ["integer", "null"], "minimum": 1, "maximum": 10},
    }
    if contributions:  # asked only when a side has more than one debater in the stage (issue 32)
        fields["contributions"] = {"type": "array", "items": obj({"debater": string(LABELS), "share": {"type": "number", "minimum": 0.0, "maximum": 1.0}})}
    side_item = obj(fields)
    update_item = obj(
        {
            "clash_id": string(),
            "title": string(),
            "side": string(SIDES),
            "kind": string(KINDS),
            "note": string(),
            "debater": {"type": ["string", "null"]},
            "affirmative_position": string(),
            "negative_position": string(),
        }
    )
    return obj({"sides": obj({side: side_item for side in sides}), "clash_updates": {"type": "array", "items": update_item}, "summary": string()})


def expected_judge_schema(unit_keys: list[str], stage_ids: list[str], clash_ids: list[str]) -> dict[str, Any]:
    # the coach's feedback (issue 25): one key per debater, three points, each on a stage of the match
    # and a clash of the ledger, or none
    # (issue 32: plain strings, the reader checks them against the match's stages and the ledger)
    point = obj({"text": string(), "stage_id": string(), "clash_id": string()})
    return obj(
        {
            "reasoning": string(),
            "stage_scores": obj({key: integer(1, 10) for key in unit_keys}),
            "winner": string(SIDES),
            "p": {"type": "number", "minimum": 0.0, "maximum": 1.0},
            "best_debater_votes": labels_list(3),
            # nullable (issue 39): the three judges share one schema, the wings answer null
            "feedback": {**obj({label: obj({"worked": point, "missed": point, "work_on": point}) for label in LABELS}), "type": ["object", "null"]},
        }
    )


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Equal as JSON text with keys in their order (what the request sends)."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.mark.parametrize("index, sides", [(0, ["affirmative"]), (1, SIDES), (2, ["negative"])], ids=["one-side", "both-sides", "negative"])
def test_tracker_schema_is_the_model_schema_sent_before(index, sides):
    match = ccdb_2v2_match().view()
    request = StageRequest(match=match, stage=match.stages[index], index=index)
    assert same(stage_schema(request), expected_stage_schema(sides))
    chat = LLMBackend(LLMClient("openai/test-model", cache=NullCache())).stage_prompt(request)
    assert same(dict(chat.schema or {}), expected_stage_schema(sides)) and chat.schema_name == "stage_analysis"


def test_the_tracker_is_asked_for_contributions_only_where_a_side_has_two_debaters():
    match = ccdb_2v2_match().view()
    free = match.stages[9]  # s10, the free debate: one debater a side speaks in the fixture
    request = StageRequest(match=match, stage=free, index=9)
    assert same(stage_schema(request), expected_stage_schema(SIDES))
    backend = LLMBackend(LLMClient("openai/test-model", cache=NullCache()))
    assert '"contributions"' not in backend.stage_prompt(request).messages[1]["content"]
    # the affirmative's second debater joins in: now its work is shared, so the shares are asked for
    both = free.model_copy(update={"utterances": [*free.utterances, free.utterances[0].model_copy(update={"speaker": "Affirmative Speaker 2"})]})
    request = StageRequest(match=match, stage=both, index=9)
    assert same(stage_schema(request), expected_stage_schema(SIDES, contributions=True))
    assert '"contributions"' in backend.stage_prompt(request).messages[1]["content"]


def test_judge_schema_is_the_model_schema_sent_before():
    match = ccdb_2v2_match().view()
    analyses = [StageAnalysis(stage_id=sid, stage_index=i, sides=[]) for i, sid in enumerate(["s01", "s02", "s04"])]
    request = JudgeRequest(judge_id="judge-1", perspective="task", match=match, clashes={}, analyses=analyses)
    # s01 is a speech (the affirmative only), s02 and s04 score both sides
    keys = [f"{sid}|{side}" for sid, side in match.scored_units() if sid in ("s01", "s02", "s04")]
    assert keys == ["s01|affirmative", "s02|affirmative", "s02|negative", "s04|affirmative", "s04|negative"]
    stages = [s.stage_id for s in match.stages]
    assert same(judge_schema(request), expected_judge_schema(keys, stages, []))
    chat = LLMBackend(LLMClient("openai/test-model", cache=NullCache())).judge_prompt(request)
    assert same(dict(chat.schema or {}), expected_judge_schema(keys, stages, [])) and chat.schema_name == "ballot"
    # the budget grows by 240 tokens per debater whose feedback the judge writes: 1536 + 4 x 240
    assert chat.max_tokens == 2496
    # no analysed stage: an object with no keys (the judge sends no request then)
    empty = JudgeRequest(judge_id="judge-1", perspective="task", match=match, clashes={}, analyses=[])
    assert same(judge_schema(empty), expected_judge_schema([], stages, []))


def test_a_schema_outside_the_plain_subset_is_refused():
    class WithDefault(OutputModel):
        p: float = 0.5

    with pytest.raises(ValueError, match="unsupported"):
        response_schema(WithDefault)
    with pytest.raises(ValueError, match="unions"):
        response_schema(output_model("Union", x=int | output_model("Inner", q=int)))


def test_single_call_schemas_are_the_model_schemas_sent_before():
    from adjudicator.model.prompts import PromptStore
    from adjudicator.single_call.tasks import task_instances

    match = ccdb_2v2_match().view()
    schemas = {i.task: (i.request.schema_name, dict(i.request.schema or {})) for i in task_instances(match, PromptStore())}
    assert schemas["task1"][0] == "winner_tendency" and same(schemas["task1"][1], obj({"basis": string(), "p": {"type": "number", "minimum": 0.0, "maximum": 1.0}}))
    assert schemas["task2"][0] == "stage_score" and same(schemas["task2"][1], obj({"basis": string(), "score": integer(1, 10)}))
    votes = obj({"basis": string(), "votes": labels_list(9)})
    assert schemas["task3"][0] == "best_debater_votes" and same(schemas["task3"][1], votes)
