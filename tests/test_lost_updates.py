"""A tracker answer that cannot be read whole never loses its clash updates silently (issue 26, item 1).

Before: one unescaped quote inside a clash note made the answer undecodable, the field-level recovery
read the sides and returned ``clash_updates: []``, and the stage was accepted ("regex") with its update
gone; the verdict had ``battlefields: []`` and no failure. Now the recovery decodes each update on its
own and keeps one it cannot decode as its text, which the validator refuses (field ``clash_updates``):
the answer fails, a repair turn asks for the clash updates only, and a stage whose updates never come
back readable fails and is listed -- it is never "analysed" with fewer updates than its answer held.
The same holds for an update that decodes but cannot be read (no clash id, an unknown kind or side).
"""

from __future__ import annotations

import json
from functools import partial

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match, tracker_json

from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.llm.recovery import read_stage_analysis, recover_clash_updates, recover_stage_analysis
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import parse_output
from adjudicator.model.prompts import PromptStore

VIEW = online_match().view()
REQUEST = StageRequest(match=VIEW, stage=VIEW.stages[0], index=0)
SECOND = {"clash_id": "c2", "title": "feedback for teachers", "side": "affirmative", "kind": "opened", "note": "raised", "debater": "Affirmative Speaker 1", "affirmative_position": "", "negative_position": ""}


def answer_with_two_updates() -> str:
    """A valid tracker answer for stage s1 with two clash updates (c1 advanced, c2 opened), indented
    as a model writes it."""
    obj = json.loads(tracker_json(["affirmative"]))
    obj["clash_updates"].append(SECOND)
    return json.dumps(obj, indent=2)


def unescaped_quote(text: str) -> str:
    """``text`` with an unescaped quote inside the first update's note (the issue's reply)."""
    broken = text.replace('"note": "pressed"', '"note": "pressed "hard" on sleep"')
    assert broken != text
    return broken


def dropped_brace(text: str) -> str:
    """``text`` with the closing brace of the first clash update removed."""
    at = text.index("}", text.index('"clash_id": "c1"'))
    return text[:at] + text[at + 1 :]


def read(text: str):
    return parse_output(text, partial(read_stage_analysis, request=REQUEST), recover_stage_analysis)


@pytest.mark.parametrize("corrupt", [unescaped_quote, dropped_brace])
def test_a_broken_update_fails_the_answer_naming_the_clash_updates(corrupt):
    result = read(corrupt(answer_with_two_updates()))
    assert not result.ok  # before: ok at stage "regex" with clash_updates == []
    assert result.invalid_fields == (("clash_updates",),)
    assert result.error.startswith("clash_updates.0: this update could not be read as a JSON object")
    # what was read is kept for the repair turn: both sides' levels and the readable second update
    assert result.decoded["sides"][0]["task_performance"] == "well"
    assert result.decoded["clash_updates"][1] == SECOND


def test_the_recovery_reads_each_update_on_its_own():
    text = answer_with_two_updates()
    assert [u["clash_id"] for u in recover_clash_updates(text)] == ["c1", "c2"]
    broken = recover_clash_updates(unescaped_quote(text))
    assert isinstance(broken[0], str) and '"note": "pressed "hard" on sleep"' in broken[0]
    assert broken[1] == SECOND
    # no list and no clash id: nothing was lost; an empty list is nothing too
    assert recover_clash_updates('{"sides": [], "summary": "x"}') == []
    assert recover_clash_updates('{"sides": [], "clash_updates": [], "summary": "x"}') == []


def test_an_answer_broken_outside_its_values_is_still_recovered_field_by_field():
    # a comma missing between two keys: no parser reads the object, but every value (the update
    # included) is read at stage 3, so nothing is lost and the answer is accepted
    text = answer_with_two_updates().replace('],\n  "summary"', ']\n  "summary"')
    assert text != answer_with_two_updates()
    result = read(text)
    assert result.ok and result.stage == "regex"
    assert [u.clash_id for u in result.value.clash_updates] == ["c1", "c2"] and result.value.summary == "the sleep clash moved"


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"clash_id": "", "side": "affirmative", "kind": "advanced"}, "clash_updates.1.clash_id: missing"),
        ({"clash_id": "c9", "side": "affirmative", "kind": "won"}, "clash_updates.1.kind: expected one of"),
        ({"clash_id": "c9", "side": "the house", "kind": "advanced"}, "clash_updates.1.side: expected affirmative or negative"),
        ("c9 advanced by the affirmative", "clash_updates.1: this update could not be read as a JSON object"),
    ],
)
def test_an_update_that_decodes_but_cannot_be_read_fails_the_answer(bad, message):
    obj = json.loads(tracker_json(["affirmative"]))
    obj["clash_updates"].append(bad)
    result = read(json.dumps(obj))
    assert not result.ok and result.invalid_fields == (("clash_updates",),)
    assert message in result.error  # before: the update was dropped and the stage accepted


def backend_for(server) -> LLMBackend:
    client = LLMClient("openai/test-model", api_base=server.base_url, api_key="sk-test-0123456789", json_mode="object")
    return LLMBackend(client, PromptStore())


def test_a_repair_turn_asks_for_the_clash_updates_only_and_keeps_them(fake_openai):
    text = unescaped_quote(answer_with_two_updates())
    fixed = json.loads(answer_with_two_updates())["clash_updates"]
    fake_openai.push(text, json.dumps({"clash_updates": fixed}))
    result = backend_for(fake_openai).analyse_stage(REQUEST)
    assert result.failure is None
    assert [(u.clash_id, u.kind, u.note) for u in result.value.clash_updates] == [("c1", "advanced", "pressed"), ("c2", "opened", "raised")]
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "failed"), ("repair", "strict")]
    repair = fake_openai.requests[1]
    assert list(repair["response_format"]["schema"]["properties"]) == ["clash_updates"]
    assert "- clash_updates: a list of entries" in repair["messages"][-1]["content"]


def test_a_stage_whose_updates_never_come_back_readable_fails_and_is_listed(fake_openai):
    text = unescaped_quote(answer_with_two_updates())
    fake_openai.respond_with(lambda body: text)  # the answer, and every repair turn, broken the same way
    result = backend_for(fake_openai).analyse_stage(REQUEST)
    assert result.value is None and fake_openai.count == 3
    assert result.failure.kind == "unparseable" and "clash_updates.0" in result.failure.reason


def test_a_text_value_broken_by_an_unescaped_quote_is_not_read_cut_at_the_quote():
    from adjudicator.model.parsing import find_string

    # before: "a " -- the text up to the stray quote, kept as if it were the whole reasoning
    assert find_string('{"reasoning": "a "quoted" claim", "p": 0.4}', ["reasoning"]) is None
    assert find_string('{"reasoning": "a \\"quoted\\" claim" , "p": 0.4}', ["reasoning"]) == 'a "quoted" claim'
    assert find_string('"summary": "the end"', ["summary"]) == "the end"
    # the tracker's recovery then leaves the broken rationale empty, which fails the answer: asked again
    text = answer_with_two_updates().replace('"rationale": "affirmative did its job"', '"rationale": "it "won" the clash"')
    result = read(text)
    assert not result.ok and result.invalid_fields == (("sides", "affirmative", "rationale"),)
