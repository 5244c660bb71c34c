"""One response schema for the three judges of a match (issue 39, layouts a cache can serve).

A provider's cached prefix starts with the response schema (OpenAI's guide: "the structured output
schema serves as a prefix to the system message"; tests/prompt_cache.py), so the wings, whose schema had
no ``feedback``, shared 77 tokens with the chair and could read nothing of its cache entry. Now every
judge of a match that carries feedback is sent the chair's schema with ``feedback`` nullable
(``"type": ["object", "null"]``, model/schema.py), the wings' prompt says to answer null, and a wing's
null (or any feedback it writes) is not read; the chair's null is its dropped feedback, as an invalid one.
"""

from __future__ import annotations

import json

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import ballot_json, feedback_for, judge_request_over, loopback_backend, online_match
from prompt_cache import PromptCache, request_tokens

from adjudicator.config import JUDGE_IDS
from adjudicator.judges.base import JUDGE_PERSPECTIVES
from adjudicator.judges.llm.variables import judge_units
from adjudicator.model.schema import OutputModel, output_model, response_schema

VIEW = online_match().view()


def panel(view):
    chair = judge_request_over(view)
    return [chair.model_copy(update={"judge_id": j, "perspective": JUDGE_PERSPECTIVES[j]}) for j in JUDGE_IDS]


def test_an_optional_object_is_written_as_a_nullable_object():
    point = output_model("Point", text=str)
    schema = response_schema(output_model("Answer", p=float, point=point | None))
    assert schema["properties"]["point"] == {
        "type": ["object", "null"],
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    assert schema["required"] == ["p", "point"]


def test_a_union_of_two_objects_is_still_refused():
    class A(OutputModel):
        a: str

    class B(OutputModel):
        b: str

    with pytest.raises(ValueError, match="unions of bare types"):
        response_schema(output_model("Answer", x=A | B))


def test_the_three_judges_are_sent_one_schema():
    backend = loopback_backend(type("S", (), {"base_url": "http://127.0.0.1:9/v1"})())
    chats = [backend.judge_prompt(r) for r in panel(VIEW)]
    assert chats[0].schema == chats[1].schema == chats[2].schema  # the old code: the wings' had no feedback
    assert list(chats[0].schema["properties"]["feedback"]["required"]) == list(VIEW.debater_labels())


def test_a_wing_after_the_chair_reads_the_chairs_cached_prefix():
    """Under OpenAI's rule (1,024 tokens, then 128-token steps), a wing sent once the chair was answered
    reads every whole step of what they share: the schema, the system message and the user message up to
    ``You are judge-``; the old code's wing shared 77 tokens of schema and read nothing."""
    backend = loopback_backend(type("S", (), {"base_url": "http://127.0.0.1:9/v1"})())
    chats = [backend.judge_prompt(r) for r in panel(VIEW)]
    tokens = [request_tokens(c.messages, {"type": "json_schema", "json_schema": {"name": c.schema_name, "schema": c.schema, "strict": True}}) for c in chats]
    shared = 0
    for x, y in zip(tokens[0], tokens[1]):
        if x != y:
            break
        shared += 1
    cache = PromptCache("openai")
    cache.answered(tokens[0])
    read = cache.lookup(tokens[1])
    assert shared >= 1024 and read == 1024 + (shared - 1024) // 128 * 128


def test_a_wings_null_feedback_stands_at_its_first_answer(fake_openai):  # noqa: F811
    wing = panel(VIEW)[1]
    fake_openai.push(json.dumps({**json.loads(ballot_json(judge_units(wing))), "feedback": None}))
    result = loopback_backend(fake_openai).judge(wing)
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "strict")]
    assert result.value is not None and result.value.feedback == [] and result.value.judge_id == "judge-2"


def test_a_wings_written_feedback_is_not_read(fake_openai):  # noqa: F811
    wing = panel(VIEW)[2]
    fake_openai.push(ballot_json(judge_units(wing), feedback=feedback_for(list(VIEW.debater_labels()))))
    result = loopback_backend(fake_openai).judge(wing)
    assert [c.turn for c in result.calls] == ["answer"] and result.value is not None and result.value.feedback == []


def test_the_chairs_null_feedback_is_its_dropped_feedback(fake_openai):  # noqa: F811
    chair = panel(VIEW)[0]
    null = json.dumps({**json.loads(ballot_json(judge_units(chair))), "feedback": None})
    fake_openai.push(null)
    fake_openai.push(json.dumps({"feedback": None}))
    result = loopback_backend(fake_openai).judge(chair)
    assert [c.turn for c in result.calls] == ["answer", "repair"]
    asked = fake_openai.requests[1]["response_format"]
    assert "feedback" in json.dumps(asked)
    assert result.value is not None and result.value.feedback == [] and result.value.p == pytest.approx(0.62)
    assert [d.field for d in result.calls[-1].dropped] == ["feedback"]
