"""Issue 25, the repeated repair turn. At temperature 0 a repair turn that is the same request gets the
same invalid patch: on the real 0.5B model every judge of debateart_4395 answered p = 6.0, was told
"p: a number from 0.0 to 1.0", answered 0.5 (no judge may tie), and answered 0.5 again to the second
repair turn (6 of the match's 13 requests). Now a repair turn states the validator's own range (p on
the stated winner's side of 0.5, or either side, never 0.5 itself), a second one quotes the values
already refused, and a reply that leaves the answer as it was fails the node at once with kind
``repeated_repair``, never a score. Over the loopback server with litellm."""

from __future__ import annotations

import json

from fake_openai import FakeOpenAI, fake_openai  # noqa: F401 (fixture)
from llm_helpers import feedback_for, judge_request_over, loopback_backend, online_match, schema_responder, tracker_json

from adjudicator.api import adjudicate_with_context
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.model.cache import ResponseCache
from adjudicator.records import FailureKind
from adjudicator.workflow.context import AdjudicationContext

VIEW = online_match().view()


def backend_for(server: FakeOpenAI, cache: ResponseCache | None = None) -> LLMBackend:
    return loopback_backend(server, cache)


def judge_request() -> JudgeRequest:
    return judge_request_over(VIEW)


def ballot(**fields) -> str:
    answer = {
        "reasoning": "the negative held the feedback clash in s4",
        "stage_scores": {"s1|affirmative": 6, "s2|negative": 7, "s3|affirmative": 5, "s4|negative": 8},
        "winner": "negative",
        "p": 0.34,
        "best_debater_votes": ["Negative Speaker 1", "Negative Speaker 1", "Affirmative Speaker 1"],
        "feedback": feedback_for(["Affirmative Speaker 1", "Negative Speaker 1"]),
    }
    return json.dumps({k: v for k, v in {**answer, **fields}.items() if v is not None})


def ask(body: dict) -> str:
    """The repair turn's words: the last user message of a request."""
    return body["messages"][-1]["content"]


def test_the_repair_turn_states_the_range_of_p_a_ballot_accepts(fake_openai):
    # the stated winner is negative: p must be under 0.5, and the schema's "0.0 to 1.0" is not what is said
    # (a p above 100 is on no scale the normalisation reads, issue 38; 6.0 would be read as 0.6)
    fake_openai.push(ballot(p=600.0), '{"p": 0.3}')
    result = backend_for(fake_openai).judge(judge_request())
    assert result.value is not None and result.value.p == 0.3
    words = ask(fake_openai.requests[1])
    assert "- p: a number from 0.0 to 0.49 (so far you gave 600.0)" in words
    assert '{"p": "<a number from 0.0 to 0.49>"}' in words and "0.0 to 1.0" not in words


def test_with_no_winner_stated_either_side_of_a_tie_is_offered(fake_openai):
    fake_openai.push(ballot(p=0.5, winner=None), '{"p": 0.62}')
    result = backend_for(fake_openai).judge(judge_request())
    assert result.value is not None and (result.value.p, result.value.winner) == (0.62, "affirmative")
    assert "- p: a number from 0.0 to 0.49 or from 0.51 to 1.0 (so far you gave 0.5)" in ask(fake_openai.requests[1])


def test_a_second_repair_turn_quotes_what_was_refused_so_it_is_not_the_first_again(fake_openai):
    # the 4395 run: p = 6.0, then 0.5; the second turn says both, so it is a new request (600: a p
    # above 100, which no normalisation rule reads; 6.0 is now read as 0.6, issue 38)
    fake_openai.push(ballot(p=600.0, winner=None), '{"p": 0.5}', '{"p": 0.41}')
    result = backend_for(fake_openai).judge(judge_request())
    assert result.value is not None and result.value.p == 0.41
    assert [c.turn for c in result.calls] == ["answer", "repair", "repair"]
    first, second = ask(fake_openai.requests[1]), ask(fake_openai.requests[2])
    assert "(so far you gave 600.0)" in first
    assert "p: a judge may not tie" in second and "- p: a number from 0.0 to 0.49 or from 0.51 to 1.0 (so far you gave 600.0, then 0.5)" in second


def test_a_repair_reply_that_repeats_the_refused_value_fails_the_node_at_once(fake_openai):
    fake_openai.push(ballot(p=-3, winner=None), '{"p": -3}', ballot())  # the third reply is never asked for
    result = backend_for(fake_openai).judge(judge_request())
    assert result.value is None and fake_openai.count == 2
    assert result.failure.kind == FailureKind.REPEATED_REPAIR
    assert result.failure.reason.startswith("repeated_repair: attempt 2, a repair turn, left the answer as it was (p = -3)")
    assert "p: -3.0 is outside [0, 1]" in result.failure.reason
    assert result.failure.raw_outputs == [ballot(p=-3, winner=None), '{"p": -3}']  # every output kept
    assert [c.parse for c in result.calls] == ["failed", "failed"]


def test_a_repair_reply_that_leaves_the_field_out_fails_the_tracker_stage_at_once(fake_openai):
    answer = json.loads(tracker_json(["affirmative"]))
    answer["clash_updates"][0]["clash_id"] = ""
    fake_openai.push(json.dumps(answer), '{"summary": "the sleep clash moved"}')  # not what was asked for
    result = backend_for(fake_openai).analyse_stage(StageRequest(match=VIEW, stage=VIEW.stages[0], index=0))
    assert result.value is None and fake_openai.count == 2
    assert result.failure.kind == FailureKind.REPEATED_REPAIR and "clash_updates.0.clash_id: missing" in result.failure.reason


def test_the_verdict_lists_the_failed_judge_and_counts_no_ballot_of_it(fake_openai, tmp_path):
    def responder(body):
        if "judge-1" in body["messages"][1]["content"] and "stage_scores" in body["response_format"]["schema"]["properties"]:
            return ballot(p=-3, winner=None)
        if "judge-1" in body["messages"][1]["content"] and list(body["response_format"]["schema"]["properties"]) == ["p"]:
            return '{"p": -3}'
        return schema_responder(body)

    fake_openai.respond_with(responder)
    cache = ResponseCache(tmp_path / "cache")
    verdict = adjudicate_with_context(online_match(), AdjudicationContext.single(backend_for(fake_openai, cache)))
    assert [b.judge_id for b in verdict.ballots] == ["judge-2", "judge-3"]
    (failed,) = verdict.failures
    assert (failed.node, failed.key, failed.kind) == ("judge", "judge-1", FailureKind.REPEATED_REPAIR)
    assert verdict.review.escalate and "failed_judge" in verdict.review.reasons
    sent = fake_openai.count
    adjudicate_with_context(online_match(), AdjudicationContext.single(backend_for(fake_openai, cache)))
    assert fake_openai.count == sent + 2  # a failed node writes nothing to the cache: a rerun asks again
