"""The repair turn: an answer that decodes but misses or botches fields is not resent whole; the model
sees its answer and the validator's message and is asked for those fields only (the response schema
cut down to them), and the patch is merged into the answer. Over the loopback server with litellm."""

from __future__ import annotations

import json
from functools import partial

import pytest
from fake_openai import FakeOpenAI, fake_openai  # noqa: F401 (fixture)
from llm_helpers import ccdb_2v2_match, feedback_for, online_match, tracker_json

from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.llm.recovery import read_stage_analysis
from adjudicator.model.cache import ResponseCache
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import parse_output
from adjudicator.model.prompts import PromptStore
from adjudicator.model.repair import merge
from adjudicator.model.schema import response_schema, sub_schema
from adjudicator.single_call.outputs import StageScoreAnswer

VIEW = online_match().view()
UNITS = ["s1|affirmative", "s2|negative", "s3|affirmative", "s4|negative"]


def backend_for(server: FakeOpenAI, cache=None) -> LLMBackend:
    client = LLMClient("openai/test-model", api_base=server.base_url, api_key="sk-test-0123456789", json_mode="object", cache=cache)
    return LLMBackend(client, PromptStore())


def judge_request() -> JudgeRequest:
    analyses = [
        parse_output(tracker_json(st.evaluated_sides()), validate=partial(read_stage_analysis, request=StageRequest(match=VIEW, stage=st, index=i))).value
        for i, st in enumerate(VIEW.stages)
    ]
    return JudgeRequest(judge_id="judge-2", perspective="battlefield", match=VIEW, clashes={}, analyses=analyses)


def ballot(scores: dict[str, int], p=0.34, votes=None) -> str:
    votes = votes if votes is not None else ["Negative Speaker 1", "Negative Speaker 1", "Affirmative Speaker 1"]
    feedback = feedback_for(["Affirmative Speaker 1", "Negative Speaker 1"])
    return json.dumps({"reasoning": "the negative held the feedback clash", "stage_scores": scores, "winner": "negative", "p": p, "best_debater_votes": votes, "feedback": feedback})


FULL = {"s1|affirmative": 6, "s2|negative": 7, "s3|affirmative": 5, "s4|negative": 8}
MISSING_S3 = {k: v for k, v in FULL.items() if k != "s3|affirmative"}


def schema_of(body: dict) -> dict:
    return body["response_format"]["schema"]


def test_a_missing_unit_is_asked_for_alone_and_merged(fake_openai):
    fake_openai.push(ballot(MISSING_S3), '{"stage_scores": {"s3|affirmative": 4}}')
    result = backend_for(fake_openai).judge(judge_request())
    assert result.failure is None
    assert {f"{s.stage_id}|{s.side}": s.score for s in result.value.stage_scores} == {**MISSING_S3, "s3|affirmative": 4}
    assert result.value.p == 0.34 and result.value.best_debater_votes == {"Negative Speaker 1": 2, "Affirmative Speaker 1": 1}
    assert [(c.attempt, c.turn, c.parse) for c in result.calls] == [(1, "answer", "failed"), (2, "repair", "strict")]
    assert "missing s3|affirmative" in result.calls[0].error
    first, repair = fake_openai.requests
    # the repair turn: the original conversation, the model's answer, then one short request
    assert repair["messages"][:2] == first["messages"]
    assert repair["messages"][2] == {"role": "assistant", "content": ballot(MISSING_S3)}
    ask = repair["messages"][3]["content"]
    assert "stage_scores: missing s3|affirmative" in ask and "- stage_scores.s3|affirmative: an integer from 1 to 10" in ask
    assert '{"stage_scores": {"s3|affirmative": "<an integer from 1 to 10>"}}' in ask  # the shape of the reply: a description, never a value
    # the response schema asks for that unit only, so a constraining server can return nothing else
    assert schema_of(repair) == {
        "type": "object",
        "properties": {
            "stage_scores": {
                "type": "object",
                "properties": {"s3|affirmative": {"type": "integer", "minimum": 1, "maximum": 10}},
                "required": ["s3|affirmative"],
                "additionalProperties": False,
            }
        },
        "required": ["stage_scores"],
        "additionalProperties": False,
    }
    assert len(json.dumps(schema_of(repair))) < len(json.dumps(schema_of(first))) / 3


def test_p_out_of_range_and_wrong_vote_total_are_asked_for_together(fake_openai):
    # llama.cpp's grammar does not enforce number ranges: the 0.5B model answered p = 4 (now read as
    # 0.4 on a 1-10 scale, issue 38); -4 is on no scale, so it is asked for again
    fake_openai.push(ballot(FULL, p=-4, votes=["Negative Speaker 1"]), '{"p": 0.41, "best_debater_votes": ["Negative Speaker 1", "Negative Speaker 1", "Negative Speaker 1"]}')
    result = backend_for(fake_openai).judge(judge_request())
    assert result.value.p == 0.41 and result.value.best_debater_votes == {"Negative Speaker 1": 3}
    assert {f"{s.stage_id}|{s.side}": s.score for s in result.value.stage_scores} == FULL  # kept from the answer
    ask = fake_openai.requests[1]["messages"][3]["content"]
    assert "p: -4.0 is outside [0, 1]" in ask and "the counts sum to 1, not 3" in ask
    # p is said as the validator's rule, the stated winner's side of 0.5 (the schema's range is 0-1)
    assert "- p: a number from 0.0 to 0.49 (so far you gave -4)" in ask and "- best_debater_votes: a list of exactly 3 entries" in ask
    assert list(schema_of(fake_openai.requests[1])["properties"]) == ["p", "best_debater_votes"]


def test_a_repair_that_is_still_incomplete_is_repaired_again_on_the_merged_answer(fake_openai):
    only_s1 = {"s1|affirmative": 6}
    fake_openai.push(ballot(only_s1), '{"stage_scores": {"s2|negative": 7, "s3|affirmative": 5}}', '{"stage_scores": {"s4|negative": 8}}')
    result = backend_for(fake_openai).judge(judge_request())
    assert {f"{s.stage_id}|{s.side}": s.score for s in result.value.stage_scores} == FULL
    assert [c.turn for c in result.calls] == ["answer", "repair", "repair"]
    third = fake_openai.requests[2]
    assert list(schema_of(third)["properties"]["stage_scores"]["properties"]) == ["s4|negative"]
    shown = json.loads(third["messages"][2]["content"])  # the merged answer so far
    assert shown["stage_scores"] == {"s1|affirmative": 6, "s2|negative": 7, "s3|affirmative": 5}


def test_a_repair_reply_with_nothing_decodable_falls_back_to_resending_the_request(fake_openai):
    fake_openai.push(ballot(MISSING_S3), "Sorry, I cannot do that.", ballot(FULL))
    result = backend_for(fake_openai).judge(judge_request())
    assert result.value is not None and [c.turn for c in result.calls] == ["answer", "repair", "answer"]
    assert fake_openai.requests[2] == fake_openai.requests[0]


def test_a_reply_with_no_object_is_resent_not_repaired(fake_openai):
    fake_openai.push("I think the negative won.", ballot(FULL))
    result = backend_for(fake_openai).judge(judge_request())
    assert [c.turn for c in result.calls] == ["answer", "answer"] and fake_openai.requests[1] == fake_openai.requests[0]


def test_a_repaired_node_is_replayed_from_the_cache_and_counted_in_the_provenance(fake_openai, tmp_path):
    from adjudicator.api import adjudicate_with_context
    from adjudicator.workflow.context import AdjudicationContext

    cache = ResponseCache(tmp_path / "cache")
    incomplete_once = {"judge-1": True}

    def responder(body):
        props = schema_of(body)["properties"]
        if "sides" in props:
            sides = props["sides"]["required"]
            return tracker_json(sides)
        if "stage_scores" in props and "reasoning" in props:
            keys = props["stage_scores"]["required"]
            scores = {k: 6 for k in keys}
            if "judge-1" in body["messages"][1]["content"] and incomplete_once["judge-1"]:
                scores.pop(keys[-1])
            return ballot(scores)
        return json.dumps({"stage_scores": {k: 5 for k in props["stage_scores"]["required"]}})

    fake_openai.respond_with(responder)
    verdict = adjudicate_with_context(online_match(), AdjudicationContext.single(backend_for(fake_openai, cache)))
    sent = fake_openai.count
    assert verdict.provenance.repaired == 1
    judge1 = [c for c in verdict.calls if c.key == "judge-1"]
    assert [c.turn for c in judge1] == ["answer", "repair"]
    again = adjudicate_with_context(online_match(), AdjudicationContext.single(backend_for(fake_openai, cache)))
    assert fake_openai.count == sent  # served from the cache, repair turn included
    assert again.model_dump_json() == verdict.model_dump_json()


def test_a_tracker_missing_a_side_is_asked_for_that_side(fake_openai):
    match = ccdb_2v2_match().view()  # stage 2 is a questioning stage: both sides are rated
    request = StageRequest(match=match, stage=match.stages[1], index=1, previous=[match.stages[0]])
    both = json.loads(tracker_json(["affirmative", "negative"]))
    aff_only = {**both, "sides": {"affirmative": {k: v for k, v in both["sides"][0].items() if k != "side"}}}
    neg = {k: v for k, v in both["sides"][1].items() if k != "side"}
    fake_openai.push(json.dumps(aff_only), json.dumps({"sides": {"negative": neg}}))
    result = backend_for(fake_openai).analyse_stage(request)
    assert [s.side for s in result.value.sides] == ["affirmative", "negative"]
    assert list(schema_of(fake_openai.requests[1])["properties"]["sides"]["properties"]) == ["negative"]
    assert "sides: no analysis for the negative" in fake_openai.requests[1]["messages"][3]["content"]  # in Chinese around it


def test_the_single_call_arm_keeps_the_protocols_resend(fake_openai):
    from adjudicator.single_call.run import run_single_call

    def responder(body):
        props = schema_of(body)["properties"]
        if "score" in props:
            return '{"basis": "x", "score": 11}' if fake_openai.count == 2 else '{"basis": "x", "score": 6}'
        if "votes" in props:
            return json.dumps({"basis": "x", "votes": ["Negative Speaker 1"] * 9})
        return '{"basis": "x", "p": 0.4}'

    fake_openai.respond_with(responder)
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test-0123456789", json_mode="object")
    verdict = run_single_call(VIEW, client, concurrency=1)
    assert all(c.turn == "answer" for c in verdict.calls)
    retried = [c for c in verdict.calls if c.attempt == 2]
    assert len(retried) == 1 and fake_openai.requests[2]["messages"] == fake_openai.requests[1]["messages"]


# ---------------------------------------------------------------------------------------------
# The pieces


def test_merge_sets_the_fields_asked_for_and_reads_a_dropped_wrapper():
    base = {"p": 4, "stage_scores": {"a": 1}, "reasoning": "r"}
    assert merge(base, {"p": 0.4, "reasoning": "new"}, [("p",)]) == {"p": 0.4, "stage_scores": {"a": 1}, "reasoning": "r"}
    assert merge(base, {"b": 2}, [("stage_scores", "b")]) == {"p": 4, "stage_scores": {"a": 1, "b": 2}, "reasoning": "r"}
    assert merge(base, {"stage_scores": {"b": 3}}, [("stage_scores", "b"), ("p",)]) == {"p": 4, "stage_scores": {"a": 1, "b": 3}, "reasoning": "r"}
    assert merge(base, {"reasoning": "again", "p": 0.6}, []) == {"p": 0.6, "stage_scores": {"a": 1}, "reasoning": "again"}
    assert base == {"p": 4, "stage_scores": {"a": 1}, "reasoning": "r"}  # unchanged


def test_sub_schema_keeps_only_the_paths_asked_for():
    schema = response_schema(StageScoreAnswer)
    assert sub_schema(schema, [("score",)]) == {"type": "object", "properties": {"score": {"type": "integer", "minimum": 1, "maximum": 10}}, "required": ["score"], "additionalProperties": False}
    assert sub_schema(schema, []) == schema
    # a path the schema does not declare stops at what it knows: nothing here
    assert sub_schema(schema, [("nope", "x")])["properties"] == {}


@pytest.mark.parametrize("lang, needle", [("en", "Your answer could not be accepted"), ("zh", "你的回答未能通过检查")])
def test_the_repair_turn_speaks_the_match_language(lang, needle):
    from adjudicator.model.chat import ChatRequest
    from adjudicator.model.parsing import ParseResult
    from adjudicator.model.repair import Repairer

    req = ChatRequest(messages=({"role": "user", "content": "q"},), node="task2", key="s1|affirmative", schema=response_schema(StageScoreAnswer))
    turn = Repairer(PromptStore(), lang).turn(req, '{"score": 12}', ParseResult(None, "failed", "score: 12 is outside 1-10", decoded={"score": 12}, invalid_fields=(("score",),)))
    assert turn is not None and needle in turn.request.messages[-1]["content"] and "score: 12 is outside 1-10" in turn.request.messages[-1]["content"]
    assert turn.request.node == "task2" and turn.request.key == "s1|affirmative" and turn.fields == (("score",),)
