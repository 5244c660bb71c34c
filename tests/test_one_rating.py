"""One tracker schema per match where every stage rates one side (issue 39).

A provider's cached prefix starts with the response schema. In the ``"sides"`` form a stage's schema
holds its evaluated side's key, so in an online 1v1 debate (affirmative, negative, affirmative, ...)
stage 2 shares no cached prefix with stage 1. Where the client asks for strict ``json_schema`` (a hosted
model), such a match's stages all get one schema, the rating under ``"rating"`` with the side implied by
the stage, so every stage after the first reads the instructions the first one wrote to the cache. A
local ``json_object`` server keeps the ``"sides"`` form (Qwen2.5-Coder 0.5B looped on the other in
session 7); the golden requests (``tests/golden/loopback``, JSON mode object) are unchanged.
"""

from __future__ import annotations

import json
from functools import partial

import pytest
from fake_openai import FakeOpenAI
from llm_helpers import ccdb_2v2_match, online_match, schema_responder

from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.llm.recovery import read_stage_analysis, recover_stage_analysis
from adjudicator.judges.llm.variables import rates_one_side, stage_variables
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import parse_output
from adjudicator.model.prompts import PromptStore
from adjudicator.model.validators import OutputInvalid

RATING = {"rationale": "It set the standard and answered the sleep point.", "task_performance": "well",
          "battlefield_judgement": "correct_important", "advancement": "effective", "score": None}  # fmt: skip
UPDATE = {"clash_id": "c1", "title": "sleep versus drills", "side": "negative", "kind": "contested", "note": "doubted the studies",
          "affirmative_position": "", "negative_position": ""}  # fmt: skip


def request_at(view, index: int) -> StageRequest:
    return StageRequest(match=view, stage=view.stages[index], index=index, previous=list(view.stages[:index]))


def backend(json_mode: str, api_base: str = "http://127.0.0.1:9/v1") -> LLMBackend:
    return LLMBackend(LLMClient("openai/gpt-4.1-mini", api_base=api_base, api_key="sk-test-0123456789", json_mode=json_mode), PromptStore())


@pytest.mark.parametrize("json_mode", ["auto", "schema"])
def test_a_hosted_schema_request_rates_the_one_side_under_one_schema(json_mode):
    view = online_match().view()
    chats = [backend(json_mode).stage_prompt(request_at(view, i)) for i in range(4)]
    assert all(c.schema == chats[0].schema for c in chats)
    assert set(chats[0].schema["properties"]) == {"rating", "clash_updates", "summary"}
    assert "sides" not in json.dumps(chats[0].schema)
    users = [c.messages[1]["content"] for c in chats]
    assert [u.count('"rating" rates the side listed under "What to evaluate" (the ') for u in users] == [1, 1, 1, 1]
    assert "(the affirmative)" in users[0] and "(the negative)" in users[1]
    assert '"rating" (object): the rating of the one side to evaluate' in chats[0].messages[0]["content"]
    assert '"sides" (object)' not in chats[0].messages[0]["content"]


def test_a_local_object_server_keeps_the_sides_form():
    view = online_match().view()
    chats = [backend("object").stage_prompt(request_at(view, i)) for i in range(2)]
    assert [c.schema["properties"]["sides"]["required"] for c in chats] == [["affirmative"], ["negative"]]
    assert chats[0].schema != chats[1].schema and '"sides" (object)' in chats[0].messages[0]["content"]


def test_a_match_with_a_stage_of_two_sides_keeps_the_sides_form():
    view = ccdb_2v2_match().view()
    assert not rates_one_side(request_at(view, 0))
    assert rates_one_side(request_at(online_match().view(), 0))
    chat = backend("schema").stage_prompt(request_at(view, 0))
    assert "sides" in chat.schema["properties"] and "rating" not in chat.schema["properties"]


def test_the_chinese_prompt_names_the_rated_side_in_chinese():
    view = online_match().view()
    rendered = PromptStore().render("track_stage.zh.j2", stage_variables(request_at(view, 1), one_rating=True))
    assert '"rating"（对象）：对唯一被评价的一方的评价' in rendered.system
    assert '"rating" 评价"评价对象"所列的那一方（反方）' in rendered.user and '"sides" 中为' not in rendered.user


def test_the_reader_takes_a_rating_and_names_its_fields_under_rating():
    request = request_at(online_match().view(), 1)  # the negative's first speech
    analysis = read_stage_analysis({"rating": RATING, "clash_updates": [UPDATE], "summary": "The sleep clash is contested."}, request, one_rating=True)
    (side,) = analysis.sides
    assert side.side == "negative" and side.task_performance == "well" and side.suggested_score == 7
    assert analysis.clash_updates[0].debater == "Negative Speaker 1"
    with pytest.raises(OutputInvalid) as bad:
        read_stage_analysis({"rating": {**RATING, "advancement": "huge"}, "clash_updates": [UPDATE], "summary": "s"}, request, one_rating=True)
    assert list(bad.value.fields) == [("rating",)] and "rating.advancement" in str(bad.value)
    with pytest.raises(OutputInvalid) as missing:
        read_stage_analysis({"clash_updates": [UPDATE], "summary": "s"}, request, one_rating=True)
    assert list(missing.value.fields) == [("rating",)] and "rating the negative" in str(missing.value)
    # a reply in the "sides" form to a one-schema request is read the same
    same = read_stage_analysis({"sides": {"negative": RATING}, "clash_updates": [UPDATE], "summary": "The sleep clash is contested."}, request, one_rating=True)
    assert same.sides == analysis.sides


def test_a_broken_rating_answer_is_recovered():
    request = request_at(online_match().view(), 1)
    text = ('Here is my analysis: {"rating": {"rationale": "It doubted the studies without a source", "task_performance": "approximate", '
            '"battlefield_judgement": "correct_important", "advancement": "effective", "score": null}, "clash_updates": '
            '[{"clash_id": "c1", "title": "sleep", "side": "negative", "kind": "contested", "note": "called the "studies" old", '
            '"affirmative_position": "", "negative_position": ""}], "summary": "Contested."')  # fmt: skip
    result = parse_output(text, validate=partial(read_stage_analysis, request=request, one_rating=True), recover=partial(recover_stage_analysis, one_rating=True))
    # the rating is read off the broken text; only the update that does not decode is asked for again
    assert result.value is None and list(result.invalid_fields) == [("clash_updates",)]
    assert result.decoded["rating"]["task_performance"] == "approximate" and result.decoded["rating"]["rationale"] == "It doubted the studies without a source"
    assert "sides" not in result.decoded

def test_stage_two_reads_the_instructions_stage_one_wrote_to_the_cache():
    """Through the loopback server under OpenAI's cache rule: stage 2's request shares stage 1's schema
    and system message (over 1,024 tokens), so it is billed cached tokens; in the "sides" form (the
    code before) stage 2's schema differs from its first token on and nothing is cached."""
    view = online_match().view()
    server = FakeOpenAI(prompt_cache="openai")
    server.respond_with(schema_responder)
    try:
        for json_mode in ("auto", "object"):
            b = backend(json_mode, server.base_url)
            first = b.analyse_stage(request_at(view, 0))
            second = b.analyse_stage(StageRequest(match=view, stage=view.stages[1], index=1, previous=[view.stages[0]], analyses=[first.value]))
            assert first.value is not None and second.value is not None and second.value.sides[0].side == "negative"
    finally:
        server.close()
    one, two, sides_one, sides_two = server.prompt_cache.billed
    assert one.cached_tokens == 0 and two.cached_tokens >= 1024 and two.cached_tokens % 128 == 0
    assert sides_two.cached_tokens == 0  # the "sides" form: stage 2's schema (the negative's key) shares no prefix
