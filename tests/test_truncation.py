"""A reply cut off at the completion budget is never a success (issue 10, item 1).

The loopback server answers ``finish_reason: "length"`` with the first half of a valid answer -- what
a model that hits ``max_tokens`` sends. Field-level recovery can read a tracker stage out of such a
half (its ratings come first, the clash updates last), so before the fix the stage counted as
analysed with its clash updates silently dropped. Now each truncated attempt is recorded as such and
retried with twice the budget (up to the cap in :mod:`adjudicator.model.attempts`); a node still
truncated on its last attempt fails with kind ``truncated``.
"""

from __future__ import annotations

import json

import pytest
from fake_openai import Reply, fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match, schema_responder, tracker_json

from adjudicator.api import adjudicate, adjudicate_single_call
from adjudicator.config import ModelConfig
from adjudicator.errors import AdjudicationFailed
from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.model.attempts import TRUNCATION_CAP_TOKENS, budget_after_truncation
from adjudicator.model.llm import LLMClient
from adjudicator.records import FailureKind

VIEW = online_match().view()


def halved(body) -> Reply:
    full = schema_responder(body)
    return Reply(content=full[: len(full) // 2], finish_reason="length")


def config(server) -> ModelConfig:
    return ModelConfig(model="openai/test-model", api_base=server.base_url, json_mode="object", no_cache=True)


def test_budget_doubles_up_to_the_cap():
    # 1280 -> 2560 -> 5120 (a tracker); 6144 -> 8192 (capped); a budget above the cap is kept, never lowered
    assert [budget_after_truncation(b) for b in (1280, 2560, 6144, 8192, 20000)] == [2560, 5120, TRUNCATION_CAP_TOKENS, 8192, 20000]
    assert budget_after_truncation(None) == TRUNCATION_CAP_TOKENS == 8192


def test_a_server_that_cuts_every_reply_in_half_analyses_no_stage(fake_openai):
    fake_openai.respond_with(halved)
    with pytest.raises(AdjudicationFailed) as info:
        adjudicate(online_match(), config(fake_openai))
    verdict = info.value.verdict
    trackers = [f for f in verdict.failures if f.node == "track_stage"]
    assert [f.key for f in trackers] == ["s1", "s2", "s3", "s4"]  # no stage counts as analysed
    assert {f.kind for f in trackers} == {FailureKind.TRUNCATED}
    assert all(f.reason.startswith("truncated: no complete output in 3 attempts") and len(f.raw_outputs) == 3 for f in trackers)
    assert verdict.winner is None and verdict.p is None and verdict.battlefields == []
    # each stage: three attempts with the budget doubled after each cut (the tracker's own 1,280 first)
    assert [r["max_tokens"] for r in fake_openai.requests] == [1280, 2560, 5120] * 4
    # the judges had nothing to judge from, so they sent nothing
    assert {f.kind for f in verdict.failures if f.node == "judge"} == {FailureKind.NO_EVIDENCE}


def test_a_truncated_single_call_answer_is_not_read_as_a_value(fake_openai):
    # Task 1 cut off after its p: the regex stage could read p = 0.71, but the reply is incomplete
    def respond(body):
        if set(body["response_format"]["schema"]["properties"]) == {"basis", "p"}:
            return Reply(content='{"basis": "the negative never answered the sleep point", "p": 0.71', finish_reason="length")
        return schema_responder(body)

    fake_openai.respond_with(respond)
    verdict = adjudicate_single_call(online_match(), config(fake_openai))
    (task1,) = [t for t in verdict.tasks if t.task == "task1"]
    assert not task1.ok and verdict.p is None
    (failure,) = [f for f in verdict.failures if f.node == "task1"]
    assert failure.kind is FailureKind.TRUNCATED
    assert [r["max_tokens"] for r in fake_openai.requests if set(r["response_format"]["schema"]["properties"]) == {"basis", "p"}] == [1024, 2048, 4096]


def test_truncated_then_complete_is_read_at_the_larger_budget(fake_openai, tmp_path):
    full = tracker_json(["affirmative"])
    fake_openai.push(Reply(content=full[: len(full) // 2], finish_reason="length"), full)
    from adjudicator.model.cache import ResponseCache

    def backend():
        client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test", json_mode="object", cache=ResponseCache(tmp_path))
        return LLMBackend(client)

    request = StageRequest(match=VIEW, stage=VIEW.stages[0], index=0)
    result = backend().analyse_stage(request)
    assert result.failure is None and [(u.clash_id, u.kind) for u in result.value.clash_updates] == [("c1", "advanced")]
    assert [(c.attempt, c.truncated, c.parse, c.max_tokens) for c in result.calls] == [(1, True, "failed", 1280), (2, False, "strict", 2560)]
    assert "cut off at the completion budget (1280 tokens)" in result.calls[0].error
    assert [r["max_tokens"] for r in fake_openai.requests] == [1280, 2560]
    # a rerun replays both attempts from the cache: no request, the same records
    again = backend().analyse_stage(request)
    assert fake_openai.count == 2
    assert [(c.truncated, c.parse, c.max_tokens, c.cache_hit) for c in again.calls] == [(True, "failed", 1280, True), (False, "strict", 2560, True)]
    assert json.loads(result.calls[1].raw_output) == json.loads(again.calls[1].raw_output)


def test_a_configured_budget_is_the_first_and_the_cap_still_applies(fake_openai):
    fake_openai.respond_with(halved)
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test", json_mode="object", max_tokens=5000)
    result = LLMBackend(client).analyse_stage(StageRequest(match=VIEW, stage=VIEW.stages[0], index=0))
    assert result.failure.kind is FailureKind.TRUNCATED
    assert [r["max_tokens"] for r in fake_openai.requests] == [5000, 8192, 8192]
