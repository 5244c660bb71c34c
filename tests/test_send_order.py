"""Cache-ordered sending (issue 39): under ``send_order = "lead-first"`` (the default) one judge, and one
single-call task, is sent first and the others only once it was answered, so a provider's prompt cache
can serve what they share; ``at-once`` sends them together. Checked over real HTTP on the loopback
server, whose every reply waits :data:`LATENCY_S`, so "after it was answered" is visible in the
arrival times.
"""

from __future__ import annotations

import re

import pytest
from fake_openai import FakeOpenAI
from llm_helpers import schema_responder

from adjudicator.cli import main
from adjudicator.model.chat import ChatRequest
from adjudicator.workflow.send_order import judge_lead, lead_index

LATENCY_S = 0.8
MATCH = "adjudicator/data/matches/panelbench/debateart_0020.json"
JUDGE_ID = re.compile(r"You are (judge-\d)")


def _req(text: str, schema: dict | None) -> ChatRequest:
    return ChatRequest(messages=({"role": "system", "content": "s"}, {"role": "user", "content": text}), node="task2", key=text, schema=schema)


def test_the_lead_is_the_longest_of_the_largest_group_with_one_schema():
    a, b = {"type": "object", "title": "a"}, {"type": "object", "title": "b"}
    # Task 1 (schema a) is the longest, but the three of schema b can share: the longest of them leads
    requests = [_req("x" * 900, a), _req("x" * 100, b), _req("x" * 300, b), _req("x" * 200, b), _req("x" * 800, {"title": "c"})]
    assert lead_index(requests) == 2
    assert lead_index([_req("x", a), _req("y", b)]) is None  # no two share a schema: nothing to wait for
    assert lead_index([_req("x" * 5, a), _req("y" * 5, a)]) == 0  # a tie: the first
    # two schemas (as before the judges shared one): the larger group leads; another model shares no cache
    chair, wing = _req("j" * 50, a), _req("j" * 40, b)
    assert judge_lead({"judge-1": chair, "judge-2": wing, "judge-3": wing}, {}) == "judge-2"
    assert judge_lead({"judge-1": chair, "judge-2": wing, "judge-3": wing}, {"judge-2": "m1", "judge-3": "m2"}) == ""


def _run(tmp_path, arm: str, order: str) -> tuple[FakeOpenAI, list[tuple[str, float]]]:
    server = FakeOpenAI(latency_s=LATENCY_S)
    server.respond_with(schema_responder)
    try:
        code = main([MATCH, "--arm", arm, "--model", "openai/gpt-4.1-mini", "--api-base", server.base_url, "--no-cache",
                     "--send-order", order, "--out", str(tmp_path / f"{arm}-{order}.json")])  # fmt: skip
    finally:
        server.close()
    assert code == 0
    return server, list(zip([_label(r) for r in server.requests], server.request_times, strict=True))


def _label(body: dict) -> str:
    text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
    found = JUDGE_ID.search(text)
    return found.group(1) if found else ""


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("ADJUDICATOR_API_KEY", "sk-loopback-0123456789")


def test_lead_first_sends_the_chair_then_the_wings_once_it_was_answered(tmp_path, capsys):
    _, arrivals = _run(tmp_path, "agentic", "lead-first")
    capsys.readouterr()
    judges = {label: t for label, t in arrivals if label}
    assert sorted(judges) == ["judge-1", "judge-2", "judge-3"]
    # one schema for the three (the wings' feedback null, tests/test_one_judge_schema.py): the longest, the chair's, leads
    lead = min(judges, key=judges.get)
    assert lead == "judge-1"
    for other in set(judges) - {lead}:
        assert judges[other] - judges[lead] >= LATENCY_S * 0.99  # sent once the lead's reply came


def test_at_once_sends_the_three_judges_together(tmp_path, capsys):
    _, arrivals = _run(tmp_path, "agentic", "at-once")
    capsys.readouterr()
    times = sorted(t for label, t in arrivals if label)
    assert len(times) == 3 and times[-1] - times[0] < LATENCY_S * 0.75


def test_lead_first_single_call_sends_one_task_then_the_rest(tmp_path, capsys):
    _, arrivals = _run(tmp_path, "single-call", "lead-first")
    capsys.readouterr()
    times = sorted(t for _, t in arrivals)
    assert len(times) == 6
    assert times[1] - times[0] >= LATENCY_S * 0.99  # the lead alone, then the other five (four at a time)
    _, together = _run(tmp_path, "single-call", "at-once")
    capsys.readouterr()
    times = sorted(t for _, t in together)
    assert times[3] - times[0] < LATENCY_S * 0.75  # four at once from the start
