"""The tracker's answer has no top-level reasoning (issue 39, the agentic arm's completion cut).

A stage analysis never kept it (StageAnalysis has no reasoning; the judges read each side's rationale
and the summary, the ledger its clash updates), so it was written, billed as completion tokens (16.4%
of the agentic arm's with sized answers, benchmarks/completion_fields.py) and thrown away. Now the
tracker's prompt and response schema do not ask for it, an answer without it stands at its first
answer (before, an absent reasoning was "reasoning: empty" and cost a repair turn), and an answer that
still writes it is read as before. Online 1v1 (English), the CCDB 2v2 (Chinese) and a BP round.
"""

from __future__ import annotations

import json

import pytest
from bp_helpers import bp_data
from fake_openai import FakeOpenAI, fake_openai  # noqa: F401 (fixture)
from llm_helpers import ccdb_2v2_match, online_match, tracker_json

from adjudicator.input.match_file import parse_match
from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.model.llm import LLMClient
from adjudicator.model.prompts import PromptStore

MATCHES = {"en": online_match, "zh": ccdb_2v2_match, "bp": lambda: parse_match(bp_data())}


def backend_for(server: FakeOpenAI) -> LLMBackend:
    client = LLMClient("openai/test-model", api_base=server.base_url, api_key="sk-test-0123456789", json_mode="object")
    return LLMBackend(client, PromptStore())


def stage_request(make_match, index: int = 1) -> StageRequest:
    match = make_match().view()
    return StageRequest(match=match, stage=match.stages[index], index=index, previous=list(match.stages[:index]))


@pytest.mark.parametrize("lang", sorted(MATCHES))
def test_the_tracker_is_not_asked_for_a_reasoning(lang):
    backend = backend_for(type("S", (), {"base_url": "http://127.0.0.1:9/v1"})())  # type: ignore[arg-type]
    chat = backend.stage_prompt(stage_request(MATCHES[lang]))
    assert list(chat.schema["properties"]) == ["sides", "clash_updates", "summary"]
    assert all('"reasoning"' not in m["content"] for m in chat.messages)
    # each side's rationale still comes before its ratings
    side = next(iter(chat.schema["properties"]["sides"]["properties"].values()))
    assert list(side["properties"])[:4] == ["rationale", "task_performance", "battlefield_judgement", "advancement"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_answer_without_a_reasoning_stands_at_its_first_answer(fake_openai, lang):  # noqa: F811
    request = stage_request(MATCHES[lang])
    answer = {k: v for k, v in json.loads(tracker_json(request.stage.evaluated_sides())).items() if k != "reasoning"}
    fake_openai.push(json.dumps(answer), json.dumps({"reasoning": "both sides engaged the sleep clash"}))
    result = backend_for(fake_openai).analyse_stage(request)
    assert result.failure is None and [(c.turn, c.parse) for c in result.calls] == [("answer", "strict")]
    assert fake_openai.count == 1
    assert [s.side for s in result.value.sides] == request.stage.evaluated_sides()


def test_an_answer_that_still_writes_a_reasoning_is_read_as_before(fake_openai):  # noqa: F811
    request = stage_request(MATCHES["en"])
    answer = {"reasoning": "both sides engaged the sleep clash", **json.loads(tracker_json(request.stage.evaluated_sides()))}
    fake_openai.push(json.dumps(answer))
    result = backend_for(fake_openai).analyse_stage(request)
    assert result.failure is None and [c.parse for c in result.calls] == ["strict"]
    assert result.value.summary == answer["summary"]
