"""Issue 38, session 5 item 1: a tracker answer that records no clash move on a speech that argued.

Qwen2.5-Coder 1.5B (0cefc6c, debateart_4395 and 4739) answered every stage well formed with
``clash_updates: []``, so the battlefield had 0 moves on 4 of 4 and 6 of 6 stages of real speech. Now such
an answer gets one repair turn asking for at least one update (a clash id of the ledger, or a new clash);
an update the repair gives is kept, and an answer still empty after it is accepted as it stands: the
stage is analysed, listed as a ``dropped_field`` failure (not a failed stage), and no move is made up.
A stage that is no real speech may still be empty, and a missing list still fails as before.
"""

from __future__ import annotations

import json
from functools import partial

from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import LONG_SPEECHES, loopback_backend, online_match, schema_responder, weak_model_tracker_reply

from adjudicator.api import adjudicate_with_context
from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.recovery import read_stage_analysis, read_window_analyses
from adjudicator.model.parsing import parse_output
from adjudicator.model.validators import OutputInvalid
from adjudicator.records import FailureKind
from adjudicator.workflow.context import AdjudicationContext

VIEW = online_match(LONG_SPEECHES).view()
SHORT = online_match().view()  # speeches of 13-15 words: no real speech
OPENED = {"clash_id": "c1", "title": "sleep against practice", "side": "affirmative", "kind": "opened", "note": "says late homework costs sleep",
          "debater": "Affirmative Speaker 1", "affirmative_position": "homework costs sleep", "negative_position": ""}  # fmt: skip


def request(view=VIEW, index=0) -> StageRequest:
    return StageRequest(match=view, stage=view.stages[index], index=index, previous=list(view.stages[:index]))


def test_the_15b_reply_with_no_clash_move_gets_a_repair_turn_and_keeps_the_update_it_gives(fake_openai):
    fake_openai.push(weak_model_tracker_reply(["affirmative"]), json.dumps({"clash_updates": [OPENED]}))
    result = loopback_backend(fake_openai).analyse_stage(request())
    assert result.failure is None and fake_openai.count == 2
    assert [(u.clash_id, u.kind, u.side) for u in result.value.clash_updates] == [("c1", "opened", "affirmative")]
    assert [c.turn for c in result.calls] == ["answer", "repair"]
    repair = fake_openai.requests[1]
    assert list(repair["response_format"]["schema"]["properties"]) == ["clash_updates"]
    assert "at least one clash" in repair["messages"][-1]["content"]


def test_a_reply_still_without_a_move_after_its_repair_is_kept_as_a_dropped_field_and_no_move_is_made_up(fake_openai):
    fake_openai.push(weak_model_tracker_reply(["affirmative"]), json.dumps({"clash_updates": []}))
    result = loopback_backend(fake_openai).analyse_stage(request())
    assert fake_openai.count == 2  # one repair turn, no third request
    assert result.value is not None and result.value.clash_updates == []
    assert [s.task_performance for s in result.value.sides] == ["perfect"]
    assert result.failure.kind == FailureKind.DROPPED_FIELD and result.failure.partial and result.failure.key == "s1"
    assert [d.field for d in result.calls[-1].dropped] == ["clash_updates"]
    assert "clash_updates: empty, but this stage is a real speech" in result.calls[-1].dropped[0].reason


def test_a_stage_that_is_no_real_speech_may_have_no_move():
    result = parse_output(weak_model_tracker_reply(["affirmative"]), partial(read_stage_analysis, request=request(SHORT)))
    assert result.ok and result.value.clash_updates == []


def test_a_missing_list_still_fails_and_no_longer_invites_an_empty_one():
    obj = json.loads(weak_model_tracker_reply(["affirmative"]))
    del obj["clash_updates"]
    result = parse_output(json.dumps(obj), partial(read_stage_analysis, request=request(SHORT)))
    assert not result.ok and result.fallback is None
    assert "clash_updates: missing; list what this stage did to at least one clash" in result.error and "give []" not in result.error


def test_a_window_with_one_speech_without_a_move_falls_back_per_stage():
    both = [request(VIEW, 0), request(VIEW, 1)]
    answer = {"stages": {"s1": json.loads(weak_model_tracker_reply(["affirmative"], [OPENED])), "s2": json.loads(weak_model_tracker_reply(["negative"]))}}
    try:
        read_window_analyses(answer, both)
    except OutputInvalid as exc:
        assert exc.fields == (("stages", "s2", "clash_updates"),)
        assert [(a.stage_id, len(a.clash_updates)) for a in exc.fallback] == [("s1", 1), ("s2", 0)]
        assert [d.field for d in exc.dropped] == ["stages.s2.clash_updates"]
    else:
        raise AssertionError("an empty real speech in a window must be refused")


def test_a_stage_kept_without_moves_is_listed_and_is_no_failed_stage_in_the_verdict(fake_openai):
    def responder(body):
        props = ((body.get("response_format") or {}).get("schema") or {}).get("properties", {})
        if "sides" in props and "Speech 2" in body["messages"][-1]["content"].split("The stage to analyse")[-1][:400]:
            return weak_model_tracker_reply(list(props["sides"]["required"]))  # s2: no move, twice
        if list(props) == ["clash_updates"]:
            return json.dumps({"clash_updates": []})
        return schema_responder(body)

    fake_openai.respond_with(responder)
    verdict = adjudicate_with_context(online_match(LONG_SPEECHES), AdjudicationContext.single(loopback_backend(fake_openai)))
    assert verdict.winner is not None and len(verdict.ballots) == 3
    assert [(f.node, f.key, f.kind) for f in verdict.failures] == [("track_stage", "s2", FailureKind.DROPPED_FIELD)]
    assert "failed_stage" not in verdict.review.reasons
    assert [s.stage_id for s in verdict.stage_scores if s.side == "negative"] == ["s2", "s4"]  # s2 is analysed and judged


def test_an_update_whose_note_stays_empty_after_its_repair_keeps_its_move_and_the_stage_stands(fake_openai):
    # the 1.5B after-run on debateart_4739 (92e8b2e): 'clash_updates.0.note: empty' twice voided the whole stage
    silent = {**OPENED, "note": ""}
    fake_openai.push(weak_model_tracker_reply(["affirmative"], [silent]), json.dumps({"clash_updates": [silent]}))
    result = loopback_backend(fake_openai).analyse_stage(request())
    assert fake_openai.count == 2 and result.value is not None
    assert [(u.clash_id, u.kind, u.side, u.note) for u in result.value.clash_updates] == [("c1", "opened", "affirmative", "")]
    assert [s.task_performance for s in result.value.sides] == ["perfect"]
    assert result.failure.kind == FailureKind.DROPPED_FIELD and [d.field for d in result.calls[-1].dropped] == ["clash_updates.0.note"]


def test_an_empty_note_beside_another_bad_field_still_fails_the_answer():
    obj = json.loads(weak_model_tracker_reply(["affirmative"], [{**OPENED, "note": ""}]))
    obj["summary"] = ""
    result = parse_output(json.dumps(obj), partial(read_stage_analysis, request=request()))
    assert not result.ok and result.fallback is None and "clash_updates.0.note: empty" in result.error and "summary" in result.error
