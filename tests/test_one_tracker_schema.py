"""One tracker response schema per match (issue 39, layouts a cache can serve).

A provider's cached prefix starts with the response schema (tests/prompt_cache.py), and the tracker's
stages are sent one after another. Its schema had one required key per evaluated side, so on a 1v1,
where the evaluated side alternates (affirmative, negative, ...), stage k's schema differed from stage
k-1's a few tokens in and stage k read the cache only from stage k-2. Now ``sides`` has every side of
the match as a key, each the side's answer or null (outputs.tracker_sides); the prompt asks for an
object for each side under "What to evaluate" and null for the others. BP's tracker and a window keep
one key per evaluated side.
"""

from __future__ import annotations

import json

import pytest
from bp_helpers import bp_data
from fake_openai import (
    FakeOpenAI,
    fake_openai,  # noqa: F401 (fixture)
)
from llm_helpers import ccdb_2v2_match, loopback_backend, online_match, request_schema, schema_responder, tracker_json

from adjudicator.input.match import Match
from adjudicator.judges.base import StageRequest

VIEW = online_match().view()  # four stages, one side each: affirmative, negative, affirmative, negative
NOWHERE = type("S", (), {"base_url": "http://127.0.0.1:9/v1"})()


def request(view, i: int) -> StageRequest:
    return StageRequest(match=view, stage=view.stages[i], index=i, previous=list(view.stages[:i]))


def test_every_stage_of_a_1v1_is_sent_one_tracker_schema():
    backend = loopback_backend(NOWHERE)
    chats = [backend.stage_prompt(request(VIEW, i)) for i in range(len(VIEW.stages))]
    assert [st.evaluated_sides() for st in VIEW.stages] == [["affirmative"], ["negative"], ["affirmative"], ["negative"]]
    assert all(c.schema == chats[0].schema for c in chats)  # the old code: affirmative / negative alternated
    sides = chats[0].schema["properties"]["sides"]
    assert sides["required"] == ["affirmative", "negative"]
    assert [sides["properties"][s]["type"] for s in sides["required"]] == [["object", "null"], ["object", "null"]]
    # a stage that evaluates both sides (the CCDB cross-examination s02) is sent the same schema as a one-side stage
    ccdb = ccdb_2v2_match().view()
    assert ccdb.stages[1].evaluated_sides() == ["affirmative", "negative"]
    assert backend.stage_prompt(request(ccdb, 1)).schema == backend.stage_prompt(request(ccdb, 0)).schema
    # BP keeps one required key per evaluated side, not nullable
    bp = Match.model_validate(bp_data()).view()
    bp_sides = backend.stage_prompt(request(bp, 0)).schema["properties"]["sides"]
    assert bp_sides["required"] == bp.stages[0].evaluated_sides() and all(v["type"] == "object" for v in bp_sides["properties"].values())
    # a window too
    window = backend.window_prompt([request(VIEW, 0), request(VIEW, 1)]).schema["properties"]["stages"]["properties"]
    assert [list(w["properties"]["sides"]["properties"]) for w in window.values()] == [["affirmative"], ["negative"]]


@pytest.mark.parametrize("view, null_rule", [
    (VIEW, 'Analyse only the sides listed under "What to evaluate" ("negative"): "sides" has one key per side of the debate ("affirmative", "negative"), an object for each side listed and null for any other.'),
    (ccdb_2v2_match().view(), '只分析"评价对象"所列的各方（"affirmative"，"negative"）："sides" 为本场辩论的每一方（"affirmative"，"negative"）各给出一个键，所列各方的值为一个对象，其他方的值为 null。'),
], ids=["en", "zh"])  # fmt: skip
def test_the_prompt_asks_for_null_for_a_side_not_evaluated(view, null_rule):
    user = loopback_backend(NOWHERE).stage_prompt(request(view, 1)).messages[1]["content"]
    assert null_rule in user  # the old code: "exactly one key per side listed"
    # the window's prompt keeps its own line (one key per side listed)
    window = loopback_backend(NOWHERE).window_prompt([request(VIEW, 0), request(VIEW, 1)]).messages[1]["content"]
    assert "null" not in window and 'Give its "sides" exactly one key for each side listed here ("negative")' in window


def test_stage_2_reads_stage_1s_cached_prefix_under_openais_rule():
    """Sent after stage 1 was answered, stage 2 shares the schema, the system message and the match header
    with it: at least 1,024 tokens, read under OpenAI's rule (1,024, then 128-token steps); the old code's
    stage 2 (schema keyed "negative" where stage 1's was keyed "affirmative") read nothing."""
    server = FakeOpenAI(prompt_cache="openai")
    try:
        server.respond_with(schema_responder)
        backend = loopback_backend(server)
        first = backend.analyse_stage(request(VIEW, 0))
        second = backend.analyse_stage(request(VIEW, 1))
        billed = server.prompt_cache.billed
    finally:
        server.close()
    assert [c.turn for c in first.calls] == ["answer"] and [c.turn for c in second.calls] == ["answer"]
    assert billed[0].cached_tokens == 0 and billed[1].cached_tokens >= 1024
    assert second.value is not None and [s.side for s in second.value.sides] == ["negative"]


def test_the_unevaluated_sides_null_stands_at_the_first_answer(fake_openai):  # noqa: F811
    one = json.loads(tracker_json(["negative"]))
    fake_openai.push(json.dumps({**one, "sides": {"affirmative": None, "negative": {k: v for k, v in one["sides"][0].items() if k != "side"}}}))
    result = loopback_backend(fake_openai).analyse_stage(request(VIEW, 1))
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "strict")]
    assert result.value is not None and [s.side for s in result.value.sides] == ["negative"]
    sent = request_schema(fake_openai.requests[0])["properties"]["sides"]["properties"]
    assert sent["affirmative"]["type"] == ["object", "null"]  # the old code's schema had no affirmative key


def test_a_null_for_an_evaluated_side_gets_a_repair_turn_asking_for_that_side(fake_openai):  # noqa: F811
    one = json.loads(tracker_json(["negative"]))
    fake_openai.push(json.dumps({**one, "sides": {"affirmative": None, "negative": None}}))
    fake_openai.respond_with(schema_responder)
    result = loopback_backend(fake_openai).analyse_stage(request(VIEW, 1))
    assert [c.turn for c in result.calls] == ["answer", "repair"]
    assert result.value is not None and [s.side for s in result.value.sides] == ["negative"] and result.value.sides[0].rationale == "negative did its job"
    first, repair = (request_schema(r)["properties"]["sides"] for r in fake_openai.requests)
    assert first["properties"]["negative"]["type"] == ["object", "null"]  # the old code: "object", keyed by the negative only
    # the repair turn asks for the negative alone, as an object: a null would be refused again
    assert repair["required"] == ["negative"] and repair["properties"]["negative"]["type"] == "object"
    asked = next(line for line in fake_openai.requests[1]["messages"][-1]["content"].splitlines() if line.startswith("- sides.negative:"))
    assert asked.startswith("- sides.negative: an object with the keys rationale,") and "or null" not in asked
