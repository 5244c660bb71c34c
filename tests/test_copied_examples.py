"""An answer that copies the prompt's example text is a validation failure of those fields.

The placeholder texts are read here from the request the loopback server received (its system
message), never written into the test, so the tests keep working when the prompts' examples change.
"""

from __future__ import annotations

import json
import re
from functools import partial

import pytest
from fake_openai import FakeOpenAI, fake_openai  # noqa: F401 (fixture)
from llm_helpers import ccdb_2v2_match, feedback_for, online_match, request_schema, tracker_json

from adjudicator.input.match import MatchView
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.llm.recovery import read_stage_analysis
from adjudicator.model.examples import copied_fields, example_texts, normalise
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import parse_output
from adjudicator.model.prompts import PromptStore
from adjudicator.records import FailureKind


def backend_for(server: FakeOpenAI) -> LLMBackend:
    client = LLMClient("openai/test-model", api_base=server.base_url, api_key="sk-test-0123456789", json_mode="object")
    return LLMBackend(client, PromptStore())


def system_of(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "system")


def example_value(body: dict, key: str) -> str:
    """The example answer's value for ``key`` in the request's system message (as the model read it)."""
    m = re.search(rf'"{key}"\s*[:：]\s*"([^"]*)"', system_of(body)) or re.search(rf'^\s*-\s*"{key}"\s*[(（][^)）]*[)）]\s*[:：]\s*(.+?)\s*$', system_of(body), re.M)
    assert m, f"the prompt shows no example value for {key}"
    return m.group(1)


def stage_request(match: MatchView, index: int = 1) -> StageRequest:
    return StageRequest(match=match, stage=match.stages[index], index=index, previous=list(match.stages[:index]))


def copying_tracker(body: dict, sides: list[str], mangle=lambda s: s) -> str:
    """A tracker answer whose levels and labels are valid but whose free text is the example's."""
    answer = json.loads(tracker_json(sides))
    answer["sides"] = {s.pop("side"): s for s in answer["sides"]}  # the response schema's shape
    answer["summary"] = mangle(example_value(body, "summary"))
    for side in answer["sides"].values():
        side["rationale"] = mangle(example_value(body, "rationale"))
    for update in answer["clash_updates"]:
        update["title"] = mangle(example_value(body, "title"))
        update["note"] = mangle(example_value(body, "note"))
    return json.dumps(answer, ensure_ascii=False)


def judge_request(match: MatchView) -> JudgeRequest:
    analyses = [
        parse_output(tracker_json(st.evaluated_sides()), validate=partial(read_stage_analysis, request=StageRequest(match=match, stage=st, index=i))).value
        for i, st in enumerate(match.stages)
    ]
    return JudgeRequest(judge_id="judge-1", perspective="task", match=match, clashes={}, analyses=analyses)


def ballot(request: JudgeRequest, reasoning: str) -> str:
    from adjudicator.judges.llm.variables import judge_units, unit_key

    scores = {unit_key(sid, side): 6 for sid, side in judge_units(request)}
    labels = request.match.debater_labels()
    feedback = feedback_for(labels, request.match.stages[0].stage_id)
    return json.dumps({"reasoning": reasoning, "stage_scores": scores, "winner": "negative", "p": 0.36, "best_debater_votes": [labels[0], labels[0], labels[-1]], "feedback": feedback}, ensure_ascii=False)


def test_normalise_ignores_case_whitespace_and_punctuation():
    assert normalise("  Short NAME of the clash. ") == "short name of the clash"
    assert normalise("本环节发生了什么、为何重要，几句话即可。") == normalise("本环节发生了什么 为何重要 几句话即可")
    assert normalise("ｓｈｏｒｔ　name") == "short name"  # full-width letters and space (NFKC)


def test_example_texts_keep_prose_absent_from_the_user_message():
    messages = (
        {"role": "system", "content": 'Shape: {"title": "short name of the clash", "debater": "Affirmative Speaker 1", "clash_id": "c1", "note": "quoted words here", "kind": "advanced"}'},
        {"role": "user", "content": "Debaters: Affirmative Speaker 1. A speaker said: Quoted words, here!"},
    )
    # "c1" and "advanced" are single words; the label and the sentence are in the user message
    assert example_texts(messages) == {"short name of the clash"}
    answer = {"reasoning": "Short name of the clash!", "kind": "short name of the clash", "updates": [{"title": "short name of the clash"}, {"title": "mine"}]}
    schema = {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "kind": {"type": "string", "enum": ["short name of the clash"]},
            "updates": {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}}}},
        },
    }
    # an enum value is never a copy; a copy inside a list names the list
    assert copied_fields(answer, schema, example_texts(messages)) == [("reasoning",), ("updates",)]


@pytest.mark.parametrize("make_match", [online_match, ccdb_2v2_match], ids=["en", "zh"])
def test_a_tracker_copying_the_example_is_repaired_field_by_field(fake_openai, make_match):
    match = make_match().view()
    request = stage_request(match)
    sides = match.stages[1].evaluated_sides()
    own = json.loads(tracker_json(sides))
    state = {"n": 0}

    def responder(body: dict) -> str:
        state["n"] += 1
        if state["n"] == 1:  # a weak model: the example's sentences, re-cased and re-punctuated
            return copying_tracker(body, sides, mangle=lambda s: s.upper() + " .")
        patch = {"summary": own["summary"], "clash_updates": own["clash_updates"], "sides": {s["side"]: {"rationale": s["rationale"]} for s in own["sides"]}}
        return json.dumps(patch)

    fake_openai.respond_with(responder)
    result = backend_for(fake_openai).analyse_stage(request)
    assert result.failure is None
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "failed"), ("repair", "strict")]
    assert "the example answer's placeholder text" in result.calls[0].error
    repair = fake_openai.requests[1]
    # only the copied fields are asked for again: every free-text field here, not the levels or scores
    asked = request_schema(repair)["properties"]
    assert list(asked) == ["sides", "clash_updates", "summary"]
    assert all(list(v["properties"]) == ["rationale"] for v in asked["sides"]["properties"].values())
    value = result.value
    assert value.summary == "the sleep clash moved" and value.clash_updates[0].title == "sleep versus discipline"
    assert [s.rationale for s in value.sides] == [f"{s} did its job" for s in sides]
    assert [s.task_performance for s in value.sides] == ["well"] * len(sides)  # kept from the first answer


@pytest.mark.parametrize("make_match", [online_match, ccdb_2v2_match], ids=["en", "zh"])
def test_a_tracker_that_keeps_copying_fails_as_copied_example(fake_openai, make_match):
    match = make_match().view()
    sides = match.stages[1].evaluated_sides()
    fake_openai.respond_with(lambda body: copying_tracker(body, sides) if len(body["messages"]) == 2 else json.dumps({"summary": example_value(body, "summary")}))
    result = backend_for(fake_openai).analyse_stage(stage_request(match))
    # the repair gave the copied summary back unchanged: the node ends there, not after a third request
    assert result.value is None and fake_openai.count == 2
    assert result.failure.kind == FailureKind.COPIED_EXAMPLE
    assert result.failure.reason.startswith("copied_example: attempt 2, a repair turn, left the answer as it was")
    assert [c.parse for c in result.calls] == ["failed", "failed"]


def test_a_note_quoting_the_transcript_is_not_a_copy(fake_openai):
    # a debater happens to say the example's words; a note that quotes them is the model's own
    plain = backend_for(fake_openai).stage_prompt(stage_request(online_match().view()))
    note = normalise(example_value({"messages": plain.messages}, "note"))  # the words, as a debater says them
    match = online_match(texts=["Uniforms cut bullying.", f"{note}. That is my reply.", "More.", "Closing."]).view()
    answer = json.loads(tracker_json(["negative"]))
    answer["clash_updates"][0]["note"] = note
    fake_openai.respond_with(lambda body: json.dumps(answer))
    result = backend_for(fake_openai).analyse_stage(stage_request(match))
    assert result.failure is None and [c.parse for c in result.calls] == ["strict"]
    assert result.value.clash_updates[0].note == note


@pytest.mark.parametrize("make_match", [online_match, ccdb_2v2_match], ids=["en", "zh"])
def test_a_judge_copying_the_example_reasoning_is_asked_for_its_reasoning_only(fake_openai, make_match):
    request = judge_request(make_match().view())
    fake_openai.respond_with(lambda body: ballot(request, example_value(body, "reasoning")) if len(body["messages"]) == 2 else json.dumps({"reasoning": "the negative held the decisive clash"}))
    result = backend_for(fake_openai).judge(request)
    assert result.failure is None and result.value.reasoning == "the negative held the decisive clash"
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "failed"), ("repair", "strict")]
    assert list(fake_openai.requests[1]["response_format"]["schema"]["properties"]) == ["reasoning"]
    assert result.value.p == 0.36  # the rest of the ballot stands


@pytest.mark.parametrize("make_match", [online_match, ccdb_2v2_match], ids=["en", "zh"])
def test_a_judge_that_keeps_copying_fails_and_gives_no_ballot(fake_openai, make_match):
    request = judge_request(make_match().view())
    fake_openai.respond_with(lambda body: ballot(request, example_value(body, "reasoning")) if len(body["messages"]) == 2 else json.dumps({"reasoning": example_value(body, "reasoning") + "。"}))
    result = backend_for(fake_openai).judge(request)
    assert result.value is None and result.failure.kind == FailureKind.COPIED_EXAMPLE
    assert [c.turn for c in result.calls] == ["answer", "repair", "repair"]


def test_a_window_stage_copying_the_example_is_repaired_for_that_stage_only(fake_openai, tmp_path, capsys):
    # --track-window-chars: one request for the four stages; stage s2's clash note is the example's
    from llm_helpers import schema_responder

    from adjudicator.cli import main

    def window_of(body: dict) -> list[str] | None:
        props = (request_schema(body) or {}).get("properties") or {}
        return list(props["stages"]["required"]) if "stages" in props else None

    def respond(body: dict) -> str:
        if window_of(body) == ["s1", "s2", "s3", "s4"]:
            answer = json.loads(schema_responder(body))
            answer["stages"]["s2"]["clash_updates"][0]["note"] = example_value(body, "note")
            return json.dumps(answer)
        if window_of(body) == ["s2"]:  # the repair turn: that stage's clash updates, in its own words
            return json.dumps({"stages": {"s2": {"clash_updates": json.loads(tracker_json(["negative"]))["clash_updates"]}}})
        return schema_responder(body)

    fake_openai.respond_with(respond)
    path = tmp_path / "m.json"
    path.write_text(online_match().model_dump_json(), encoding="utf-8")
    args = [str(path), "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "schema", "--no-cache", "--track-window-chars", "1000"]
    assert main(args) == 0
    v = json.loads(capsys.readouterr().out)
    repair = fake_openai.requests[1]
    assert window_of(repair) == ["s2"]
    assert list(request_schema(repair)["properties"]["stages"]["properties"]["s2"]["properties"]) == ["clash_updates"]
    assert fake_openai.count == 2 + 3 and v["provenance"]["repaired"] == 1
    assert [e["note"] for e in v["battlefields"][0]["events"]] == ["pressed"] * 4  # the scripted answers' own note


@pytest.mark.parametrize(
    ("text", "placeholder"),
    [
        ("<text>", True),
        ("<a stage id>", True),
        ("<one of affirmative, negative>", True),
        ("  <your reasons for the decision>  ", True),
        # the 0.5B model's clash note on debateart_4739 s02 (session 5): a link the speech cited
        ("<https://en.m.wikipedia.org/wiki/Batman:_Gotham_Knight>", False),
        ("<mailto:chair@example.org>", False),
        ("see <https://example.org>", False),
    ],
)
def test_a_link_in_angle_brackets_is_a_value_not_a_placeholder(text, placeholder):
    from adjudicator.model.examples import is_placeholder

    assert is_placeholder(text) is placeholder


def test_a_clash_note_quoting_a_link_is_not_a_copied_example():
    schema = {"type": "object", "properties": {"clash_updates": {"type": "array", "items": {"type": "object", "properties": {"note": {"type": "string"}}}}}}
    answer = {"clash_updates": [{"note": "<https://en.m.wikipedia.org/wiki/Batman:_Gotham_Knight>"}]}
    assert copied_fields(answer, schema, frozenset()) == []
    assert copied_fields({"clash_updates": [{"note": "<text>"}]}, schema, frozenset()) == [("clash_updates",)]
