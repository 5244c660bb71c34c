"""Only the chair writes the coach's feedback (issue 39, the agentic arm's completion cut).

The verdict shows one judge's feedback (verdict/feedback.py panel_feedback), so the wings' feedback was
written, billed as completion tokens (31-37% of the agentic arm's, benchmarks/completion_fields.py) and
thrown away. Now judge-1, the chair, alone is asked for it: the wings' prompt asks none (their schema is
the chair's with feedback nullable, and they answer null: tests/test_one_judge_schema.py), a wing's
ballot without feedback is accepted at its first answer (no repair turn), and the
feedback instruction sits after the shared evidence, so the three judges' requests are still identical
up to the judge's id (a provider's prompt cache serves that prefix). Online 1v1 (English) and the
CCDB 2v2 (Chinese) alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import WING_FEEDBACK_NULL, ballot_json, judge_request_over, loopback_backend, online_match

from adjudicator.config import JUDGE_IDS
from adjudicator.input.match_file import load_match
from adjudicator.judges.base import JUDGE_PERSPECTIVES
from adjudicator.judges.llm.variables import judge_units
from adjudicator.model.chat import FEEDBACK_TOKENS_PER_DEBATER, NODE_MAX_TOKENS

BUNDLED = Path(__file__).resolve().parents[1] / "adjudicator/data/matches"
VIEWS = {"online-1v1": online_match().view(), "ccdb-2v2": load_match(BUNDLED / "synthetic/synthetic_2v2_01.json").view()}


def panel(view):
    chair = judge_request_over(view)
    return [chair.model_copy(update={"judge_id": j, "perspective": JUDGE_PERSPECTIVES[j]}) for j in JUDGE_IDS]


def common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@pytest.mark.parametrize("fmt", sorted(VIEWS))
def test_the_chair_alone_is_asked_for_feedback(fmt):
    from adjudicator.verdict.feedback import FEEDBACK_JUDGE, writes_feedback

    backend = loopback_backend(type("S", (), {"base_url": "http://127.0.0.1:9/v1"})())
    chats = [backend.judge_prompt(r) for r in panel(VIEWS[fmt])]
    assert FEEDBACK_JUDGE == "judge-1" and [writes_feedback(r) for r in panel(VIEWS[fmt])] == [True, False, False]
    # one schema for the three (tests/test_one_judge_schema.py): feedback nullable, the wings told to answer null
    assert chats[0].schema == chats[1].schema == chats[2].schema and chats[0].schema["properties"]["feedback"]["type"] == ["object", "null"]
    debaters = len(VIEWS[fmt].debater_labels())
    assert [c.max_tokens for c in chats] == [NODE_MAX_TOKENS["judge"] + FEEDBACK_TOKENS_PER_DEBATER * debaters, None, None]
    assert ['"worked"' in c.messages[-1]["content"] for c in chats] == [True, False, False]
    assert [any(said in c.messages[-1]["content"] for said in WING_FEEDBACK_NULL) for c in chats] == [False, True, True]
    # the system message never asks for it: the chair's instruction comes after the shared evidence
    assert all('"feedback"' not in c.messages[0]["content"] for c in chats)


@pytest.mark.parametrize("fmt", sorted(VIEWS))
def test_the_three_judges_requests_are_identical_up_to_the_judges_id(fmt):
    backend = loopback_backend(type("S", (), {"base_url": "http://127.0.0.1:9/v1"})())
    chats = [backend.judge_prompt(r) for r in panel(VIEWS[fmt])]
    systems = {c.messages[0]["content"] for c in chats}
    assert len(systems) == 1
    users = [c.messages[1]["content"] for c in chats]
    marker = "You are judge-" if fmt == "online-1v1" else "你是 judge-"
    head = users[0].index(marker)
    assert head > 0 and all(u.index(marker) == head for u in users)
    # every pair of judges shares the whole user message up to the judge's id, and nothing after it
    for a in range(3):
        for b in range(a + 1, 3):
            assert common_prefix(users[a], users[b]) == head + len(marker)


def test_a_wings_ballot_without_feedback_stands_at_its_first_answer(fake_openai):  # noqa: F811
    view = VIEWS["online-1v1"]
    wing = panel(view)[1]
    units = judge_units(wing)
    fake_openai.push(ballot_json(units))  # no feedback: the old code asked a repair turn for it
    result = loopback_backend(fake_openai).judge(wing)
    assert [(c.turn, c.parse) for c in result.calls] == [("answer", "strict")]
    assert result.value is not None and result.value.feedback == [] and result.value.judge_id == "judge-2"
    assert '"worked"' not in json.dumps(fake_openai.requests[0]["messages"], ensure_ascii=False)
