"""The run's request log (issue 10, item 2): each request on record before it is sent, so the ledger
and the budget count the requests of samples that never finished.

The kill -9 test that reproduces the under-report is in test_bench_kill.py; these pin the pieces.
"""

from __future__ import annotations

import json

from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.bench.ledger import Ledger
from adjudicator.bench.requests import RequestLog, logged_spend, unfinished_spend
from adjudicator.model.chat import ChatRequest
from adjudicator.model.llm import LLMClient


def test_the_log_records_sent_and_settled_lines_and_sums_them(tmp_path):
    log = RequestLog(tmp_path, session=1)
    a = log.for_sample("agentic", "m01")
    r1 = a.sent(model="openai/x", node="track_stage", key="s1", attempt=1)
    a.settled(r1, prompt_tokens=100, completion_tokens=20, cost_usd=0.0003)
    r2 = a.sent(model="openai/x", node="judge", key="judge-1", attempt=1)  # never settled: killed in flight
    assert (r1, r2) == ("1.1", "1.2")
    assert log.in_flight_cost_usd() == 0.0003
    (spend,) = log.in_flight().values()
    assert (spend.requests, spend.priced_requests, spend.unpriced_requests, spend.prompt_tokens) == (2, 1, 1, 100)
    lines = [json.loads(x) for x in (tmp_path / "requests.jsonl").read_text().splitlines()]
    assert [(x["e"], x["id"]) for x in lines] == [("sent", "1.1"), ("settled", "1.1"), ("sent", "1.2")]
    assert lines[0]["sample"] == "m01" and lines[0]["arm"] == "agentic" and lines[0]["session"] == 1
    # once the sample's result counts it, it is no longer in flight
    log.settle_sample("agentic", "m01")
    assert log.in_flight_cost_usd() == 0.0 and log.in_flight() == {}


def test_a_torn_last_line_is_skipped_and_the_next_session_starts_a_fresh_line(tmp_path):
    log = RequestLog(tmp_path, session=1)
    log.for_sample("agentic", "m01").sent(model="m", node="n", key="k", attempt=1)
    with (tmp_path / "requests.jsonl").open("a") as fh:
        fh.write('{"e": "sent", "id": "1.2", "sess')  # kill -9 mid-write
    log2 = RequestLog(tmp_path, session=2)
    log2.for_sample("agentic", "m02").sent(model="m", node="n", key="k", attempt=1)
    spend = logged_spend(tmp_path)
    assert {g: s.requests for g, s in spend.items()} == {("agentic", "m01", 1): 1, ("agentic", "m02", 2): 1}


def test_only_samples_without_a_result_of_that_session_are_unfinished(tmp_path):
    log = RequestLog(tmp_path, session=1)
    for sample, n in (("m01", 3), ("m02", 2)):
        obs = log.for_sample("agentic", sample)
        for _ in range(n):
            obs.settled(obs.sent(model="m", node="n", key="k", attempt=1), prompt_tokens=10, completion_tokens=5, cost_usd=0.001)
    # m01 wrote its result in session 1; m02 was killed in flight
    spend = unfinished_spend(tmp_path, {("agentic", "m01", 1)})
    assert (spend["agentic"].requests, spend["agentic"].prompt_tokens, spend["agentic"].cost_usd) == (2, 20, 0.002)
    assert unfinished_spend(tmp_path, {("agentic", "m01", 1)}, sample_ids={"m01"}) == {}
    ledger = Ledger()
    ledger.add_unfinished(spend)
    total = ledger.as_dict()["total"]
    assert (total["samples"], total["requests"], total["unfinished_requests"], total["cost_usd"]) == (0, 2, 2, 0.002)
    # the budget counts it, and the spend of samples still in flight on top
    assert not ledger.over_budget(0.0025) and ledger.over_budget(0.0025, in_flight_usd=0.0005)


def test_the_client_logs_every_http_request_once_transport_retries_included(tmp_path, fake_openai):
    from fake_openai import error

    from adjudicator.model.transport import TransportPolicy

    fake_openai.push(error(500), error(429, headers={"Retry-After": "0"}), '{"p": 0.7}', '{"p": 0.6}')
    log = RequestLog(tmp_path, session=3)
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test", observer=log.for_sample("single-call", "m09"),
                       policy=TransportPolicy(max_retries=3, base_delay_s=0.0), sleep=lambda s: None)
    first = client.complete(ChatRequest(messages=({"role": "user", "content": "one"},), node="task1"))
    second = client.complete(ChatRequest(messages=({"role": "user", "content": "two"},), node="task1"))
    assert (first.transport_retries, second.transport_retries) == (2, 0)
    (spend,) = logged_spend(tmp_path).values()
    assert spend.requests == fake_openai.count == 4
    assert (spend.prompt_tokens, spend.completion_tokens) == (22, 14)  # the two answers' usage (11 + 7 each)
    lines = [json.loads(x) for x in (tmp_path / "requests.jsonl").read_text().splitlines()]
    errors = [x["error"] for x in lines if x["e"] == "settled" and x["error"]]
    assert len(errors) == 2 and "500" in errors[0] and "429" in errors[1]
