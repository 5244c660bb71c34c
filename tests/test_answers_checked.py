"""Issue 25, items 1 and 2 (the node's part): no prompt shows a value a model could hand back, a
description handed back is not text, a repair answer is validated like a first answer, a resend after
a truncated reply is not the same request, and the records carry what the review reads (the share of
fields repaired, closed choices equal to an example that a prompt still shows). Over the loopback
server with litellm."""

from __future__ import annotations

import json
from functools import partial

import pytest
from fake_openai import FakeOpenAI, Reply, fake_openai  # noqa: F401 (fixture)
from llm_helpers import ccdb_2v2_match, feedback_for, judge_request_over, loopback_backend, online_match, schema_responder, tracker_json

from adjudicator.api import adjudicate, adjudicate_single_call
from adjudicator.config import ModelConfig
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.model.attempts import TRUNCATION_PENALTY, run_attempts
from adjudicator.model.cache import ResponseCache
from adjudicator.model.chat import ChatRequest
from adjudicator.model.examples import copied_choices, example_choices
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import parse_output
from adjudicator.model.schema import field_share

VIEW = online_match().view()


def backend_for(server: FakeOpenAI, cache: ResponseCache | None = None) -> LLMBackend:
    return loopback_backend(server, cache)


def stage_request(index: int = 0) -> StageRequest:
    return StageRequest(match=VIEW, stage=VIEW.stages[index], index=index, previous=list(VIEW.stages[:index]))


def judge_request() -> JudgeRequest:
    return judge_request_over(VIEW)


def ballot(**fields) -> str:
    answer = {
        "reasoning": "the affirmative won the sleep clash in s3",
        "stage_scores": {"s1|affirmative": 6, "s2|negative": 5, "s3|affirmative": 7, "s4|negative": 5},
        "winner": "affirmative",
        "p": 0.66,
        "best_debater_votes": ["Affirmative Speaker 1", "Affirmative Speaker 1", "Negative Speaker 1"],
        "feedback": feedback_for(["Affirmative Speaker 1", "Negative Speaker 1"]),
    }
    return json.dumps({**answer, **fields})


@pytest.mark.parametrize("make_match", [online_match, ccdb_2v2_match], ids=["en", "zh"])
@pytest.mark.parametrize("arm", ["agentic", "single-call"])
def test_no_request_of_either_arm_shows_a_closed_value(fake_openai, make_match, arm):
    fake_openai.respond_with(schema_responder)
    config = ModelConfig(model="openai/test-model", api_base=fake_openai.base_url, json_mode="object", no_cache=True)
    (adjudicate if arm == "agentic" else adjudicate_single_call)(make_match(), config)
    assert fake_openai.requests
    for body in fake_openai.requests:  # every example describes its fields in words: nothing to hand back
        assert example_choices(body["messages"]) == {}


def test_a_description_handed_back_is_not_a_reasoning(fake_openai):
    fake_openai.push(ballot(reasoning="<your reasons for the decision>"), '{"reasoning": "the affirmative answered the cost clash in s3"}')
    result = backend_for(fake_openai).judge(judge_request())
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "failed"), ("repair", "strict")]
    assert "reasoning: the example answer's placeholder text" in result.calls[0].error
    assert result.value.reasoning == "the affirmative answered the cost clash in s3"


def test_a_repair_that_leaves_the_reasoning_empty_is_refused_again(fake_openai):
    # the repair answer is read like a first answer: an empty string is no reasoning (the first answer
    # handed back a description; a repair that repeated it would end the node, tests/test_repeated_repair.py)
    fake_openai.push(ballot(reasoning="<your reasons for the decision>"), '{"reasoning": ""}', '{"reasoning": "the negative dropped the cost clash after s2"}')
    result = backend_for(fake_openai).judge(judge_request())
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "failed"), ("repair", "failed"), ("repair", "strict")]
    assert "reasoning: the example answer's placeholder text" in result.calls[0].error and "reasoning: empty" in result.calls[1].error
    assert [c.repair_fields for c in result.calls] == [[], ["reasoning"], ["reasoning"]]
    assert result.value.reasoning == "the negative dropped the cost clash after s2"


def test_a_clash_update_without_an_id_is_asked_for_again_not_dropped(fake_openai):
    answer = json.loads(tracker_json(["affirmative"]))
    answer["clash_updates"][0]["clash_id"] = ""
    fixed = {"clash_updates": [dict(answer["clash_updates"][0], clash_id="c1")]}
    fake_openai.push(json.dumps(answer), json.dumps(fixed))
    result = backend_for(fake_openai).analyse_stage(stage_request(0))
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "failed"), ("repair", "strict")]
    assert "clash_updates.0.clash_id: missing" in result.calls[0].error
    assert result.calls[1].repair_fields == ["clash_updates"]
    assert [(u.clash_id, u.kind) for u in result.value.clash_updates] == [("c1", "advanced")]
    # the repair asked for one of the answer's fields: clash_updates is one leaf of 7 (the affirmative's
    # rationale, three levels and score, clash_updates, summary; no top-level reasoning, issue 39's cut; no
    # contributions, which are asked only of a side with more than one debater in the stage, issue 32's
    # cut 92ccfa0); 3 decimals
    assert result.calls[1].repair_share == pytest.approx(1 / 7, abs=5e-4)


def test_a_resend_after_a_truncated_reply_is_not_the_same_request(fake_openai):
    full = tracker_json(["affirmative"])
    fake_openai.push(Reply(content=full[: len(full) // 2], finish_reason="length"), full)
    result = backend_for(fake_openai).analyse_stage(stage_request(0))
    assert result.failure is None
    first, second = fake_openai.requests
    assert "frequency_penalty" not in first and second["frequency_penalty"] == TRUNCATION_PENALTY == 0.3
    assert (first["max_tokens"], second["max_tokens"]) == (1280, 2560)


def test_a_closed_choice_equal_to_a_shown_example_is_recorded(fake_openai):
    # a prompt of one's own that still shows values: an answer repeating them is recorded, not refused
    system = 'Answer like this: {"reasoning": "<why>", "winner": "affirmative", "p": 0.64}'
    schema = {
        "type": "object",
        "properties": {"reasoning": {"type": "string"}, "winner": {"type": "string", "enum": ["affirmative", "negative"]}, "p": {"type": "number", "minimum": 0, "maximum": 1}},
        "required": ["reasoning", "winner", "p"],
    }
    request = ChatRequest(messages=({"role": "system", "content": system}, {"role": "user", "content": "judge"}), node="judge", key="judge-1", schema=schema)
    fake_openai.push('{"reasoning": "the negative never answered", "winner": "negative", "p": 0.64}')
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test-0123456789", json_mode="object")
    result = run_attempts(client, request, partial(parse_output, validate=dict))
    assert result.value is not None and result.calls[0].example_choices == ["p"]
    assert example_choices(request.messages) == {("winner",): "affirmative", ("p",): 0.64}
    assert copied_choices({"winner": "affirmative", "p": 0.7}, schema, example_choices(request.messages)) == ["winner"]


def test_field_share_counts_leaves():
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}, "z": {"type": "integer"}}}}}
    assert field_share(schema, [("b",)]) == pytest.approx(3 / 4)
    assert field_share(schema, [("b", "x"), ("a",)]) == pytest.approx(2 / 4)
    assert field_share(schema, [("nope",)]) == 0.0
    assert field_share(schema, []) == 1.0
