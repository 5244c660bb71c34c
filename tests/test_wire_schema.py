"""A response schema is sent with each repeated part once, under ``$defs`` (issue 39: the schema is
billed as prompt tokens; adjudicator/model/schema.wire_schema), and reads back to the same schema."""

from __future__ import annotations

import json

import pytest
from fake_openai import fake_openai  # noqa: F401  (fixture)
from llm_helpers import online_match, request_schema, schema_responder

from adjudicator.api import adjudicate
from adjudicator.config import ModelConfig
from adjudicator.judges.llm.outputs import ballot_answer, window_answer
from adjudicator.model.schema import MIN_SHARED_CHARS, inline_refs, response_schema, wire_schema

POINT = {"type": "object", "properties": {"text": {"type": "string"}, "stage_id": {"type": "string"}}, "required": ["text", "stage_id"], "additionalProperties": False}


def _obj(**props):
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def test_a_repeated_object_is_sent_once_and_referred_to():
    schema = _obj(worked=POINT, missed=POINT, p={"type": "number"})
    wire = wire_schema(schema)
    assert wire == {**_obj(worked={"$ref": "#/$defs/d1"}, missed={"$ref": "#/$defs/d1"}, p={"type": "number"}), "$defs": {"d1": POINT}}
    assert inline_refs(wire) == schema
    # worked by hand: the point's JSON is 121 characters, so two copies of it become one plus two references
    assert len(json.dumps(POINT, separators=(",", ":"))) >= MIN_SHARED_CHARS


def test_nested_repeats_are_named_in_order_and_a_part_repeated_only_inside_another_is_inlined():
    inner = _obj(a={"type": "string"}, b={"type": "string"}, c={"type": "string"})
    debater = _obj(worked=POINT, missed=POINT, note=inner)  # `inner` repeats only because `debater` does
    schema = _obj(first=debater, second=debater)
    wire = wire_schema(schema)
    assert list(wire["$defs"]) == ["d1", "d2"]  # no gap where `inner` was put back inline
    assert wire["properties"] == {"first": {"$ref": "#/$defs/d1"}, "second": {"$ref": "#/$defs/d1"}}
    assert wire["$defs"]["d1"]["properties"] == {"worked": {"$ref": "#/$defs/d2"}, "missed": {"$ref": "#/$defs/d2"}, "note": inner}
    assert wire["$defs"]["d2"] == POINT
    assert inline_refs(wire) == schema


def test_a_schema_without_repeats_or_with_short_repeats_is_sent_as_it_is():
    short = {"type": "object", "properties": {"x": {}}}  # 41 characters: two references would not pay
    schema = _obj(a=short, b=short)
    assert len(json.dumps(short, separators=(",", ":"))) < MIN_SHARED_CHARS
    assert wire_schema(schema) == schema
    single = _obj(worked=POINT, p={"type": "number"})
    assert wire_schema(single) == single


def test_inline_refs_names_a_missing_definition():
    with pytest.raises(KeyError):
        inline_refs({"type": "object", "properties": {"a": {"$ref": "#/$defs/d9"}}, "$defs": {}})


def test_the_ballot_and_the_window_schemas_shrink_and_read_back():
    labels = ("Affirmative Speaker 1", "Negative Speaker 1")
    ballot = response_schema(ballot_answer(("s01|affirmative", "s02|negative"), ("affirmative", "negative"), labels, feedback=True))
    window = response_schema(window_answer((("s01", ("affirmative",), False), ("s02", ("negative",), False), ("s03", ("affirmative",), False)), labels))
    for schema in (ballot, window):
        wire = wire_schema(schema)
        assert inline_refs(wire) == schema
        assert len(json.dumps(wire)) < 0.75 * len(json.dumps(schema))
    # the ballot's feedback point (text, stage_id, clash_id) is written once instead of 2 debaters x 3 points
    assert json.dumps(wire_schema(ballot)).count('"clash_id": {') == 1 and json.dumps(ballot).count('"clash_id": {') == 6
    # the window's three stages: the side answer once (two stage shapes: affirmative and negative evaluated)
    assert json.dumps(wire_schema(window)).count('"rationale": {') == 1 and json.dumps(window).count('"rationale": {') == 3


def test_a_run_sends_references_and_still_reads_every_answer(fake_openai, tmp_path):  # noqa: F811
    fake_openai.respond_with(schema_responder)
    config = ModelConfig.resolve(model="openai/test-model", api_base=fake_openai.base_url, json_mode="schema", no_cache=True, env={})
    verdict = adjudicate(online_match(), config)
    judges = [b for b in fake_openai.requests if "best_debater_votes" in (request_schema(b) or {}).get("properties", {})]
    assert len(judges) == 3 and verdict.failures == []
    sent = judges[0]["response_format"]["json_schema"]["schema"]
    assert "$defs" in sent and json.dumps(sent).count('"clash_id": {') == 1
    assert len(verdict.ballots) == 3
